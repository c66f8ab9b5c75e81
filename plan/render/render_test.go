package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/testing/golden"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/policy"
)

const example = "../../examples/reconciled-4.3-to-4.4"

// examplePlan makes the plan of an example must-gather with the bundled graph and
// the 4.4.4 payload, at a fixed time, by a fixed generator.
func examplePlan(t *testing.T, mustGather string, pol *policy.Policy) (*planfile.Plan, error) {
	t.Helper()
	ctx := context.Background()
	s, err := mustgather.New(mustGather).Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Load(ctx, graph.Options{Graph: example + "/graph.json", GraphData: example + "/graph-data", Channel: "stable-4.4"})
	if err != nil {
		t.Fatal(err)
	}
	return plan.Make(ctx, plan.Options{
		Snapshot: s, Graph: g, Policy: pol, Payload: plan.PayloadDir{Dir: example + "/releases/4.4.4"},
		Now: func() time.Time { return time.Date(2020, 5, 25, 9, 0, 0, 0, time.UTC) }, Generator: "recover (golden)",
		TakeOver: pushAsked(s, nil),
	})
}

// pushAsked is the admin's --take-over for a snapshot whose decision keeps
// the CVO at the wheel (the second incident is an update in progress), so that
// the goldens render the push plan; "" where the decision pushes on its own.
func pushAsked(s *inspect.Snapshot, accept []string) string {
	if plan.Decide(s, plan.DecideInput{Accept: accept}).Outcome.Kind.NeedsRelease() {
		return ""
	}
	return "golden: the push plan's rendering"
}

func TestGoldenPlans(t *testing.T) {
	for _, tc := range []struct {
		name, mustGather string
	}{
		{"incident1", example + "/must-gather"},
		{"incident2", "../../examples/false-success-revision/must-gather"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := examplePlan(t, tc.mustGather, nil)
			if err != nil {
				t.Fatal(err)
			}
			var js bytes.Buffer
			enc := json.NewEncoder(&js)
			enc.SetIndent("", "  ")
			if err := enc.Encode(p); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, "testdata/"+tc.name+".plan.json.golden", js.Bytes())
			var md bytes.Buffer
			if err := Markdown(&md, p); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, "testdata/"+tc.name+".plan.md.golden", md.Bytes())
			var tb bytes.Buffer
			if err := Table(&tb, p); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, "testdata/"+tc.name+".table.golden", tb.Bytes())
		})
	}
}

func TestGoldenNoTarget(t *testing.T) {
	pol, err := policy.Parse("p.yaml", []byte("apiVersion: recover.openshift.io/v1alpha1\nkind: TransitionPolicy\nmaxMinorHop: 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = examplePlan(t, example+"/must-gather", pol)
	var nte *plan.NoTargetError
	if !errors.As(err, &nte) || nte.ExitCode() != 6 {
		t.Fatalf("%v", err)
	}
	var b bytes.Buffer
	if err := Candidates(&b, nte.Selection.Candidates); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/"+"no-target.candidates.golden", b.Bytes())
}

func TestMarkdownRunbookContents(t *testing.T) {
	p, err := examplePlan(t, example+"/must-gather", nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Markdown(&b, p); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"# Recovery plan: 4.3.19 + 4.4.3 to 4.4.4",
		"- [ ] **001-disable-cvo** `disable-cvo`",
		"By hand: `oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=0`",
		"By hand: `oc patch machineconfigpool/master --type=merge -p '{\"spec\":{\"paused\":true}}'`",
		"Gate `static-pods`: master-0, master-1, master-2 (control-plane nodes) run kube-apiserver at the latest revision",
		"Check: `oc get kubeapiservers/cluster",
		"recover apply --plan plan.json --dry-run",
		"recover apply --resume 'recover-apply-<time>.journal' --yes",
		"## Roll back the CVO state",
		// the desired update the cluster had, for rolling back
		`"version":"4.4.3","image":"quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc","force":true`,
		"oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=1",
		"| 4 | 4.4.3 | rejected | 6 (6 minor, 18 patch) | blocked-edge |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("runbook lacks %q", want)
		}
	}
	// Every step is a checklist item, in plan order.
	last := -1
	for _, s := range p.Steps {
		i := strings.Index(md, "- [ ] **"+s.ID+"**")
		if i <= last {
			t.Fatalf("step %s missing or out of order in the runbook", s.ID)
		}
		last = i
	}
}

func TestCellEscapesTableSyntax(t *testing.T) {
	if got := cell("a|b\nc"); got != `a\|b c` {
		t.Fatalf("%q", got)
	}
}

func TestCandidatesListsRisksToAccept(t *testing.T) {
	var b bytes.Buffer
	err := Candidates(&b, []planfile.Candidate{{Version: "4.4.4", Rank: 1, Verdict: "demoted", Rule: "unaccepted-risk", Reason: "4.3.19 -> 4.4.4 is conditional",
		Risks: []planfile.Risk{{Name: "EtcdSlow", URL: "https://issues.example/1", Message: "etcd may be slow"}}}})
	if err != nil || !strings.Contains(b.String(), "RISKS (name them with --accept once reviewed)\n  - EtcdSlow: etcd may be slow (https://issues.example/1)") {
		t.Fatalf("%v\n%s", err, b.String())
	}
}
