package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planconfigmap"
	"github.com/openshift-recover/recover/plan/planfile"
)

func TestApplyRefusesBadInvocationsBeforeTouchingACluster(t *testing.T) {
	dir := t.TempDir()
	planPath := applytest.NewPlan().DisableCVO().RestoreCVO().Write(t, dir)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"apply", "--plan", planPath}, ExitUsage, "pass --yes"},
		{[]string{"apply", "--plan", planPath, "--events", "json"}, ExitUsage, "pass --yes"},
		{[]string{"apply"}, ExitUsage, "no plan"},
		{[]string{"apply", "--plan", filepath.Join(dir, "missing.json"), "--yes"}, ExitBadInput, "reading plan"},
		{[]string{"apply", "--plan", bad, "--yes"}, ExitBadInput, "not a plan document"},
		{[]string{"apply", "--plan", planPath, "--yes", "--gate-timeout", "vibes=1m"}, ExitUsage, "--gate-timeout"},
		// The message lists the remediation gates too.
		{[]string{"apply", "--plan", planPath, "--yes", "--gate-timeout", "nodes-settled=0s"}, ExitUsage, "nodes-settled, nodes-ready, csr-issued, restored, condition-cleared"},
		{[]string{"apply", "--plan", planPath, "--yes", "--backup-record", "b.yaml", "--i-have-a-backup"}, ExitUsage, "not both"},
		{[]string{"apply", "--plan", planPath, "--yes", "--events", "xml"}, ExitUsage, "--events"},
		{[]string{"apply", "--resume", filepath.Join(dir, "missing.journal"), "--yes"}, ExitBadInput, "journal"},
		// Outside a pod, without --kubeconfig, there is no service account to run as.
		{[]string{"apply", "--in-cluster", "--yes"}, ExitCluster, "run it in a pod, or pass --kubeconfig"},
		{[]string{"apply", "--print-plan-configmap", "--yes"}, ExitUsage, "no plan"},
	} {
		code, _, errOut := runRecover(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q on one line", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

func TestExitCodeForOutcome(t *testing.T) {
	for o, want := range map[apply.Outcome]int{
		apply.OutcomeCompleted: ExitOK, apply.OutcomeStopped: ExitOK, apply.OutcomeBadInput: ExitBadInput,
		apply.OutcomeRefused: ExitPreflight, apply.OutcomeLocked: ExitLocked, apply.OutcomeLostLock: ExitLocked,
		apply.OutcomeGateFailed: ExitGateFailed, apply.OutcomeStepFailed: ExitStepFailed, apply.OutcomeAborted: ExitAborted,
		apply.OutcomeError: ExitError,
	} {
		if got := exitCodeForOutcome(o, &apply.Error{Outcome: o, Err: errors.New("x")}); got != want {
			t.Errorf("%s: exit %d, want %d", o, got, want)
		}
	}
}

func writeStoppedJournal(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.journal")
	w, err := journal.Create(path, journal.Header{RunID: "r1", Plan: journal.PlanRef{Path: "/plans/plan.json", Digest: "sha256:abc", TargetVersion: "4.4.4", Steps: 3}, Server: "https://api:6443"})
	if err != nil {
		t.Fatal(err)
	}
	two := int32(2)
	for _, r := range []journal.Record{
		{Type: journal.TypeBackup, Backup: &journal.Backup{Path: "/backup/snapshot.db", SHA256: strings.Repeat("ab", 32), EtcdRevision: 42, ClusterVersion: "4.4.3", Verified: "snapshot not on this machine: sha256 not verified"}},
		{Type: journal.TypeIntent, Step: "001-disable-cvo", Action: "disable-cvo", Intent: &journal.Intent{Operation: "scale-down", CVOReplicas: &two}},
		{Type: journal.TypeOutcome, Step: "001-disable-cvo", Action: "disable-cvo", Outcome: &journal.Outcome{Result: "scaled"}},
		{Type: journal.TypeStep, Step: "001-disable-cvo", Action: "disable-cvo", Status: journal.StepDone},
		{Type: journal.TypeGate, Step: "002-wait-etcd", Action: "wait", Gate: &journal.GateResult{Kind: "cluster-operator", Result: "timeout", Message: "etcd: operator 4.4.3 (want 4.4.4)"}},
		{Type: journal.TypeStop, Step: "002-wait-etcd", Stop: &journal.Stop{Reason: "gate-failed", Message: "step 002-wait-etcd: cluster-operator gate not met", CVODisabled: true, CVOReplicas: &two}},
	} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	return path
}

func TestJournalSummarizesARun(t *testing.T) {
	path := writeStoppedJournal(t)
	code, out, errOut := runRecover(t, "journal", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"State:            stopped: gate-failed",
		"CVO:              DISABLED (scaled to 0); it ran 2 replica(s) before",
		"/backup/snapshot.db",
		"001-disable-cvo  disable-cvo  done",
		"002-wait-etcd    wait         failed",
		"recover apply --resume " + path + " --yes",
		"oc scale deployment/cluster-version-operator -n openshift-cluster-version --replicas=2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	code, out, _ = runRecover(t, "journal", path, "-o", "json")
	var s journal.Summary
	if code != ExitOK || json.Unmarshal([]byte(out), &s) != nil || !s.CVO.Disabled || s.Done != 1 || len(s.Next) != 2 {
		t.Fatalf("json summary: exit %d %+v", code, s)
	}
	bad := filepath.Join(t.TempDir(), "x.journal")
	os.WriteFile(bad, []byte("nope\n"), 0o600)
	if code, _, errOut := runRecover(t, "journal", bad); code != ExitBadInput || !strings.Contains(errOut, "not a journal record") {
		t.Errorf("bad journal: exit %d %q", code, errOut)
	}
}

func TestExitCodeOfARefusedStep(t *testing.T) {
	if got := exitCodeForOutcome(apply.OutcomeStepRefused, &apply.Error{Outcome: apply.OutcomeStepRefused, Err: errors.New("x")}); got != ExitRemedyRefused {
		t.Errorf("step-refused: exit %d, want %d", got, ExitRemedyRefused)
	}
}

// TestJournalSaysWhatWasChangedAndRestoredAtEveryKillPoint writes the journal
// of a relax-pdb and its revert cut after every record, as kill -9 leaves it,
// and checks what recover journal says of the change at each point.
func TestJournalSaysWhatWasChangedAndRestoredAtEveryKillPoint(t *testing.T) {
	pdb := journal.ObjectRef{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: "shop", Name: "web"}
	pre := map[string]json.RawMessage{"spec.minAvailable": json.RawMessage(`2`), "spec.maxUnavailable": journal.Absent}
	relax, revert := "002-relax-pdb-web", "003-revert-web"
	intent := &journal.Intent{Operation: "patch", Object: pdb, LiveUID: "u", PreImage: pre, After: `{"spec.maxUnavailable":"100%","spec.minAvailable":null}`, Temporary: true}
	restore := `oc patch poddisruptionbudget/web -n shop --type=merge -p '{"spec":{"maxUnavailable":null,"minAvailable":2}}'`
	records := []journal.Record{
		{Type: journal.TypeIntent, Step: relax, Action: "relax-pdb", Intent: intent},
		{Type: journal.TypeOutcome, Step: relax, Action: "relax-pdb", Outcome: &journal.Outcome{Result: "patched"}},
		{Type: journal.TypeGate, Step: relax, Action: "relax-pdb", Gate: &journal.GateResult{Kind: "nodes-settled", Result: "passed"}},
		{Type: journal.TypeStep, Step: relax, Action: "relax-pdb", Status: journal.StepDone},
		{Type: journal.TypeIntent, Step: revert, Action: "revert", Intent: &journal.Intent{Operation: journal.OperationRevert, Object: pdb, RevertOf: relax}},
		{Type: journal.TypeOutcome, Step: revert, Action: "revert", Outcome: &journal.Outcome{Result: journal.ResultReverted}},
		{Type: journal.TypeGate, Step: revert, Action: "revert", Gate: &journal.GateResult{Kind: "restored", Result: "passed"}},
		{Type: journal.TypeStep, Step: revert, Action: "revert", Status: journal.StepDone},
	}
	// The same run stopped by a gate timeout: the engine reverts on its own.
	onStop := []journal.Record{
		records[0], records[1],
		{Type: journal.TypeGate, Step: relax, Action: "relax-pdb", Gate: &journal.GateResult{Kind: "nodes-settled", Result: "timeout"}},
		{Type: journal.TypeIntent, Step: relax, Action: "relax-pdb", Intent: &journal.Intent{Operation: journal.OperationRevert, Object: pdb, RevertOf: relax}},
		{Type: journal.TypeOutcome, Step: relax, Action: "relax-pdb", Outcome: &journal.Outcome{Result: journal.ResultReverted}},
		{Type: journal.TypeReverted, Step: relax, Action: "relax-pdb", Message: "restored"},
		{Type: journal.TypeStop, Step: relax, Stop: &journal.Stop{Reason: "gate-failed"}},
	}
	for _, tc := range []struct {
		name    string
		records []journal.Record
		// want[i] is the change's state after records[:i+1] ("" for none).
		want       []string
		restoredBy string
	}{
		{"the plan's revert", records, []string{"outstanding", "outstanding", "outstanding", "outstanding", "outstanding", "reverted", "reverted", "reverted"}, revert},
		{"revert on stop", onStop, []string{"outstanding", "outstanding", "outstanding", "outstanding", "reverted", "reverted", "reverted"}, journal.RestoredOnStop},
	} {
		for i := range tc.records {
			path := filepath.Join(t.TempDir(), "run.journal")
			w, err := journal.Create(path, journal.Header{RunID: "r1", Plan: journal.PlanRef{Path: "/plans/plan.json", Digest: "sha256:abc", Steps: 4}})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.records[:i+1] {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
			code, out, errOut := runRecover(t, "journal", path, "-o", "json")
			var s journal.Summary
			if code != ExitOK || json.Unmarshal([]byte(out), &s) != nil || len(s.Changes) != 1 {
				t.Fatalf("%s, %d records: exit %d %s %s", tc.name, i+1, code, errOut, out)
			}
			c := s.Changes[0]
			where := tc.name + ", after " + string(tc.records[i].Type) + " " + tc.records[i].Step
			if c.State != tc.want[i] || c.Step != relax || !c.Temporary || string(c.PreImage["spec.minAvailable"]) != "2" || c.Object == nil || c.Object.Name != "web" {
				t.Errorf("%s: change %+v, want state %s", where, c, tc.want[i])
			}
			switch c.State {
			case "outstanding":
				if c.Restore != restore || c.Resume != "recover apply --resume "+path+" --yes" || !strings.Contains(strings.Join(s.Next, "\n"), restore) {
					t.Errorf("%s: an outstanding change needs the resume and the manual restore: %+v next %v", where, c, s.Next)
				}
			case "reverted":
				if c.RestoredBy != tc.restoredBy || c.Restore != "" || strings.Contains(strings.Join(s.Next, "\n"), "oc patch") {
					t.Errorf("%s: restored by %q, want %q; next %v", where, c.RestoredBy, tc.restoredBy, s.Next)
				}
			}
			_, table, _ := runRecover(t, "journal", path)
			if !strings.Contains(table, "spec.maxUnavailable=(absent), spec.minAvailable=2") || (c.State == "outstanding") != strings.Contains(table, "OUTSTANDING") {
				t.Errorf("%s: table:\n%s", where, table)
			}
		}
	}
}

// TestJournalListsACSRApprovalAsALastingChange checks that recover journal
// names an approved CertificateSigningRequest among the changes (approve-csr
// has no pre-image of fields: the request goes from Pending to Approved), from
// its intent on, so that a kill between the intent and the outcome still says
// the request may be approved.
func TestJournalListsACSRApprovalAsALastingChange(t *testing.T) {
	csr := journal.ObjectRef{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest", Name: "csr-cn9pf"}
	step := "002-approve-csr-csr-cn9pf"
	records := []journal.Record{
		{Type: journal.TypeIntent, Step: step, Action: "approve-csr", Intent: &journal.Intent{Operation: "approve", Object: csr, LiveUID: "u", Before: "Pending", After: "Approved"}},
		{Type: journal.TypeOutcome, Step: step, Action: "approve-csr", Outcome: &journal.Outcome{Result: "approved"}},
	}
	for i := range records {
		path := filepath.Join(t.TempDir(), "run.journal")
		w, err := journal.Create(path, journal.Header{RunID: "r1", Plan: journal.PlanRef{Path: "/plans/plan.json", Digest: "sha256:abc", Steps: 3}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range records[:i+1] {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		code, out, errOut := runRecover(t, "journal", path, "-o", "json")
		var s journal.Summary
		if code != ExitOK || json.Unmarshal([]byte(out), &s) != nil || len(s.Changes) != 1 {
			t.Fatalf("after %d records: exit %d %s %s", i+1, code, errOut, out)
		}
		c := s.Changes[0]
		if c.Step != step || c.Temporary || c.State != "made" || c.Object == nil || c.Object.Name != "csr-cn9pf" ||
			string(c.PreImage["state"]) != `"Pending"` || string(c.After["state"]) != `"Approved"` {
			t.Errorf("after %d records: change %+v", i+1, c)
		}
		if _, table, _ := runRecover(t, "journal", path); !strings.Contains(table, `CertificateSigningRequest csr-cn9pf  lasting`) || !strings.Contains(table, `state="Pending"`) {
			t.Errorf("after %d records: table:\n%s", i+1, table)
		}
	}
}

// TestPrintPlanConfigMapKeepsThePlanFile: --print-plan-configmap needs no
// cluster and prints the ConfigMap that keeps the plan for --in-cluster, its
// digest the plan file's.
func TestPrintPlanConfigMapKeepsThePlanFile(t *testing.T) {
	planPath := applytest.NewPlan().DisableCVO().RestoreCVO().Write(t, t.TempDir())
	_, digest, err := planfile.Load(planPath)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runRecover(t, "apply", "--plan", planPath, "--print-plan-configmap", "--namespace", "ops", "--plan-configmap", "hop-1")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(out), &cm); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if cm.Name != "hop-1" || cm.Namespace != "ops" || cm.Annotations[planconfigmap.DigestAnnotation] != digest || len(cm.BinaryData[planconfigmap.GzipKey]) == 0 {
		t.Errorf("printed ConfigMap %s/%s, annotations %v; want ops/hop-1 with the plan's digest %s", cm.Namespace, cm.Name, cm.Annotations, digest)
	}
}
