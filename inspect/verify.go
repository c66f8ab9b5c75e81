package inspect

import (
	"fmt"
	"sort"
	"strings"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// CVOMode is the mode the cluster-version operator picks when it (re)starts.
type CVOMode string

// The CVO modes (facts §1.4: pkg/cvo/cvo.go, pkg/payload State).
const (
	// ModeUnknown: ClusterVersion was not collected.
	ModeUnknown CVOMode = "Unknown"
	// ModeInitializing: no Completed history entry; everything in parallel.
	ModeInitializing CVOMode = "Initializing"
	// ModeUpdating: run-level order, a failed node blocks its dependents.
	ModeUpdating CVOMode = "Updating"
	// ModeReconciling: history[0] is Completed for the desired image; the graph is
	// flattened and shuffled, two workers.
	ModeReconciling CVOMode = "Reconciling"
)

// DesiredRelease returns the release a (re)started CVO works toward:
// spec.desiredUpdate resolved to an image (by its image, or its version looked up in
// status.desired, availableUpdates, conditionalUpdates and history), else
// status.desired. A desiredUpdate in Preflight mode (the 2026 update API) is
// only checked, never applied: the CVO keeps working toward status.desired.
func (s *Snapshot) DesiredRelease() configv1.Release {
	cv := s.ClusterVersion
	if cv == nil {
		return configv1.Release{}
	}
	d := cv.Status.Desired
	u := cv.Spec.DesiredUpdate
	if u == nil || (u.Image == "" && u.Version == "") || u.Mode == configv1.UpdateModePreflight {
		return d
	}
	if u.Image != "" {
		if u.Image == d.Image {
			return d
		}
		return configv1.Release{Version: u.Version, Image: u.Image}
	}
	if d.Version == u.Version {
		return d
	}
	for _, r := range cv.Status.AvailableUpdates {
		if r.Version == u.Version {
			return r
		}
	}
	for _, c := range cv.Status.ConditionalUpdates {
		if c.Release.Version == u.Version {
			return c.Release
		}
	}
	for _, h := range cv.Status.History {
		if h.Version == u.Version {
			return configv1.Release{Version: h.Version, Image: h.Image}
		}
	}
	return d
}

// CVOMode returns the mode the CVO would pick if it (re)started now: Initializing
// when history has no Completed entry, Reconciling when history[0] is Completed for
// the desired image, Updating otherwise (facts §1.4).
func (s *Snapshot) CVOMode() CVOMode {
	cv := s.ClusterVersion
	if cv == nil {
		return ModeUnknown
	}
	h := cv.Status.History
	completed := false
	for _, e := range h {
		if e.State == configv1.CompletedUpdate {
			completed = true
		}
	}
	if !completed {
		return ModeInitializing
	}
	if h[0].State == configv1.CompletedUpdate && h[0].Image == s.DesiredRelease().Image {
		return ModeReconciling
	}
	return ModeUpdating
}

// ClusterOperator returns the named ClusterOperator, or nil.
func (s *Snapshot) ClusterOperator(name string) *ClusterOperator {
	for i := range s.ClusterOperators {
		if s.ClusterOperators[i].Name == name {
			return &s.ClusterOperators[i]
		}
	}
	return nil
}

// Version returns the version the operator reports for the named operand
// ("operator" for the operator itself), or "": the first status.versions entry
// of that name, as the CVO reads it (OperatorWaitFor).
func (co *ClusterOperator) Version(operand string) string {
	v, _ := co.firstVersion(operand)
	return v
}

// Condition returns the named condition, or nil.
func (co *ClusterOperator) Condition(t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range co.Conditions {
		if co.Conditions[i].Type == t {
			return &co.Conditions[i]
		}
	}
	return nil
}

// VersionFact is a component's version as claimed beside as verified.
type VersionFact struct {
	// Name is the ClusterOperator, or "<clusteroperator>/<operand>" for an operand.
	Name string `json:"name"`
	// Claimed is what the ClusterOperator's status.versions says.
	Claimed string `json:"claimed,omitempty"`
	// Verified is the version established from what runs; "" when it could not be.
	Verified string `json:"verified,omitempty"`
	// Method says how it was verified, or why it could not be.
	Method string `json:"method"`
}

// Version returns the verified version when known, else the claimed one.
func (v VersionFact) Version() string {
	if v.Verified != "" {
		return v.Verified
	}
	return v.Claimed
}

// Contradicted reports whether the verified version differs from the claim.
func (v VersionFact) Contradicted() bool {
	return v.Verified != "" && v.Claimed != "" && v.Verified != v.Claimed
}

// Deployment returns the operator Deployment ns/name, or nil.
func (s *Snapshot) Deployment(namespace, name string) *Deployment {
	if s.CVO != nil && s.CVO.Namespace == namespace && s.CVO.Name == name {
		return s.CVO
	}
	for i := range s.OperatorDeployments {
		d := &s.OperatorDeployments[i]
		if d.Namespace == namespace && d.Name == name {
			return d
		}
	}
	return nil
}

// Env returns the first literal value of an env var over the containers.
func (d *Deployment) Env(name string) string {
	for _, c := range d.Containers {
		if v := c.Env[name]; v != "" {
			return v
		}
	}
	return ""
}

// ReleaseVersion returns the release version the Deployment's env declares
// (RELEASE_VERSION, OPERATOR_IMAGE_VERSION or OPERATOR_VERSION) and the env name.
func (d *Deployment) ReleaseVersion() (version, env string) {
	for _, k := range releaseVersionEnv {
		if v := d.Env(k); v != "" {
			return v, k
		}
	}
	return "", ""
}

// RolledOut reports whether the Deployment's controller has rolled out its current
// template: generation observed, every replica updated, and one available.
func (d *Deployment) RolledOut() bool {
	want := int32(1)
	if d.Replicas != nil {
		want = *d.Replicas
	}
	if d.ObservedGeneration < d.Generation {
		return false
	}
	if want == 0 {
		return true
	}
	return d.UpdatedReplicas >= want && d.AvailableReplicas > 0
}

// EffectiveReplicas returns spec.replicas with the API default applied.
func (d *Deployment) EffectiveReplicas() int32 {
	if d.Replicas == nil {
		return 1
	}
	return *d.Replicas
}

// operatorDeployment finds the Deployment running a ClusterOperator's operator:
// the static-pod operators' known Deployments, else Deployments in the namespaces
// and Deployments the ClusterOperator's relatedObjects name, else in the
// conventional openshift-<name>-operator / openshift-<name> namespaces. Among several,
// one named like the operator wins; versions that disagree make the result nil.
func (s *Snapshot) operatorDeployment(co *ClusterOperator) *Deployment {
	if c := StaticPodComponentFor(co.Name); c != nil && c.ClusterOperator == co.Name {
		if d := s.staticPodOperatorDeployment(c); d != nil {
			return d
		}
	}
	namespaces := map[string]bool{}
	var named []*Deployment
	for _, ro := range co.RelatedObjects {
		switch {
		case ro.Group == "" && ro.Resource == "namespaces":
			namespaces[ro.Name] = true
		case ro.Group == "apps" && ro.Resource == "deployments":
			if d := s.Deployment(ro.Namespace, ro.Name); d != nil {
				named = append(named, d)
			}
		}
	}
	if len(named) == 0 && len(namespaces) == 0 {
		namespaces["openshift-"+co.Name+"-operator"] = true
		namespaces["openshift-"+co.Name] = true
	}
	var cands []*Deployment
	cands = append(cands, named...)
	for i := range s.OperatorDeployments {
		d := &s.OperatorDeployments[i]
		if namespaces[d.Namespace] {
			cands = append(cands, d)
		}
	}
	best, bestScore := []*Deployment(nil), -1
	for _, d := range cands {
		if v, _ := d.ReleaseVersion(); v == "" {
			continue
		}
		score := 0
		switch {
		case d.Name == co.Name || d.Name == co.Name+"-operator" || d.Name == "cluster-"+co.Name+"-operator":
			score = 2
		case strings.Contains(d.Name, "operator"):
			score = 1
		}
		if score > bestScore {
			best, bestScore = []*Deployment{d}, score
		} else if score == bestScore && best[len(best)-1] != d {
			best = append(best, d)
		}
	}
	if len(best) == 0 {
		return nil
	}
	v0, _ := best[0].ReleaseVersion()
	for _, d := range best[1:] {
		if v, _ := d.ReleaseVersion(); v != v0 {
			return nil
		}
	}
	return best[0]
}

// staticPodOperatorDeployment returns the operator Deployment of a static-pod
// component: the known name, else the one Deployment in its operator namespace that
// carries the operand image (env IMAGE).
func (s *Snapshot) staticPodOperatorDeployment(c *StaticPodComponent) *Deployment {
	if d := s.Deployment(c.OperatorNamespace, c.OperatorDeployment); d != nil {
		return d
	}
	var found *Deployment
	for i := range s.OperatorDeployments {
		d := &s.OperatorDeployments[i]
		if d.Namespace == c.OperatorNamespace && d.Env("IMAGE") != "" {
			if found != nil {
				return nil
			}
			found = d
		}
	}
	return found
}

// OperatorVersion returns a ClusterOperator's operator version as claimed
// (status.versions "operator") and as verified from its running operator
// Deployment's env (RELEASE_VERSION / OPERATOR_IMAGE_VERSION), when that Deployment
// was collected and has rolled out.
func (s *Snapshot) OperatorVersion(name string) VersionFact {
	f := VersionFact{Name: name}
	co := s.ClusterOperator(name)
	if co == nil {
		f.Method = "not verified: no such ClusterOperator"
		return f
	}
	f.Claimed = co.Version("operator")
	d := s.operatorDeployment(co)
	if d == nil && !s.collectedIn(ResDeployments.Key(), "") {
		f.Method = "not verified: operator Deployments not collected"
		if st := s.stateIn(ResDeployments.Key(), ""); st != "" {
			f.Method += " (" + string(st) + ")"
		}
		return f
	}
	if d == nil {
		f.Method = "not verified: no operator Deployment declaring a release version found"
		return f
	}
	v, env := d.ReleaseVersion()
	if !d.RolledOut() {
		f.Method = fmt.Sprintf("not verified: operator Deployment %s/%s is still rolling out to %s=%s", d.Namespace, d.Name, env, v)
		return f
	}
	f.Verified = v
	f.Method = fmt.Sprintf("operator Deployment %s/%s runs %s=%s", d.Namespace, d.Name, env, v)
	return f
}

// Operators returns OperatorVersion for every ClusterOperator, sorted by name.
func (s *Snapshot) Operators() []VersionFact {
	out := make([]VersionFact, 0, len(s.ClusterOperators))
	for _, co := range s.ClusterOperators {
		out = append(out, s.OperatorVersion(co.Name))
	}
	return out
}

// StaticPodOperator returns the static-pod operator of a component ("kube-apiserver")
// or resource ("kubeapiservers"), or nil.
func (s *Snapshot) StaticPodOperator(key string) *StaticPodOperator {
	for i := range s.StaticPodOperators {
		op := &s.StaticPodOperators[i]
		if op.Component == key || op.Resource == key {
			return op
		}
	}
	return nil
}

// NodeRevision is the static-pod truth of one node: the revision the operator
// claims beside the revision the mirror pod carries, with the installers' reports.
type NodeRevision struct {
	Node string `json:"node"`
	// Listed is true when the operator's nodeStatuses lists the node.
	Listed bool `json:"listed"`
	// Claimed, Target and LastFailed come from nodeStatuses.
	Claimed    int32 `json:"claimed"`
	Target     int32 `json:"target,omitempty"`
	LastFailed int32 `json:"lastFailed,omitempty"`
	// Running is the mirror pod's revision label; 0 when there is no mirror pod or
	// it has no label (see Mirror).
	Running int32      `json:"running"`
	Mirror  *StaticPod `json:"mirror,omitempty"`
	// Installers are the node's installer pods, oldest revision first.
	Installers []InstallerPod `json:"installers,omitempty"`
}

// Verified reports whether the running revision is known and equals the claim.
func (n NodeRevision) Verified() bool {
	return n.Mirror != nil && n.Running != 0 && n.Running == n.Claimed
}

// RevisionMismatch reports whether the node's mirror pod runs a revision other
// than the one the operator claims, both known: the static-pod contradiction
// inspect reports (CodeStaticPodRevisionMismatch).
func (n NodeRevision) RevisionMismatch() bool {
	return n.Listed && n.Mirror != nil && n.Running != 0 && n.Claimed != 0 && n.Running != n.Claimed
}

// MissingMirror reports whether the operator lists the node but no mirror pod
// runs there (CodeStaticPodMissing); podsKnown says whether the operand's pods
// were collected at all (Snapshot.MirrorPodsCollected), without which a
// missing mirror pod proves nothing.
func (n NodeRevision) MissingMirror(podsKnown bool) bool {
	return n.Listed && podsKnown && n.Mirror == nil
}

// MirrorPodsCollected reports whether the pods of a static-pod operator's
// operand namespace were collected, so that a missing mirror pod is a fact.
func (s *Snapshot) MirrorPodsCollected(op *StaticPodOperator) bool {
	return s.collectedIn(ResPods.Key(), op.Namespace)
}

// Truth joins the operator's nodeStatuses with the mirror and installer pods, one
// entry per node, sorted by node.
func (op *StaticPodOperator) Truth() []NodeRevision {
	byNode := map[string]*NodeRevision{}
	get := func(n string) *NodeRevision {
		if r := byNode[n]; r != nil {
			return r
		}
		r := &NodeRevision{Node: n}
		byNode[n] = r
		return r
	}
	for _, ns := range op.NodeStatuses {
		r := get(ns.NodeName)
		r.Listed, r.Claimed, r.Target, r.LastFailed = true, ns.CurrentRevision, ns.TargetRevision, ns.LastFailedRevision
	}
	for i := range op.MirrorPods {
		p := op.MirrorPods[i]
		r := get(p.Node)
		r.Mirror, r.Running = &p, p.Revision
	}
	for _, ip := range op.Installers {
		r := get(ip.Node)
		r.Installers = append(r.Installers, ip)
	}
	out := make([]NodeRevision, 0, len(byNode))
	for _, r := range byNode {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out
}

// StaticPodTruth returns the per-node static-pod truth of a component
// ("kube-apiserver", "etcd", ...), or nil when the operator is unknown.
func (s *Snapshot) StaticPodTruth(component string) []NodeRevision {
	op := s.StaticPodOperator(component)
	if op == nil {
		return nil
	}
	return op.Truth()
}

// OperandInstance is one node's instance of a static-pod operand and its version.
type OperandInstance struct {
	Node     string `json:"node"`
	Revision int32  `json:"revision"`
	Image    string `json:"image"`
	// Version is the operand version; Verified says whether it was established from
	// the running image (the operator Deployment's IMAGE with its
	// OPERAND_IMAGE_VERSION) or only taken from the ClusterOperator's claim.
	Version  string `json:"version"`
	Verified bool   `json:"verified"`
}

// OperandInstances returns, per node running the component's static pod, the
// operand version: verified when the mirror pod runs the image the operator
// Deployment carries in IMAGE (whose version is OPERAND_IMAGE_VERSION), else the
// ClusterOperator's claimed operand version (which reports the oldest Available
// operand during a rollout).
func (s *Snapshot) OperandInstances(component string) []OperandInstance {
	c := StaticPodComponentFor(component)
	op := s.StaticPodOperator(component)
	if c == nil || op == nil {
		return nil
	}
	claimed := ""
	if co := s.ClusterOperator(c.ClusterOperator); co != nil {
		claimed = co.Version(c.Component)
	}
	var image, version string
	if d := s.staticPodOperatorDeployment(c); d != nil && d.RolledOut() {
		image, version = d.Env("IMAGE"), d.Env("OPERAND_IMAGE_VERSION")
	}
	var out []OperandInstance
	for _, p := range op.MirrorPods {
		in := OperandInstance{Node: p.Node, Revision: p.Revision, Image: p.Image, Version: claimed}
		if image != "" && version != "" && p.Image == image {
			in.Version, in.Verified = version, true
		}
		out = append(out, in)
	}
	return out
}

// OperandVersion returns a static-pod operand's version ("kube-apiserver",
// "kube-controller-manager", "kube-scheduler", "etcd") as claimed by its
// ClusterOperator and as verified on every node's mirror pod.
func (s *Snapshot) OperandVersion(component string) VersionFact {
	c := StaticPodComponentFor(component)
	if c == nil {
		return VersionFact{Name: component, Method: "not verified: not a static-pod operand"}
	}
	f := VersionFact{Name: c.ClusterOperator + "/" + c.Component}
	if co := s.ClusterOperator(c.ClusterOperator); co != nil {
		f.Claimed = co.Version(c.Component)
	}
	ins := s.OperandInstances(component)
	if len(ins) == 0 {
		f.Method = "not verified: no mirror pods of " + c.Component + " found"
		if st := s.stateIn(ResPods.Key(), c.Namespace); st != Collected && st != "" {
			f.Method = "not verified: pods in " + c.Namespace + " not collected (" + string(st) + ")"
		}
		return f
	}
	verified := 0
	var v string
	for _, in := range ins {
		if in.Verified {
			verified++
			v = in.Version
		}
	}
	switch {
	case verified == len(ins):
		f.Verified = v
		f.Method = fmt.Sprintf("%d of %d mirror pods run the operator's operand image (OPERAND_IMAGE_VERSION=%s)", verified, len(ins), v)
	default:
		f.Method = fmt.Sprintf("not verified: %d of %d mirror pods run the operator's operand image", verified, len(ins))
	}
	return f
}

// KubeletVersions returns each node's kubelet version by node name.
func (s *Snapshot) KubeletVersions() map[string]string {
	out := make(map[string]string, len(s.Nodes))
	for _, n := range s.Nodes {
		out[n.Name] = n.KubeletVersion
	}
	return out
}

// KubeAPIServerVersion is the oldest kube-apiserver version running and how it
// was established.
type KubeAPIServerVersion struct {
	Version string `json:"version"`
	// Verified is true when every running instance's version was established from
	// its image; false when it rests (partly) on the ClusterOperator's claim.
	Verified bool `json:"verified"`
	// Nodes are the nodes running that oldest version (empty when only claimed).
	Nodes []string `json:"nodes,omitempty"`
	// Source explains where the version came from.
	Source string `json:"source"`
}

// OldestKubeAPIServer returns the oldest kube-apiserver version running: the
// minimum over the mirror pods' verified versions, where an instance whose version
// cannot be verified counts with the kube-apiserver ClusterOperator's claimed
// operand version. ok is false when neither is known.
func (s *Snapshot) OldestKubeAPIServer() (KubeAPIServerVersion, bool) {
	var claimed string
	if co := s.ClusterOperator(openshift.KubeAPIServer); co != nil {
		claimed = co.Version(openshift.KubeAPIServer)
	}
	ins := s.OperandInstances(openshift.KubeAPIServer)
	if len(ins) == 0 {
		if claimed == "" {
			return KubeAPIServerVersion{}, false
		}
		return KubeAPIServerVersion{Version: claimed, Source: "clusteroperator/kube-apiserver status.versions kube-apiserver (no mirror pods to verify)"}, true
	}
	out := KubeAPIServerVersion{Verified: true}
	for _, in := range ins {
		if in.Version == "" {
			continue
		}
		if !in.Verified {
			out.Verified = false
		}
		switch c := CompareVersions(in.Version, out.Version); {
		case out.Version == "" || c < 0:
			out.Version, out.Nodes = in.Version, []string{in.Node}
		case c == 0:
			out.Nodes = append(out.Nodes, in.Node)
		}
	}
	if out.Version == "" {
		return KubeAPIServerVersion{}, false
	}
	if out.Verified {
		out.Source = "mirror pods running the kube-apiserver operator's operand image"
	} else {
		out.Source = "clusteroperator/kube-apiserver claims " + claimed + " for instances whose image could not be verified"
	}
	return out, true
}

// VersionGroup is a version and the names of what runs it.
type VersionGroup struct {
	Version string   `json:"version"`
	Names   []string `json:"names"`
}

// groupVersions groups names by version, newest version first ("" last).
func groupVersions(byName map[string]string) []VersionGroup {
	idx := map[string]int{}
	var out []VersionGroup
	for name, v := range byName {
		i, ok := idx[v]
		if !ok {
			i = len(out)
			idx[v] = i
			out = append(out, VersionGroup{Version: v})
		}
		out[i].Names = append(out[i].Names, name)
	}
	for i := range out {
		sort.Strings(out[i].Names)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Version, out[j].Version
		if a == "" || b == "" {
			return b == ""
		}
		return CompareVersions(a, b) > 0
	})
	return out
}

// OperatorsByVersion groups the ClusterOperators by their claimed operator version.
func (s *Snapshot) OperatorsByVersion() []VersionGroup {
	m := map[string]string{}
	for _, co := range s.ClusterOperators {
		m[co.Name] = co.Version("operator")
	}
	return groupVersions(m)
}

// NodesByKubelet groups the nodes by kubelet version.
func (s *Snapshot) NodesByKubelet() []VersionGroup { return groupVersions(s.KubeletVersions()) }

// NodePool returns the name of the MachineConfigPool a node belongs to: the pool
// whose nodeSelector matches the node's role labels (a custom pool wins over
// worker), else the pool named in its rendered config, else "".
func (s *Snapshot) NodePool(n *Node) string {
	roles := map[string]bool{}
	for _, r := range n.Roles {
		roles[labelNodeRolePrefix+r] = true
	}
	best := ""
	for _, p := range s.MachineConfigPools {
		if len(p.NodeSelector) == 0 {
			continue
		}
		match := true
		for k := range p.NodeSelector {
			if !roles[k] {
				match = false
			}
		}
		if match && (best == "" || best == "worker") {
			best = p.Name
		}
	}
	if best != "" {
		return best
	}
	cfg := n.CurrentConfig
	if cfg == "" {
		cfg = n.DesiredConfig
	}
	if rest, ok := strings.CutPrefix(cfg, "rendered-"); ok {
		if i := strings.LastIndex(rest, "-"); i > 0 {
			return rest[:i]
		}
	}
	return ""
}

// MachineConfig returns the named MachineConfig record, or nil.
func (s *Snapshot) MachineConfig(name string) *MachineConfig {
	for i := range s.MachineConfigs {
		if s.MachineConfigs[i].Name == name {
			return &s.MachineConfigs[i]
		}
	}
	return nil
}

// IsControlPlane reports whether a node is a control-plane node (role master or
// control-plane).
func (n *Node) IsControlPlane() bool {
	for _, r := range n.Roles {
		if openshift.IsControlPlaneRole(r) {
			return true
		}
	}
	return false
}

// ControlPlaneNodes returns the names of the control-plane nodes, sorted: the
// nodes a static-pod operand must run on (what the static-pods gate selects live
// by openshift.ControlPlaneLabels).
func (s *Snapshot) ControlPlaneNodes() []string {
	var out []string
	for i := range s.Nodes {
		if s.Nodes[i].IsControlPlane() {
			out = append(out, s.Nodes[i].Name)
		}
	}
	sort.Strings(out)
	return out
}
