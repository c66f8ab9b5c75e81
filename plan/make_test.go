package plan

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestIncident1Plan: the shuffled-reconcile wedge. The pools are paused right
// after the CVO is disabled (a 4.4 kubelet already runs on master-0, master-1 is
// in flight, both pools' configurations carry kubelet 1.17), and unpaused only
// after the kube-apiserver, kube-controller-manager and kube-scheduler
// static-pods gates, after the 4.4.4 MCO rolled out and before the machine-config
// gate that waits for the master pool.
func TestIncident1Plan(t *testing.T) {
	p, err := makeExample(t, snapshot(t, incident1), payload444, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Version != "4.4.4" || p.Target.Force || len(p.Skipped) != 0 {
		t.Fatalf("target %s force %v skipped %v", p.Target.Version, p.Target.Force, p.Skipped)
	}
	first := []planfile.Action{planfile.ActionDisableCVO, planfile.ActionPausePool, planfile.ActionPausePool}
	for i, a := range first {
		if p.Steps[i].Action != a {
			t.Fatalf("step %d is %s, want %s", i+1, p.Steps[i].Action, a)
		}
	}
	if p.Steps[1].Pool != "master" || p.Steps[2].Pool != "worker" || !strings.Contains(p.Steps[1].Reason, "master-1 is already updating") {
		t.Fatalf("pauses: %+v %+v", p.Steps[1], p.Steps[2])
	}
	last := p.Steps[len(p.Steps)-2:]
	if last[0].Action != planfile.ActionSetDesiredUpdate || last[1].Action != planfile.ActionRestoreCVO || last[1].Gate.Kind != planfile.GateCVORunning {
		t.Fatalf("last steps %+v", last)
	}
	if du := last[0].DesiredUpdate; du.Version != "4.4.4" || du.Image != image444 || du.Force {
		t.Fatalf("desired update %+v", du)
	}
	kas, kcm, sched := stepIndex(p, isStaticWait("kube-apiserver")), stepIndex(p, isStaticWait("kube-controller-manager")), stepIndex(p, isStaticWait("kube-scheduler"))
	etcd := stepIndex(p, isStaticWait("etcd"))
	mcoDeploy := stepIndex(p, func(s *planfile.Step) bool {
		return s.Manifest != nil && s.Manifest.Kind == "Deployment" && s.Manifest.Name == "machine-config-operator"
	})
	mcoCO := stepIndex(p, isCOStep("machine-config"))
	for _, pool := range []string{"master", "worker"} {
		u := stepIndex(p, isAction(planfile.ActionUnpausePool, pool))
		if u < 0 || u < kas || u < kcm || u < sched || u < mcoDeploy || u > mcoCO {
			t.Fatalf("unpause %s at %d; static-pods gates %d %d %d, MCO deployment %d, machine-config gate %d", pool, u, kas, kcm, sched, mcoDeploy, mcoCO)
		}
	}
	if !(etcd < kas && kas < kcm && kcm < sched) {
		t.Fatalf("static-pods gates out of order: etcd %d kas %d kcm %d sched %d", etcd, kas, kcm, sched)
	}
	// Each static-pod operator's ClusterOperator step is directly followed by its
	// static-pods gate, and gates on the versions its manifest declares.
	for _, co := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		i := stepIndex(p, isCOStep(co))
		if i < 0 || !isStaticWait(co)(&p.Steps[i+1]) {
			t.Fatalf("%s: ClusterOperator step %d not followed by its static-pods gate", co, i)
		}
	}
	g := p.Steps[stepIndex(p, isCOStep("kube-apiserver"))].Gate
	if g.Kind != planfile.GateClusterOperator || !slices.Equal(g.Versions, []planfile.OperandVersion{{Name: "operator", Version: "4.4.4"}, {Name: "raw-internal", Version: "4.4.4"}, {Name: "kube-apiserver", Version: "1.17.1"}}) {
		t.Fatalf("kube-apiserver gate %+v", g)
	}
	// Gates by kind, deletes without gate, digests by apply's rule, unique IDs.
	ids := map[string]bool{}
	idRE := regexp.MustCompile(`^\d{3}-[a-z0-9-]+$`)
	for i, s := range p.Steps {
		if ids[s.ID] || !idRE.MatchString(s.ID) || !strings.HasPrefix(s.ID, pad3(i+1)) {
			t.Fatalf("step id %q at %d", s.ID, i+1)
		}
		ids[s.ID] = true
		if s.Reason == "" {
			t.Fatalf("%s has no reason", s.ID)
		}
		if s.Manifest == nil {
			continue
		}
		if d, err := planfile.ManifestDigest(s.Manifest.Object); err != nil || d != s.Manifest.Digest {
			t.Fatalf("%s: digest %s vs %s (%v)", s.ID, d, s.Manifest.Digest, err)
		}
		switch {
		case s.Action == planfile.ActionDelete:
			if s.Gate != nil || s.Manifest.Name != "v4-0-config-system-legacy" {
				t.Fatalf("delete step %+v", s)
			}
		case s.Manifest.Kind == "CustomResourceDefinition" && s.Gate.Kind != planfile.GateCRDEstablished,
			s.Manifest.Kind == "Job" && s.Gate.Kind != planfile.GateWorkloadRollout:
			t.Fatalf("%s: gate %+v", s.ID, s.Gate)
		case s.Manifest.Kind == "Deployment" && s.Manifest.Name != "cluster-version-operator" && (s.Gate == nil || s.Gate.Kind != planfile.GateWorkloadRollout):
			t.Fatalf("%s: gate %+v", s.ID, s.Gate)
		}
	}
	// The CVO's own Deployment is rendered with the target's image.
	cvo := p.Steps[stepIndex(p, func(s *planfile.Step) bool {
		return s.Manifest != nil && s.Manifest.Kind == "Deployment" && s.Manifest.Name == "cluster-version-operator"
	})]
	if !strings.Contains(string(cvo.Manifest.Object), image444) {
		t.Fatalf("the CVO deployment is not rendered with the target image")
	}
	if p.Cluster.ClaimedVersion != "4.4.3" || p.Cluster.CVOMode != "Reconciling" || p.Cluster.Fingerprint != snapshot(t, incident1).Fingerprint() ||
		p.Cluster.DesiredUpdate == nil || !p.Cluster.DesiredUpdate.Force || len(p.Invariants) != len(Invariants) {
		t.Fatalf("cluster summary %+v", p.Cluster)
	}
	if p.Inputs.Graph.Digest == "" || p.Inputs.GraphData == nil || p.Inputs.Payload.Digest == "" || p.Inputs.Policy.Source != "builtin" || p.Inputs.Channel != "stable-4.4" {
		t.Fatalf("inputs %+v", p.Inputs)
	}
}

func pad3(n int) string {
	return string(rune('0'+n/100%10)) + string(rune('0'+n/10%10)) + string(rune('0'+n%10))
}

// TestIncident2Plan: the installer lie. kube-apiserver claims 4.4.4 and its
// nodeStatuses claim revision 9 everywhere, but master-2's mirror pod runs 8: the
// kube-apiserver component is not skipped and the plan gates on the static pods
// at the latest revision on every master. What is verified at 4.4.4 is skipped.
func TestIncident2Plan(t *testing.T) {
	p, err := makeExample(t, snapshot(t, incident2), payload444, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Version != "4.4.4" {
		t.Fatalf("target %s", p.Target.Version)
	}
	var skipped []string
	for _, s := range p.Skipped {
		skipped = append(skipped, s.Component)
	}
	want := []string{"cluster-authentication-operator", "cluster-ingress-operator", "cluster-version-operator", "etcd-operator", "kube-controller-manager-operator", "kube-scheduler-operator", "openshift-apiserver-operator"}
	if !slices.Equal(skipped, want) {
		t.Fatalf("skipped %v, want %v", skipped, want)
	}
	i := stepIndex(p, isStaticWait("kube-apiserver"))
	if i < 0 || stepIndex(p, isCOStep("kube-apiserver")) != i-1 {
		t.Fatalf("no static-pods gate right after the kube-apiserver ClusterOperator")
	}
	w := p.Steps[i]
	if w.Gate.StaticPods.Resource != "kubeapiservers" || w.Gate.StaticPods.Namespace != "openshift-kube-apiserver" || w.Gate.StaticPods.PodPrefix != "kube-apiserver" ||
		!strings.Contains(w.Reason, "master-2 runs revision 8, not the latest 9 (nodeStatuses claims 9)") || !strings.Contains(w.Reason, "rolls a new kube-apiserver revision to every control-plane node, master-2 included, so no forced redeployment is needed") ||
		!strings.Contains(w.Gate.Description, "master-0, master-1, master-2") {
		t.Fatalf("static-pods step %+v", w)
	}
	if stepIndex(p, isAction(planfile.ActionPausePool, "master")) >= 0 || stepIndex(p, isAction(planfile.ActionPausePool, "worker")) >= 0 {
		t.Fatal("no pool runs a kubelet ahead of the kube-apiserver: nothing to pause")
	}
	for _, s := range p.Steps {
		if s.Component == "etcd-operator" || s.Component == "kube-scheduler-operator" {
			t.Fatalf("skipped component has a step: %s", s.ID)
		}
	}
	kasCV := ""
	for _, c := range p.Cluster.Components {
		if c.Name == "kube-apiserver/master-2" {
			kasCV = c.Version + "|" + c.Claimed + "|" + c.Evidence
		}
	}
	if !strings.HasPrefix(kasCV, "|4.4.4|") || !strings.Contains(kasCV, "revision 8 (latest 9)") {
		t.Fatalf("kube-apiserver/master-2 summary %q", kasCV)
	}
}

func TestUserPausedPoolIsNeverUnpaused(t *testing.T) {
	s := snapshot(t, incident1)
	for i := range s.MachineConfigPools {
		if s.MachineConfigPools[i].Name == "worker" {
			s.MachineConfigPools[i].Paused = true
		}
	}
	inspect.Refresh(s)
	p, err := makeExample(t, s, payload444, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Steps {
		if s.Pool == "worker" {
			t.Fatalf("the plan touches the user-paused worker pool: %s", s.ID)
		}
	}
	if stepIndex(p, isAction(planfile.ActionUnpausePool, "master")) < 0 {
		t.Fatal("master, paused by the plan, is not unpaused")
	}
	if !strings.Contains(strings.Join(p.Warnings, "\n"), "MachineConfigPool worker was paused before recovery") {
		t.Fatalf("warnings %v", p.Warnings)
	}
}

func TestUserPausedMasterPoolIsReported(t *testing.T) {
	s := snapshot(t, incident1)
	for i := range s.MachineConfigPools {
		s.MachineConfigPools[i].Paused = s.MachineConfigPools[i].Name == "master"
	}
	inspect.Refresh(s)
	p, err := makeExample(t, s, payload444, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(p.Warnings, "\n"); !strings.Contains(w, "machine-config reports 4.4.4 only once this pool has rolled out") || !strings.Contains(w, "oc patch machineconfigpool/master") {
		t.Fatalf("warnings %v", p.Warnings)
	}
}

func TestPayloadOfAnotherReleaseSaysWhatToPass(t *testing.T) {
	_, err := makeExample(t, snapshot(t, incident1), payload443, nil)
	var pm *PayloadMismatchError
	if !errors.As(err, &pm) || !pm.BadInput() || pm.GivenVersion != "4.4.3" || pm.Target != "4.4.4" ||
		!strings.Contains(err.Error(), "--payload "+image444) || !strings.Contains(err.Error(), "omit --payload") {
		t.Fatalf("%v", err)
	}
}

func TestForceNeedsAReason(t *testing.T) {
	s := snapshot(t, incident1)
	setUpgradeableFalse(s, "kube-apiserver")
	inspect.Refresh(s)
	force := withPolicy("upgradeable: Force\n")
	_, err := makeExample(t, s, payload444, func(o *Options) { o.Policy = force })
	var fr *ForceRequiredError
	if !errors.As(err, &fr) || fr.ExitCode() != 2 || !strings.Contains(err.Error(), "--force-reason") || !strings.Contains(err.Error(), "Upgradeable=False") {
		t.Fatalf("%v", err)
	}
	p, err := makeExample(t, s, payload444, func(o *Options) {
		o.Policy, o.ForceReason, o.PolicySource, o.PolicyDigest = force, "admin ack given in change CHG-1", "p.yaml", "sha256:x"
	})
	if err != nil {
		t.Fatal(err)
	}
	du := p.Steps[stepIndex(p, func(s *planfile.Step) bool { return s.Action == planfile.ActionSetDesiredUpdate })].DesiredUpdate
	if !du.Force || !p.Target.Force || p.Target.ForceReason != "admin ack given in change CHG-1" || p.Inputs.Policy.Source != "p.yaml" ||
		!strings.Contains(p.Inputs.SignatureVerification, "force is set") {
		t.Fatalf("forced plan: %+v %+v", du, p.Target)
	}
}

func TestInclusionFollowsTheCluster(t *testing.T) {
	s := snapshot(t, incident1)
	in := Inclusion(s)
	if in.Profile != payload.DefaultClusterProfile || in.ExcludeID != "" || in.Capabilities != nil || len(in.Overrides) != 0 {
		t.Fatalf("default inclusion %+v", in)
	}
	// An unmanaged override drops the manifest from the plan, as the CVO would.
	s.ClusterVersion.Spec.Overrides = []configv1.ComponentOverride{{Kind: "Deployment", Group: "apps", Namespace: "openshift-dns-operator", Name: "dns-operator", Unmanaged: true}}
	s.CVO.Containers[0].Env = map[string]string{"EXCLUDE_MANIFESTS": "internal-openshift-hosted"}
	inspect.Refresh(s)
	in = Inclusion(s)
	if in.ExcludeID != "internal-openshift-hosted" || len(in.Overrides) != 1 {
		t.Fatalf("inclusion %+v", in)
	}
	pl := payloadOf(t, s, payload444, image444)
	if m := pl.Find("apps", "Deployment", "openshift-dns-operator", "dns-operator"); m == nil || m.Decision.Included {
		t.Fatalf("overridden deployment included: %+v", m)
	}
	if m := pl.Find("apps", "Deployment", "openshift-kube-apiserver-operator", "kube-apiserver-operator"); m == nil || m.Decision.Included {
		t.Fatalf("hosted-excluded deployment included: %+v", m)
	}
	s.ClusterVersion.Status.Capabilities = configv1.ClusterVersionCapabilitiesStatus{
		KnownCapabilities:   []configv1.ClusterVersionCapability{"openshift-samples", "Console"},
		EnabledCapabilities: []configv1.ClusterVersionCapability{"Console"},
	}
	s.FeatureGate = &inspect.FeatureGate{FeatureSet: "TechPreviewNoUpgrade", FeatureGates: []configv1.FeatureGateDetails{
		{Version: "4.4.2", Enabled: []configv1.FeatureGateAttributes{{Name: "Old"}}},
		{Version: "4.4.3", Enabled: []configv1.FeatureGateAttributes{{Name: "GateA"}}},
	}}
	in = Inclusion(s)
	if in.Capabilities == nil || !slices.Equal(in.Capabilities.Enabled, []string{"Console"}) || in.FeatureSet != "TechPreviewNoUpgrade" || !slices.Equal(in.EnabledFeatureGates, []string{"GateA"}) {
		t.Fatalf("inclusion %+v", in)
	}
}

func TestMakeWithoutPayloadSource(t *testing.T) {
	_, err := Make(context.Background(), Options{Snapshot: snapshot(t, incident1), Graph: exampleGraphResult(t)})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%v", err)
	}
}

// TestNothingMovesButRealityIsStillChecked: every operator already runs 4.4.4, yet
// master-2's kube-apiserver does not; the plan says nothing moves and still gates
// on the static pods.
func TestNothingMovesButRealityIsStillChecked(t *testing.T) {
	s := snapshot(t, incident2)
	for i := range s.ClusterOperators {
		for j := range s.ClusterOperators[i].Versions {
			if s.ClusterOperators[i].Versions[j].Name == "operator" {
				s.ClusterOperators[i].Versions[j].Version = "4.4.4"
			}
		}
	}
	for i := range s.OperatorDeployments {
		for j := range s.OperatorDeployments[i].Containers {
			if s.OperatorDeployments[i].Containers[j].Env["RELEASE_VERSION"] != "" {
				s.OperatorDeployments[i].Containers[j].Env["RELEASE_VERSION"] = "4.4.4"
			}
		}
	}
	inspect.Refresh(s)
	p, err := makeExample(t, s, payload444, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Version != "4.4.4" || p.Target.Distance.Components != 0 || !strings.Contains(strings.Join(p.Warnings, " "), "every ClusterOperator already runs 4.4.4") {
		t.Fatalf("target %s distance %+v warnings %v", p.Target.Version, p.Target.Distance, p.Warnings)
	}
	if stepIndex(p, isStaticWait("kube-apiserver")) < 0 || stepIndex(p, isCOStep("dns")) >= 0 {
		t.Fatal("want the kube-apiserver gated and dns (verified at 4.4.4) skipped")
	}
}
