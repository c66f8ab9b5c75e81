package plan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/inputcheck"
	"github.com/openshift-recover/recover/plan/planfile"
)

// FuzzLoad feeds arbitrary bytes to the plan document reader (recover apply
// --plan): Load decodes and Validate checks. A failure must be a one-line
// bad-input error; a plan that loads must load again, unchanged, from its own
// JSON, and must not change the cluster before disable-cvo or after restore-cvo.
func FuzzLoad(f *testing.F) {
	b, _ := applytest.FullPlan("fuzz")
	full, err := json.MarshalIndent(b.Plan(), "", "  ")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	small, err := json.Marshal(applytest.NewPlan().DisableCVO().Apply(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n"}}`, nil).SetDesiredUpdate().RestoreCVO().Plan())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	rb := applytest.NewPlan().DisableCVO().RelaxPDB("shop", "web", "uid", applytest.NodesSettled("worker-0"))
	rb.Revert(rb.LastID()).ApproveCSR(planfile.CSRApproval{Name: "csr-1", SignerName: "s", Username: "u", CommonName: "system:node:n"})
	remedies, err := json.Marshal(rb.RestoreCVO().Plan())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(remedies)
	f.Add([]byte(`{"apiVersion":"recover.openshift.io/v1alpha1","kind":"RecoveryPlan","formatVersion":"1.0","steps":[{"id":"a","action":"apply","manifest":{"object":{}}}]}`))
	f.Add([]byte(`{"apiVersion":"recover.openshift.io/v1alpha1","kind":"RecoveryPlan","formatVersion":"9.0"}`))
	f.Add([]byte(`{"apiVersion":"recover.openshift.io/v1alpha1","kind":"RecoveryPlan","formatVersion":"1.0","steps":[{"id":"w","action":"wait","gate":{"kind":"nope","timeout":"-1s"}},{"id":"w","action":"delete","manifest":null}]}`))
	f.Add([]byte(`{"apiVersion":"recover.openshift.io/v1alpha1","kind":"RecoveryPlan","formatVersion":"1.0","steps":[{"id":"r","action":"restore-cvo"},{"id":"d","action":"disable-cvo"},{"id":"s","action":"set-desired-update","desiredUpdate":{"version":"4.4.4","image":"x:latest","force":true}}]}`))
	f.Add([]byte(`{"kind":"ConfigMap"}`))
	f.Add([]byte("\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "plan.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		p, digest, err := planfile.Load(path)
		if err != nil {
			if pr := inputcheck.Problem(err); pr != "" {
				t.Fatal(pr)
			}
			var bad interface{ BadInput() bool }
			if !errors.As(err, &bad) || !bad.BadInput() {
				t.Fatalf("Load error %T is not bad input: %v", err, err)
			}
			return
		}
		if digest == "" {
			t.Fatal("a loaded plan has no digest")
		}
		disable, restore := -1, -1
		for i, s := range p.Steps {
			switch s.Action {
			case planfile.ActionDisableCVO:
				disable = i
			case planfile.ActionRestoreCVO:
				restore = i
			case planfile.ActionApply, planfile.ActionDelete, planfile.ActionPausePool, planfile.ActionUnpausePool, planfile.ActionSetDesiredUpdate:
				if disable < 0 || disable > i {
					t.Fatalf("step %s changes the cluster before disable-cvo", s.ID)
				}
				if restore >= 0 && restore < i {
					t.Fatalf("step %s changes the cluster after restore-cvo", s.ID)
				}
			}
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		path2 := filepath.Join(t.TempDir(), "again.json")
		if err := os.WriteFile(path2, again, 0o600); err != nil {
			t.Fatal(err)
		}
		p2, _, err := planfile.Load(path2)
		if err != nil {
			t.Fatalf("a loaded plan written back does not load: %v", err)
		}
		again2, err := json.Marshal(p2)
		if err != nil || !bytes.Equal(again, again2) {
			t.Fatalf("the plan changed over a JSON round trip: %v", err)
		}
	})
}
