package plan_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planfile"
)

func TestValidatePlan(t *testing.T) {
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}}`
	del := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n","annotations":{"release.openshift.io/delete":"true"}}}`
	for _, tc := range []struct {
		name string
		edit func(b *applytest.Builder) *planfile.Plan
		want string
	}{
		{"valid", func(b *applytest.Builder) *planfile.Plan {
			return b.DisableCVO().Apply(cm, nil).SetDesiredUpdate().RestoreCVO().Plan()
		}, ""},
		// A release-manifests PrometheusRule or Grafana dashboard holds
		// Prometheus template text; the CVO applies it as it is (issue 24).
		{"template text is data", func(b *applytest.Builder) *planfile.Plan {
			rule := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"},"data":{"alert":"{{ $labels.instance }} is down"}}`
			return b.DisableCVO().Apply(rule, nil).RestoreCVO().Plan()
		}, ""},
		{"change before disable", func(b *applytest.Builder) *planfile.Plan { return b.Apply(cm, nil).DisableCVO().RestoreCVO().Plan() }, "before a disable-cvo step"},
		{"no restore", func(b *applytest.Builder) *planfile.Plan { return b.DisableCVO().Apply(cm, nil).Plan() }, "leave the CVO disabled"},
		{"apply of a delete manifest", func(b *applytest.Builder) *planfile.Plan { return b.DisableCVO().Apply(del, nil).RestoreCVO().Plan() }, "must be a delete step"},
		{"delete without annotation", func(b *applytest.Builder) *planfile.Plan { return b.DisableCVO().Delete(cm, nil).RestoreCVO().Plan() }, "not annotated"},
		{"edited manifest", func(b *applytest.Builder) *planfile.Plan {
			p := b.DisableCVO().Apply(cm, nil).RestoreCVO().Plan()
			p.Steps[1].Manifest.Object = []byte(del)
			return p
		}, "edited after it was made"},
		{"image by tag", func(b *applytest.Builder) *planfile.Plan {
			p := b.DisableCVO().SetDesiredUpdate().RestoreCVO().Plan()
			p.Steps[1].DesiredUpdate.Image = "quay.io/openshift-release-dev/ocp-release:4.4.4-x86_64"
			return p
		}, "image by digest"},
		{"force without reason", func(b *applytest.Builder) *planfile.Plan {
			p := b.DisableCVO().SetDesiredUpdate().RestoreCVO().Plan()
			p.Steps[1].DesiredUpdate.Force = true
			return p
		}, "forceReason"},
		{"duplicate ids and unknown gate", func(b *applytest.Builder) *planfile.Plan {
			p := b.DisableCVO().Wait("x", &planfile.Gate{Kind: "vibes"}).RestoreCVO().Plan()
			p.Steps[2].ID = p.Steps[1].ID
			return p
		}, "duplicate step id"},
		{"future major", func(b *applytest.Builder) *planfile.Plan {
			p := b.DisableCVO().RestoreCVO().Plan()
			p.FormatVersion = "2.0"
			return p
		}, "not supported"},
	} {
		err := planfile.Validate(tc.edit(applytest.NewPlan()))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestValidatePlanRefusesUnsafeRemediations(t *testing.T) {
	relaxedIn := func(b *applytest.Builder, ns, name string) *applytest.Builder {
		b.DisableCVO().RelaxPDB(ns, name, "uid-1", applytest.NodesSettled("worker-0"))
		return b.Revert(b.LastID()).RestoreCVO()
	}
	relaxed := func(b *applytest.Builder, name string) *applytest.Builder { return relaxedIn(b, "ns", name) }
	for _, tc := range []struct {
		name string
		edit func(b *applytest.Builder) *planfile.Plan
		want string
	}{
		{"valid relax and revert", func(b *applytest.Builder) *planfile.Plan { return relaxed(b, "web").Plan() }, ""},
		{"guard PDB", func(b *applytest.Builder) *planfile.Plan {
			return relaxedIn(b, "openshift-kube-apiserver", "kube-apiserver-guard-pdb").Plan()
		}, "a guard PodDisruptionBudget is never relaxed"},
		{"etcd quorum guard", func(b *applytest.Builder) *planfile.Plan {
			return relaxedIn(b, "openshift-etcd", "etcd-quorum-guard").Plan()
		}, "never relaxed"},
		// inspect.IsGuardPDB is the one rule: a user's budget whose name only
		// ends in -guard-pdb is ordinary (apply used to refuse any such name,
		// so a plan recover made for it could not be applied).
		{"a user budget named *-guard-pdb", func(b *applytest.Builder) *planfile.Plan { return relaxedIn(b, "shop", "web-guard-pdb").Plan() }, ""},
		{"a guard's name in another namespace", func(b *applytest.Builder) *planfile.Plan { return relaxedIn(b, "shop", "etcd-guard-pdb").Plan() }, ""},
		{"temporary without its revert", func(b *applytest.Builder) *planfile.Plan {
			p := relaxed(b, "web").Plan()
			p.Steps = append(p.Steps[:2], p.Steps[3:]...)
			return p
		}, "a temporary change without its revert"},
		{"relax that is not temporary", func(b *applytest.Builder) *planfile.Plan {
			p := relaxed(b, "web").Plan()
			p.Steps[1].RevertedBy = ""
			p.Steps = append(p.Steps[:2], p.Steps[3:]...)
			return p
		}, "relax-pdb is temporary"},
		{"revert of an unknown step", func(b *applytest.Builder) *planfile.Plan {
			p := relaxed(b, "web").Plan()
			p.Steps[2].Reverts = "009-nothing"
			return p
		}, "a step the plan does not have"},
		{"revert before the change", func(b *applytest.Builder) *planfile.Plan {
			p := relaxed(b, "web").Plan()
			p.Steps[1], p.Steps[2] = p.Steps[2], p.Steps[1]
			return p
		}, "comes after it"},
		{"change without fields", func(b *applytest.Builder) *planfile.Plan {
			p := relaxed(b, "web").Plan()
			p.Steps[1].Change.Fields = nil
			return p
		}, "lists no fields"},
		{"patch beyond its fields", func(b *applytest.Builder) *planfile.Plan {
			p := relaxed(b, "web").Plan()
			p.Steps[1].Change.Patch = []byte(`{"spec":{"maxUnavailable":"100%","selector":null}}`)
			return p
		}, "the patch sets spec.selector"},
		{"patch of the status", func(b *applytest.Builder) *planfile.Plan {
			p := relaxed(b, "web").Plan()
			p.Steps[1].Change.Patch = []byte(`{"status":{"disruptionsAllowed":1}}`)
			p.Steps[1].Change.Fields = [][]string{{"status", "disruptionsAllowed"}}
			return p
		}, "not a field a remedy may set"},
		{"patch that is not an object", func(b *applytest.Builder) *planfile.Plan {
			p := relaxed(b, "web").Plan()
			p.Steps[1].Change.Patch = []byte(`[{"op":"remove"}]`)
			return p
		}, "not a JSON merge patch object"},
		{"relax of something else", func(b *applytest.Builder) *planfile.Plan {
			p := relaxed(b, "web").Plan()
			p.Steps[1].Change.Object.Kind = "Deployment"
			return p
		}, "not a PodDisruptionBudget"},
		{"remediation before disable-cvo", func(b *applytest.Builder) *planfile.Plan {
			b.RelaxPDB("ns", "web", "", applytest.NodesSettled("worker-0"))
			return b.Revert(b.LastID()).DisableCVO().RestoreCVO().Plan()
		}, "before a disable-cvo step"},
		{"approve-csr without the request's identity", func(b *applytest.Builder) *planfile.Plan {
			return b.DisableCVO().ApproveCSR(planfile.CSRApproval{Name: "csr-1"}).RestoreCVO().Plan()
		}, "approve-csr needs csr"},
		{"nodes gate without nodes", func(b *applytest.Builder) *planfile.Plan {
			b.DisableCVO().RelaxPDB("ns", "web", "", &planfile.Gate{Kind: planfile.GateNodesSettled})
			return b.Revert(b.LastID()).RestoreCVO().Plan()
		}, "nodes-settled gate needs nodes"},
		{"restored gate off a revert", func(b *applytest.Builder) *planfile.Plan {
			return b.DisableCVO().Wait("x", &planfile.Gate{Kind: planfile.GateRestored}).RestoreCVO().Plan()
		}, "a restored gate belongs on a revert step"},
	} {
		err := planfile.Validate(tc.edit(applytest.NewPlan()))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLoadPlanErrorsAreBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"apiVersion": "recover.openshift.io/v1alpha1", "kind": `), 0o644)
	for _, path := range []string{bad, filepath.Join(dir, "missing.json")} {
		_, _, err := planfile.Load(path)
		var e interface{ BadInput() bool }
		if !errors.As(err, &e) || !e.BadInput() {
			t.Errorf("%s: want bad input, got %v", path, err)
		}
	}
	b, _ := applytest.FullPlan("load")
	path := b.Write(t, dir)
	p, digest, err := planfile.Load(path)
	if err != nil || len(p.Steps) != len(b.Plan().Steps) || !strings.HasPrefix(digest, "sha256:") {
		t.Fatalf("round trip through an indented file: %v", err)
	}
}

// TestSavePlan: a saved plan loads back with the digest of its bytes; an
// existing file is never overwritten, and an invalid plan is never written.
func TestSavePlan(t *testing.T) {
	dir := t.TempDir()
	b, _ := applytest.FullPlan("save")
	path := filepath.Join(dir, "plan.json")
	digest, err := planfile.Save(path, b.Plan())
	if err != nil {
		t.Fatal(err)
	}
	p, want, err := planfile.Load(path)
	if err != nil || digest != want || len(p.Steps) != len(b.Plan().Steps) {
		t.Fatalf("LoadPlan after SavePlan: digest %s, want %s, %v", digest, want, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v %v", fi.Mode().Perm(), err)
	}
	before, _ := os.ReadFile(path)
	if _, err := planfile.Save(path, b.Plan()); !errors.Is(err, os.ErrExist) {
		t.Errorf("saving over an existing plan: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the existing plan was changed")
	}
	invalid := b.Plan()
	invalid.Steps = nil
	bad := filepath.Join(dir, "invalid.json")
	var e interface{ BadInput() bool }
	if _, err := planfile.Save(bad, invalid); !errors.As(err, &e) || !e.BadInput() {
		t.Errorf("an invalid plan: %v", err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an invalid plan was written: %v", err)
	}
}
