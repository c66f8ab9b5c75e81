package plan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// clonePlan deep-copies a plan through JSON.
func clonePlan(t *testing.T, p *planfile.Plan) *planfile.Plan {
	t.Helper()
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out planfile.Plan
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// move moves the step at from to position to (in the list without it).
func move(steps []planfile.Step, from, to int) []planfile.Step {
	s := steps[from]
	rest := append(append([]planfile.Step(nil), steps[:from]...), steps[from+1:]...)
	out := append(append(append([]planfile.Step(nil), rest[:to]...), s), rest[to:]...)
	return out
}

func remove(steps []planfile.Step, pred func(*planfile.Step) bool) []planfile.Step {
	var out []planfile.Step
	for i := range steps {
		if !pred(&steps[i]) {
			out = append(out, steps[i])
		}
	}
	return out
}

// rewriteManifest edits a step's embedded object and re-digests it, as a careful
// forger would.
func rewriteManifest(t *testing.T, s *planfile.Step, old, new string) {
	t.Helper()
	obj := strings.ReplaceAll(string(s.Manifest.Object), old, new)
	s.Manifest.Object = json.RawMessage(obj)
	d, err := planfile.ManifestDigest(s.Manifest.Object)
	if err != nil {
		t.Fatal(err)
	}
	s.Manifest.Digest = d
}

// TestCheckCatchesBrokenPlans breaks a good plan in one way at a time; the checker
// must name the invariant and, where it is one step's fault, the step.
func TestCheckCatchesBrokenPlans(t *testing.T) {
	s1 := snapshot(t, incident1)
	good, err := makeExample(t, s1, payload444, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(good, s1, nil); err != nil {
		t.Fatalf("the good plan fails its check: %v", err)
	}
	for _, tc := range []struct {
		name   string
		snap   func() *inspect.Snapshot
		break_ func(t *testing.T, p *planfile.Plan)
		rule   string
		// step is a prefix of the failing step's ID ("" for the plan as a whole).
		step string
		text string
	}{
		{name: "unpause before the kube-apiserver static-pods gate", rule: InvariantKubeletSkew, step: "unpause-pool-worker", text: "the kubelet on worker-0 may now run 1.17 while the oldest kube-apiserver may still be 1.16",
			break_: func(t *testing.T, p *planfile.Plan) {
				u := stepIndex(p, isAction(planfile.ActionUnpausePool, "worker"))
				p.Steps = move(p.Steps, u, stepIndex(p, isCOStep("kube-apiserver")))
			}},
		{name: "no pause at all", rule: InvariantKubeletSkew, step: "apply-deployment-machine-config-operator", text: "may now run 1.17",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps = remove(p.Steps, func(s *planfile.Step) bool {
					return s.Action == planfile.ActionPausePool || s.Action == planfile.ActionUnpausePool
				})
				// Start the machine-config operator before the control plane.
				i := stepIndex(p, func(s *planfile.Step) bool {
					return s.Manifest != nil && s.Manifest.Name == "machine-config-operator" && s.Manifest.Kind == "Deployment"
				})
				p.Steps = move(p.Steps, i, stepIndex(p, isCOStep("etcd")))
				for j := range p.Steps {
					p.Steps[j].Group = 0 // keep the stage order check out of the way
				}
			}},
		{name: "static-pods gate dropped", rule: InvariantGates, step: "apply-namespace-openshift-kube-controller-manager-operator", text: "not followed by a static-pods gate",
			break_: func(t *testing.T, p *planfile.Plan) { p.Steps = remove(p.Steps, isStaticWait("kube-apiserver")) }},
		{name: "kube-controller-manager moves while the kube-apiserver stays", rule: InvariantControlPlane, step: "apply-namespace-openshift-kube-controller-manager-operator", text: "kube-controller-manager may now run 1.17 while the oldest kube-apiserver may still be 1.16",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps = remove(p.Steps, func(s *planfile.Step) bool { return s.Component == "kube-apiserver-operator" })
			}},
		{name: "manifest edited after planning", rule: InvariantManifestDigest, step: "apply-deployment-kube-apiserver-operator", text: "does not match its digest",
			break_: func(t *testing.T, p *planfile.Plan) {
				i := stepIndex(p, func(s *planfile.Step) bool {
					return s.Manifest != nil && s.Manifest.Name == "kube-apiserver-operator" && s.Manifest.Kind == "Deployment"
				})
				p.Steps[i].Manifest.Object = json.RawMessage(strings.Replace(string(p.Steps[i].Manifest.Object), `"replicas":1`, `"replicas":3`, 1))
			}},
		{name: "two manifests edited: the first in step order is named", rule: InvariantManifestDigest, step: "apply-namespace-openshift-kube-apiserver-operator", text: "does not match its digest",
			break_: func(t *testing.T, p *planfile.Plan) {
				for _, name := range []string{"kube-apiserver-operator", "openshift-kube-apiserver-operator"} {
					i := stepIndex(p, func(s *planfile.Step) bool { return s.Manifest != nil && s.Manifest.Name == name })
					p.Steps[i].Manifest.Object = json.RawMessage(strings.Replace(string(p.Steps[i].Manifest.Object), `"name":"`, `"name":"x`, 1))
				}
			}},
		{name: "a delete-annotated manifest applied", rule: InvariantManifestDigest, step: "configmap-v4-0-config-system-legacy", text: "annotated release.openshift.io/delete=true",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps[stepIndex(p, func(s *planfile.Step) bool { return s.Action == planfile.ActionDelete })].Action = planfile.ActionApply
			}},
		{name: "run-levels out of order", rule: InvariantRunLevelOrder, step: "apply-namespace-openshift-kube-apiserver-operator", text: "stage 0 after a step of stage 6",
			break_: func(t *testing.T, p *planfile.Plan) {
				i := stepIndex(p, func(s *planfile.Step) bool {
					return s.Manifest != nil && s.Manifest.Name == "openshift-machine-config-operator"
				})
				p.Steps = move(p.Steps, i, stepIndex(p, func(s *planfile.Step) bool {
					return s.Manifest != nil && s.Manifest.Name == "openshift-kube-apiserver-operator"
				}))
			}},
		{name: "files of a component out of order", rule: InvariantRunLevelOrder, step: "apply-namespace-openshift-etcd-operator", text: "comes after",
			break_: func(t *testing.T, p *planfile.Plan) {
				i := stepIndex(p, func(s *planfile.Step) bool { return s.Manifest != nil && s.Manifest.Name == "openshift-etcd-operator" })
				p.Steps = move(p.Steps, i, i+2)
			}},
		{name: "CRD without its gate", rule: InvariantGates, step: "apply-customresourcedefinition-kubeapiservers", text: "needs a crd-established gate",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps[stepIndex(p, func(s *planfile.Step) bool {
					return s.Manifest != nil && s.Manifest.Name == "kubeapiservers.operator.openshift.io"
				})].Gate = nil
			}},
		{name: "ClusterOperator gate on other versions", rule: InvariantGates, step: "apply-clusteroperator-dns", text: "declares",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps[stepIndex(p, isCOStep("dns"))].Gate.Versions = []planfile.OperandVersion{{Name: "operator", Version: "4.4.5"}}
			}},
		{name: "a ClusterOperator sent down across a minor", rule: InvariantNoDowngrade, step: "apply-clusteroperator-dns", text: "moving to 4.3.18 would go down across a minor",
			break_: func(t *testing.T, p *planfile.Plan) {
				s := &p.Steps[stepIndex(p, isCOStep("dns"))]
				rewriteManifest(t, s, `"4.4.4"`, `"4.3.18"`)
				s.Gate.Versions = []planfile.OperandVersion{{Name: "operator", Version: "4.3.18"}}
			}},
		{name: "no disable-cvo", rule: InvariantCVOBracketing, step: "apply-", text: "with the CVO running",
			break_: func(t *testing.T, p *planfile.Plan) { p.Steps = p.Steps[1:] }},
		{name: "a change after restore-cvo", rule: InvariantCVOBracketing, step: "apply-rolebinding", text: "after restore-cvo",
			break_: func(t *testing.T, p *planfile.Plan) { p.Steps = move(p.Steps, len(p.Steps)-3, len(p.Steps)-1) }},
		{name: "no restore-cvo", rule: InvariantCVOBracketing, text: "leave the CVO disabled",
			break_: func(t *testing.T, p *planfile.Plan) { p.Steps = p.Steps[:len(p.Steps)-1] }},
		{name: "restore before the desired update", rule: InvariantDesiredUpdate, step: "restore-cvo", text: "before set-desired-update",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps = remove(p.Steps, func(s *planfile.Step) bool { return s.Action == planfile.ActionSetDesiredUpdate })
			}},
		{name: "desired update by tag", rule: InvariantDesiredUpdate, step: "set-desired-update", text: "not by digest",
			break_: func(t *testing.T, p *planfile.Plan) {
				i := stepIndex(p, func(s *planfile.Step) bool { return s.Action == planfile.ActionSetDesiredUpdate })
				p.Target.Image = "quay.io/openshift-release-dev/ocp-release:4.4.4-x86_64"
				p.Steps[i].DesiredUpdate.Image = p.Target.Image
			}},
		{name: "force without a reason", rule: InvariantDesiredUpdate, step: "set-desired-update", text: "force without a reason",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps[stepIndex(p, func(s *planfile.Step) bool { return s.Action == planfile.ActionSetDesiredUpdate })].DesiredUpdate.Force = true
			}},
		{name: "a paused pool never unpaused", rule: InvariantPools, text: "pool worker is paused by the plan and never unpaused",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps = remove(p.Steps, isAction(planfile.ActionUnpausePool, "worker"))
			}},
		{name: "machine-config gate while master is still paused", rule: InvariantPools, step: "apply-clusteroperator-machine-config", text: "keeps it paused here",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps = move(p.Steps, stepIndex(p, isCOStep("machine-config")), stepIndex(p, isAction(planfile.ActionUnpausePool, "master")))
			}},
		{name: "unpausing a pool the user paused", rule: InvariantPools, step: "unpause-pool-worker", text: "paused by the user",
			snap: func() *inspect.Snapshot {
				s := snapshot(t, incident1)
				s.MachineConfigPools[1].Paused = true
				inspect.Refresh(s)
				return s
			},
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps = remove(p.Steps, isAction(planfile.ActionPausePool, "worker"))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := s1
			if tc.snap != nil {
				s = tc.snap()
			}
			p := clonePlan(t, good)
			tc.break_(t, p)
			numberSteps(p.Steps)
			err := Check(p, s, nil)
			var ce *CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("the broken plan passed the check (%v)", err)
			}
			if ce.Rule != tc.rule || !strings.Contains(ce.Msg, tc.text) {
				t.Fatalf("got %v; want rule %s with %q", err, tc.rule, tc.text)
			}
			if tc.step == "" && ce.StepID != "" || tc.step != "" && !strings.Contains(ce.StepID, tc.step) {
				t.Fatalf("failing step %q, want one containing %q (%v)", ce.StepID, tc.step, err)
			}
			if !strings.Contains(err.Error(), "plan check failed at ") {
				t.Fatalf("error text %q", err)
			}
		})
	}
}

func TestCheckAcceptsBothIncidentPlans(t *testing.T) {
	for _, mg := range []string{incident1, incident2} {
		s := snapshot(t, mg)
		p, err := makeExample(t, s, payload444, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(p, s, nil); err != nil {
			t.Fatalf("%s: %v", mg, err)
		}
	}
}
