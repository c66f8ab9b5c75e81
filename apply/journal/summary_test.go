package journal

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan/planfile"
)

// summaryJournal is a remediation run: the CVO (2 replicas) scaled down, a PDB
// relaxed (temporary), a CSR approved, then whatever tail adds.
func summaryJournal(tail ...Record) *Journal {
	pdb := ObjectRef{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: "shop", Name: "web"}
	csr := ObjectRef{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest", Name: "csr-1"}
	pre := map[string]json.RawMessage{"spec.minAvailable": json.RawMessage(`2`)}
	recs := []Record{
		{Type: TypeHeader, Header: &Header{FormatVersion: FormatVersion, RunID: "r1", Plan: PlanRef{Path: "plan.json", Steps: 6}}},
		{Type: TypeIntent, Step: "001-disable-cvo", Action: "disable-cvo", Intent: &Intent{Operation: "scale-down", CVOReplicas: ptr(int32(2))}},
		{Type: TypeOutcome, Step: "001-disable-cvo", Action: "disable-cvo", Outcome: &Outcome{Result: "scaled"}},
		{Type: TypeStep, Step: "001-disable-cvo", Action: "disable-cvo", Status: StepDone},
		{Type: TypeIntent, Step: "002-relax", Action: "relax-pdb", Intent: &Intent{Operation: "patch", Object: pdb, PreImage: pre, After: `{"spec.minAvailable":0}`, Temporary: true}},
		{Type: TypeOutcome, Step: "002-relax", Action: "relax-pdb", Outcome: &Outcome{Result: "patched"}},
		{Type: TypeStep, Step: "002-relax", Action: "relax-pdb", Status: StepDone},
		{Type: TypeIntent, Step: "003-approve", Action: "approve-csr", Intent: &Intent{Operation: "approve", Object: csr, Before: "Pending", After: "Approved"}},
		{Type: TypeOutcome, Step: "003-approve", Action: "approve-csr", Outcome: &Outcome{Result: "approved"}},
		{Type: TypeStep, Step: "003-approve", Action: "approve-csr", Status: StepDone},
	}
	for i := range recs {
		recs[i].Seq = i + 1
	}
	for i, r := range tail {
		r.Seq = len(recs) + i + 1
		recs = append(recs, r)
	}
	return &Journal{Path: "/runs/my run.journal", Header: *recs[0].Header, Records: recs}
}

// signatureCM is the ConfigMap a create-release-signature step creates.
var signatureCM = ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "openshift-config-managed", Name: "sha256-ab"}

const removeSignature = "oc delete configmap/sha256-ab -n openshift-config-managed"

func TestSummarize(t *testing.T) {
	restore := `oc patch poddisruptionbudget/web -n shop --type=merge -p '{"spec":{"minAvailable":2}}'`
	resume := nextcmd.Resume("/runs/my run.journal")
	for _, tc := range []struct {
		name      string
		tail      []Record
		state     string
		relax     string // the relax-pdb change's state
		next      []string
		tableHas  []string
		tableNots []string
		created   []string // the steps listed as having created an object
	}{
		{
			name:  "stopped with the PDB relaxed and the CVO disabled",
			tail:  []Record{{Type: TypeStop, Stop: &Stop{Reason: "gate-failed", Message: "nodes did not settle", CVODisabled: true}}},
			state: "stopped: gate-failed", relax: ChangeOutstanding,
			next:     []string{resume, restore, nextcmd.ScaleCVO(2)},
			tableHas: []string{"DISABLED (scaled to 0); it ran 2 replica(s) before", "OUTSTANDING (not restored yet)", "Stopped because:", "nodes did not settle", restore},
		},
		{
			name:  "died without a stop record",
			tail:  []Record{{Type: TypeIntent, Step: "004-wait", Action: "wait"}},
			state: "interrupted (no stop record: the run died, or is still running)", relax: ChangeOutstanding,
			next:     []string{resume, restore, nextcmd.ScaleCVO(2)},
			tableHas: []string{"In flight:", "004-wait"},
		},
		{
			name: "finished: the plan's revert restored the PDB and the CVO is back",
			tail: []Record{
				{Type: TypeIntent, Step: "005-revert", Action: "revert", Intent: &Intent{Operation: OperationRevert, RevertOf: "002-relax"}},
				{Type: TypeOutcome, Step: "005-revert", Action: "revert", Outcome: &Outcome{Result: ResultReverted}},
				{Type: TypeStep, Step: "005-revert", Action: "revert", Status: StepDone},
				{Type: TypeIntent, Step: "006-restore-cvo", Action: "restore-cvo", Intent: &Intent{Operation: "scale-up"}},
				{Type: TypeOutcome, Step: "006-restore-cvo", Action: "restore-cvo", Outcome: &Outcome{Result: "scaled"}},
				{Type: TypeStep, Step: "006-restore-cvo", Action: "restore-cvo", Status: StepDone},
				{Type: TypeFinish},
			},
			state: "finished", relax: ChangeReverted,
			tableHas:  []string{"restored to 2 replica(s)", "restored by 005-revert"},
			tableNots: []string{"OUTSTANDING", "Next:"},
		},
		{
			name: "a remedy created an object (its answer lost), an update created another",
			tail: []Record{
				{Type: TypeIntent, Step: "004-signature", Action: "create-release-signature", Intent: &Intent{Operation: OperationCreate, Object: signatureCM}},
				{Type: TypeOutcome, Step: "004-signature", Action: "create-release-signature", Outcome: &Outcome{Result: "failed", Error: "connection reset"}},
				{Type: TypeOutcome, Step: "004-signature", Action: "create-release-signature", Outcome: &Outcome{Result: "unchanged"}},
				{Type: TypeIntent, Step: "005-apply", Action: "apply", Intent: &Intent{Operation: OperationCreate, Object: ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "openshift-etcd", Name: "x"}}},
				{Type: TypeOutcome, Step: "005-apply", Action: "apply", Outcome: &Outcome{Result: "created"}},
			},
			state: "interrupted (no stop record: the run died, or is still running)", relax: ChangeOutstanding,
			next:      []string{resume, restore, nextcmd.ScaleCVO(2)},
			created:   []string{"004-signature"},
			tableHas:  []string{"ConfigMap openshift-config-managed/sha256-ab", "(absent)", "created", "004-signature created ConfigMap openshift-config-managed/sha256-ab: lasting", removeSignature},
			tableNots: []string{"openshift-etcd/x"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(summaryJournal(tc.tail...))
			if s.State != tc.state {
				t.Errorf("state %q, want %q", s.State, tc.state)
			}
			if !slices.Equal(s.Next, tc.next) {
				t.Errorf("next\n got %q\nwant %q", s.Next, tc.next)
			}
			byStep := map[string]Change{}
			for _, c := range s.Changes {
				byStep[c.Step] = c
			}
			relax := byStep["002-relax"]
			if relax.State != tc.relax || !relax.Temporary {
				t.Errorf("relax change %+v, want state %s", relax, tc.relax)
			}
			if (relax.State == ChangeOutstanding) != (relax.Restore == restore && relax.Resume == resume) {
				t.Errorf("an outstanding change carries its resume and restore commands, only then: %+v", relax)
			}
			var created []string
			for _, c := range s.Changes {
				if c.Created {
					created = append(created, c.Step)
					if c.State != ChangeMade || c.Temporary || c.Remove != removeSignature || c.Object == nil || *c.Object != signatureCM {
						t.Errorf("created object %+v: a lasting change, with the command that removes it", c)
					}
				}
			}
			if !slices.Equal(created, tc.created) {
				t.Errorf("objects created by %v, want %v", created, tc.created)
			}
			csr := byStep["003-approve"]
			if csr.State != ChangeMade || csr.Temporary || string(csr.PreImage["state"]) != `"Pending"` || string(csr.After["state"]) != `"Approved"` {
				t.Errorf("CSR approval %+v: a lasting change from Pending to Approved", csr)
			}
			if s.Done != 3+strings.Count(tc.name, "finished")*2 {
				t.Errorf("%d steps done", s.Done)
			}
			var buf bytes.Buffer
			if err := s.WriteTable(&buf); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.tableHas {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("table lacks %q:\n%s", want, buf.String())
				}
			}
			for _, not := range tc.tableNots {
				if strings.Contains(buf.String(), not) {
					t.Errorf("table has %q:\n%s", not, buf.String())
				}
			}
		})
	}
}

// TestSummaryPrintsThePlanOutcome: the header records the plan's mode and
// outcome, and recover journal prints the outcome's kind, rule and why; a
// journal written before formatVersion 1.2 (no outcome) still reads, and
// prints no outcome line.
func TestSummaryPrintsThePlanOutcome(t *testing.T) {
	dir := t.TempDir()
	o := &planfile.Outcome{Kind: planfile.OutcomeDriveCVO, Rule: "retarget-in-flight", Why: "The CVO is given another desired update and carries it out itself: 4.13.4 is exposed to a risk."}
	path := dir + "/new.journal"
	w, err := Create(path, Header{RunID: "r1", Plan: PlanRef{Path: "/p.json", Digest: "sha256:x", TargetVersion: "4.13.5", Steps: 2, Mode: planfile.ModeDriveCVO, Outcome: o}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	j, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(j)
	var tb bytes.Buffer
	if err := s.WriteTable(&tb); err != nil {
		t.Fatal(err)
	}
	if j.Header.FormatVersion != FormatVersion || s.Plan.Mode != planfile.ModeDriveCVO || s.Plan.Outcome == nil || s.Plan.Outcome.Rule != o.Rule ||
		!strings.Contains(tb.String(), "Outcome:  drive-cvo (rule retarget-in-flight): The CVO is given another desired update") {
		t.Fatalf("format %s plan %+v\n%s", j.Header.FormatVersion, s.Plan, tb.String())
	}
	old := dir + "/old.journal"
	line := `{"type":"header","seq":1,"time":"2026-01-01T00:00:00Z","header":{"formatVersion":"1.1","runID":"r0","plan":{"path":"/p.json","digest":"sha256:x","steps":3},"startedAt":"2026-01-01T00:00:00Z"}}` + "\n"
	if err := os.WriteFile(old, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err = Load(old)
	if err != nil {
		t.Fatalf("a 1.1 journal: %v", err)
	}
	tb.Reset()
	if err := Summarize(j).WriteTable(&tb); err != nil || j.Header.Plan.Outcome != nil || strings.Contains(tb.String(), "Outcome:") {
		t.Fatalf("a 1.1 journal: %v\n%s", err, tb.String())
	}
}
