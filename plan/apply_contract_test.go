package plan_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestApplyAcceptsThePlan is the contract with apply: the JSON recover plan
// writes is what recover apply --plan loads and validates (identity and format
// version, step IDs, manifest digests, delete annotations, CVO bracketing, the
// desired update by digest).
func TestApplyAcceptsThePlan(t *testing.T) {
	const ex = "../examples/reconciled-4.3-to-4.4"
	for _, mg := range []string{ex + "/must-gather", "../examples/false-success-revision/must-gather"} {
		ctx := context.Background()
		s, err := mustgather.New(mg).Collect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		g, err := graph.Load(ctx, graph.Options{Graph: ex + "/graph.json", GraphData: ex + "/graph-data", Channel: "stable-4.4"})
		if err != nil {
			t.Fatal(err)
		}
		// The second incident's CVO is updating and keeps the wheel unless the
		// admin asks for the push (--take-over); the first's is reconciling
		// mixed releases, which takes the wheel on its own.
		p, err := plan.Make(ctx, plan.Options{Snapshot: s, Graph: g, Payload: plan.PayloadDir{Dir: ex + "/releases/4.4.4"}, TakeOver: takeOverFor(mg)})
		if err != nil {
			t.Fatal(err)
		}
		if err := planfile.Validate(p); err != nil {
			t.Fatalf("%s: apply refuses the plan: %v", mg, err)
		}
		data, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "plan.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		loaded, digest, err := planfile.Load(path)
		if err != nil {
			t.Fatalf("%s: apply.LoadPlan: %v", mg, err)
		}
		if digest == "" || len(loaded.Steps) != len(p.Steps) || loaded.Steps[len(p.Steps)-1].ID != p.Steps[len(p.Steps)-1].ID {
			t.Fatalf("%s: loaded plan differs", mg)
		}
		// The loaded document still passes the planner's own check.
		if err := plan.Check(loaded, s, nil); err != nil {
			t.Fatalf("%s: %v", mg, err)
		}
	}
}

// takeOverFor is the admin's --take-over for an example whose decision keeps
// the CVO at the wheel.
func takeOverFor(mustGather string) string {
	if strings.Contains(mustGather, "false-success-revision") {
		return "test: the push plan of an update in progress"
	}
	return ""
}
