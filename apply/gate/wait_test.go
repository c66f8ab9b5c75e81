package gate

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// A cluster-operator gate ends at its timeout only where the CVO would stop
// waiting too; an admin's timeout (HardTimeout) always ends it. The fake client
// serves one operator in the given state.
func TestClusterOperatorGateTimesOutOnlyWhereTheCVOStopsWaiting(t *testing.T) {
	const updating = `{apiVersion: config.openshift.io/v1, kind: ClusterOperator, metadata: {name: dns}, status: {versions: [{name: operator, version: 4.3.19}], conditions: [{type: Available, status: "True"}, {type: Degraded, status: "False"}]}}`
	const unavailable = `{apiVersion: config.openshift.io/v1, kind: ClusterOperator, metadata: {name: dns}, status: {versions: [{name: operator, version: 4.4.4}], conditions: [{type: Available, status: "False"}, {type: Degraded, status: "False"}]}}`
	g := &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: "dns", Versions: []planfile.OperandVersion{{Name: "operator", Version: "4.4.4"}}}
	for _, tc := range []struct {
		name string
		co   string
		hard bool
		// timedOut: the gate gave up (TimeoutError); else the context ended
		// the wait.
		timedOut bool
	}{
		{"updating: the CVO keeps waiting, so does the gate", updating, false, false},
		{"updating, the admin's timeout: the gate gives up", updating, true, true},
		{"not available: the CVO reports failing, the gate gives up at its timeout", unavailable, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{clusterOperators: "ClusterOperatorList"}, applytest.Object(tc.co))
			// How long the test watches a wait that should not end; a wait
			// that should end does so at its timeout, well before a minute.
			watch := time.Minute
			if !tc.timedOut {
				watch = 2 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), watch)
			defer cancel()
			p, err := NewChecker(client, nil).Wait(ctx, g, WaitOptions{Timeout: 200 * time.Millisecond, HardTimeout: tc.hard})
			var te *TimeoutError
			if errors.As(err, &te) != tc.timedOut {
				t.Fatalf("want a timeout %v, got %v (last progress %+v)", tc.timedOut, err, p)
			}
			if !tc.timedOut && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("the wait should have lasted until the context ended, got %v", err)
			}
			if p.Met {
				t.Fatalf("the gate cannot be met: %+v", p)
			}
		})
	}
}
