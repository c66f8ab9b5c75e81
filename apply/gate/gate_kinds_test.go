package gate

import (
	"testing"

	"github.com/openshift-recover/recover/plan/planfile"
)

// TestEveryGateKindHasADefaultTimeout keeps plan.GateKinds (what --gate-timeout
// lists and accepts) and the engine's defaults one set.
func TestEveryGateKindHasADefaultTimeout(t *testing.T) {
	kinds := planfile.GateKinds()
	for _, k := range kinds {
		if DefaultTimeouts[k] <= 0 {
			t.Errorf("gate kind %s has no default timeout", k)
		}
	}
	if len(DefaultTimeouts) != len(kinds) {
		t.Errorf("%d default timeouts for %d gate kinds: %v", len(DefaultTimeouts), len(kinds), DefaultTimeouts)
	}
}
