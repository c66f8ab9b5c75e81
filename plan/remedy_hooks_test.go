package plan

import (
	"testing"

	"github.com/openshift-recover/recover/inspect"
)

// TestRemedyHooksAreRegisteredFindings: every remedy hook answers a code of
// the finding registry, so a renamed or removed finding cannot leave a remedy
// that never runs.
func TestRemedyHooksAreRegisteredFindings(t *testing.T) {
	if len(remedyHooks) == 0 {
		t.Fatal("no remedy hooks")
	}
	for code := range remedyHooks {
		if inspect.FindingSpecOf(code) == nil {
			t.Errorf("remedy hook for %q, which inspect's finding registry does not hold", code)
		}
	}
}
