package plan

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestDecideTable: each rule of the decision table on the snapshot that makes
// it hold, first match wins.
func TestDecideTable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		snap     func(t *testing.T) *inspect.Snapshot
		in       DecideInput
		kind     planfile.OutcomeKind
		rule     string
		evidence string // a finding code the rule read ("" for none)
	}{
		{name: "the first incident: a reconciling CVO over mixed releases is replaced", snap: func(t *testing.T) *inspect.Snapshot { return snapshot(t, incident1) },
			kind: planfile.OutcomeReplaceCVO, rule: "cvo-would-reconcile-mixed", evidence: inspect.CodeUpdateClaimedCompleteButMixed},
		{name: "the admin asks for the push", snap: healthyUpdatingT, in: DecideInput{TakeOver: "change CHG-1"},
			kind: planfile.OutcomeReplaceCVO, rule: RuleAdminTakesOver},
		{name: "an update in progress that nothing holds: nothing", snap: healthyUpdatingT, kind: planfile.OutcomeNothing, rule: "nothing-holds"},
		{name: "a drain held by a PDB under an update: remediation, the CVO keeps running", snap: func(t *testing.T) *inspect.Snapshot {
			s := healthyUpdating(t)
			holdDrain(t, s, "ci", "build", "worker-0")
			return s
		}, kind: planfile.OutcomeRemediation, rule: "remedies", evidence: inspect.CodeDrainBlockedByPDB},
		{name: "a risk on the in-flight target: the CVO is retargeted", snap: func(t *testing.T) *inspect.Snapshot {
			s := healthyUpdating(t)
			addFinding(s, inspect.CodeConditionalRiskOnTarget, "clusterversion/version", map[string]string{"target": "4.4.4", "risks": "EtcdSlow"})
			return s
		}, kind: planfile.OutcomeDriveCVO, rule: "retarget-in-flight", evidence: inspect.CodeConditionalRiskOnTarget},
		{name: "the second incident under an update: the forced redeployment waits for --accept", snap: func(t *testing.T) *inspect.Snapshot { return snapshot(t, incident2) },
			kind: planfile.OutcomeRefused, rule: "remedies-refused", evidence: inspect.CodeInstallerSucceededWithoutRevision},
		{name: "the second incident, accepted: remediation", snap: func(t *testing.T) *inspect.Snapshot { return snapshot(t, incident2) },
			in: DecideInput{Accept: []string{"force-redeployment:kube-apiserver"}}, kind: planfile.OutcomeRemediation, rule: "remedies"},
		{name: "something holds an update recover does not change: advice", snap: func(t *testing.T) *inspect.Snapshot {
			s := healthyUpdating(t)
			addFinding(s, inspect.CodeOperatorDegraded, "clusteroperator/authentication", nil)
			s.Wedges = append(s.Wedges, inspect.Wedge{Code: inspect.CodeOperatorDegraded, Class: inspect.ClassBlocks, Subjects: []string{"clusteroperator/authentication"}})
			return s
		}, kind: planfile.OutcomeAdvice, rule: "cvo-at-the-wheel", evidence: inspect.CodeOperatorDegraded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.snap(t), tc.in)
			o := d.Outcome
			if o.Kind != tc.kind || o.Rule != tc.rule || o.Why == "" || strings.Contains(o.Why, "\n") {
				t.Fatalf("outcome %+v, want %s by %s", o, tc.kind, tc.rule)
			}
			if tc.evidence != "" && !hasEvidence(o, tc.evidence) {
				t.Fatalf("evidence %+v lacks %s", o.Evidence, tc.evidence)
			}
		})
	}
}

func healthyUpdatingT(t *testing.T) *inspect.Snapshot { return healthyUpdating(t) }

func hasEvidence(o planfile.Outcome, code string) bool {
	for _, e := range o.Evidence {
		if e.Finding == code {
			return true
		}
	}
	return false
}

// TestMakeCarriesOutTheOutcome: given a graph and a payload, Make still does
// only what the outcome asks: no push plan for an update in progress (advice
// or nothing), a remediation plan without the bracket where the CVO updates,
// the push plan where it reconciles a mixed cluster; every plan it makes
// records its outcome and passes the reader's validation.
func TestMakeCarriesOutTheOutcome(t *testing.T) {
	_, err := Make(t.Context(), Options{Snapshot: healthyUpdating(t), Graph: exampleGraphResult(t), Payload: PayloadDir{Dir: payload444}, Now: fixedClock})
	var npe *NoPlanError
	if !errors.As(err, &npe) || npe.Outcome.Kind != planfile.OutcomeNothing || npe.ExitCode() != 0 {
		t.Fatalf("an update nothing holds, with a graph: %v", err)
	}
	s := healthyUpdating(t)
	holdDrain(t, s, "ci", "build", "worker-0")
	p, err := Make(t.Context(), Options{Snapshot: s, Graph: exampleGraphResult(t), Payload: PayloadDir{Dir: payload444}, Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != planfile.ModeRemediation || p.Outcome == nil || p.Outcome.Kind != planfile.OutcomeRemediation || stepIndex(p, func(st *planfile.Step) bool { return st.Action == planfile.ActionDisableCVO }) >= 0 {
		t.Fatalf("a PDB under an update, with a graph: mode %s outcome %+v actions %v", p.Mode, p.Outcome, actions(p))
	}
	p, err = Make(t.Context(), Options{Snapshot: snapshot(t, incident1), Graph: exampleGraphResult(t), Payload: PayloadDir{Dir: payload444}, Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Version != "4.4.4" || p.Outcome.Kind != planfile.OutcomeReplaceCVO || p.Steps[0].Action != planfile.ActionDisableCVO {
		t.Fatalf("the first incident: target %s outcome %+v first step %s", p.Target.Version, p.Outcome, p.Steps[0].Action)
	}
	if err := planfile.Validate(p); err != nil {
		t.Fatal(err)
	}
	// --take-over without a graph says what it needs.
	_, err = Make(t.Context(), Options{Snapshot: healthyUpdating(t), TakeOver: "x", Now: fixedClock})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "--graph") {
		t.Fatalf("--take-over without a graph: %v", err)
	}
}

// TestArchitectureHasTheDecisionTable: docs/architecture.md lists every rule
// of the table with the outcome it chooses, in order.
func TestArchitectureHasTheDecisionTable(t *testing.T) {
	data, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc, last := string(data), -1
	for _, r := range Rules {
		row := "| `" + r.Name + "` | " + string(r.Kind) + " | "
		i := strings.Index(doc, row)
		if i < 0 || i < last {
			t.Fatalf("docs/architecture.md lacks the row %q in the table's order", row)
		}
		last = i
	}
}

func fixedClock() time.Time { return fixedTime }
