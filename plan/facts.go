package plan

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/policy"
)

// facts are the snapshot's facts the planner works from: what runs, verified
// where the snapshot can verify it, with the claim kept beside it.
type facts struct {
	s *inspect.Snapshot
	// operators are every ClusterOperator's operator version, sorted by name.
	operators []operatorFact
	// present are the distinct release versions the operators run, oldest first.
	present []string
	history policy.History
	// blockers are the Upgradeable=False conditions.
	blockers []policy.Blocker
	// kas is the oldest running kube-apiserver; kasOK is false when unknown.
	kas   inspect.KubeAPIServerVersion
	kasOK bool
	// hold is what a staged plan holds paused across this hop (Options.Hold):
	// its pools are Held.
	hold *PoolHold
	// operands are the static-pod operands' instances: component -> node -> version.
	operands map[string]map[string]string
	nodes    []nodeFact
	pools    []poolFact
	// unknown lists operators without any version (claimed or verified).
	unknown []string
	// risk is the in-flight target's conditional-update risk, when inspect found one.
	risk *riskOnTarget
	// resolved say which Upgradeable blockers an accepted promise resolves.
	resolved []string
}

// operatorFact is one ClusterOperator's operator version.
type operatorFact struct {
	Name     string
	Version  string // verified, else claimed
	Claimed  string
	Verified bool
	Evidence string
}

// nodeFact is one node's kubelet, with where its machine config is taking it.
type nodeFact struct {
	Name         string
	ControlPlane bool
	Pool         string
	Kubelet      string
	// Release is the release of the node's current rendered config, when known.
	Release string
	// Updating is set when the machine-config daemon is moving the node to another
	// config; UpdatingKube is that config's Kubernetes version ("1.17.0"), when
	// known. Pausing the pool does not stop a node that is already updating.
	Updating     string
	UpdatingKube string
}

// poolFact is one MachineConfigPool: paused or not, and the Kubernetes version the
// MCO rolls onto its nodes when it may.
type poolFact struct {
	Name     string
	Paused   bool
	Required bool
	Config   string
	// Release is the release its spec.configuration was rendered for ("" unknown);
	// Kube the Kubernetes version that config's kubelet runs ("" unknown).
	Release string
	Kube    string
	Nodes   []string
	// Rolling is true when machines are not yet on spec.configuration.
	Rolling bool
	// Held: a staged plan holds this pool paused from this hop until its
	// last stage (Options.Hold).
	Held bool
}

// factsBuilt counts newFacts calls, for the test that holds Make to one set of
// facts per plan (TestMakeReadsTheFactsOnce).
var factsBuilt atomic.Int64

// newFacts reads the planner's facts from a snapshot.
func newFacts(s *inspect.Snapshot) *facts {
	factsBuilt.Add(1)
	f := &facts{s: s, operands: map[string]map[string]string{}}
	seen := map[string]bool{}
	for _, co := range s.ClusterOperators {
		vf := s.OperatorVersion(co.Name)
		of := operatorFact{Name: co.Name, Version: vf.Version(), Claimed: vf.Claimed, Verified: vf.Verified != ""}
		if of.Verified {
			of.Evidence = vf.Method
		} else {
			of.Evidence = "claim only (" + vf.Method + ")"
		}
		if of.Version == "" {
			f.unknown = append(f.unknown, co.Name)
			continue
		}
		f.operators = append(f.operators, of)
		if !seen[of.Version] {
			seen[of.Version] = true
			f.present = append(f.present, of.Version)
		}
		if c := co.Condition(configv1.OperatorUpgradeable); c != nil && c.Status == configv1.ConditionFalse {
			f.blockers = append(f.blockers, policy.Blocker{Source: "clusteroperator/" + co.Name, Reason: c.Reason, Message: oneLine(c.Message)})
		}
	}
	sort.Slice(f.operators, func(i, j int) bool { return f.operators[i].Name < f.operators[j].Name })
	sort.Slice(f.present, func(i, j int) bool { return inspect.CompareVersions(f.present[i], f.present[j]) < 0 })
	if cv := s.ClusterVersion; cv != nil {
		for _, c := range cv.Status.Conditions {
			if c.Type == configv1.OperatorUpgradeable && c.Status == configv1.ConditionFalse {
				f.blockers = append([]policy.Blocker{{Source: "clusterversion/version", Reason: c.Reason, Message: oneLine(c.Message)}}, f.blockers...)
			}
		}
		f.history.Desired = cv.Status.Desired.Version
		f.history.Updating = len(cv.Status.History) > 0 && cv.Status.History[0].State == configv1.PartialUpdate
		for _, h := range cv.Status.History {
			if h.Version != cv.Status.Desired.Version || h.Image != cv.Status.Desired.Image {
				f.history.Previous = h.Version
				break
			}
		}
	}
	f.risk = inFlightRisk(s)
	f.kas, f.kasOK = s.OldestKubeAPIServer()
	for _, c := range inspect.StaticPodComponents {
		byNode := map[string]string{}
		for _, in := range s.OperandInstances(c.Component) {
			if in.Version != "" {
				byNode[in.Node] = in.Version
			}
		}
		f.operands[c.Component] = byNode
	}
	poolOf := map[string]*poolFact{}
	for _, p := range s.MachineConfigPools {
		pf := poolFact{Name: p.Name, Paused: p.Paused, Required: p.GatesUpdate(), Config: p.Configuration,
			Rolling: p.Rolling()}
		pf.Release = configRelease(s, p.Configuration)
		pf.Kube = kubeForRelease(pf.Release)
		f.pools = append(f.pools, pf)
	}
	for i := range f.pools {
		poolOf[f.pools[i].Name] = &f.pools[i]
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		nf := nodeFact{Name: n.Name, ControlPlane: n.IsControlPlane(), Pool: s.NodePool(n), Kubelet: n.KubeletVersion, Release: configRelease(s, n.CurrentConfig)}
		if n.DesiredConfig != "" && n.DesiredConfig != n.CurrentConfig {
			nf.Updating = n.DesiredConfig
			nf.UpdatingKube = kubeForRelease(configRelease(s, n.DesiredConfig))
		}
		f.nodes = append(f.nodes, nf)
		if p := poolOf[nf.Pool]; p != nil {
			p.Nodes = append(p.Nodes, n.Name)
		}
	}
	// A pool whose config's release is unknown rolls what its updated nodes run.
	for i := range f.pools {
		p := &f.pools[i]
		if p.Kube != "" {
			continue
		}
		for j, nf := range f.nodes {
			if nf.Pool == p.Name && s.Nodes[j].CurrentConfig == p.Config {
				p.Kube = maxKube(p.Kube, nf.Kubelet)
			}
		}
	}
	return f
}

// configRelease returns the release a rendered MachineConfig was made for.
func configRelease(s *inspect.Snapshot, name string) string {
	if name == "" {
		return ""
	}
	if mc := s.MachineConfig(name); mc != nil {
		return mc.ReleaseImageVersion
	}
	return ""
}

// kubeForRelease returns "1.<kube minor>.0" for an OpenShift 4 release, "" when
// it does not parse.
func kubeForRelease(release string) string {
	v, err := inspect.ParseVersion(release)
	if err != nil || v.Major != 4 {
		return ""
	}
	return fmt.Sprintf("1.%d.0", inspect.KubeMinorForOpenShift(v.Minor))
}

// kubeMinor returns the minor of a Kubernetes version, -1 when it does not parse.
func kubeMinor(v string) int {
	pv, err := inspect.ParseVersion(v)
	if err != nil {
		return -1
	}
	return int(pv.Minor)
}

// maxKube returns the newer of two Kubernetes versions ("" counts as oldest).
func maxKube(a, b string) string {
	if a == "" || (b != "" && inspect.CompareVersions(b, a) > 0) {
		return b
	}
	return a
}

// effectiveKubelets returns every node's kubelet as it will be even if its pool is
// paused now: a node already updating gets its new config's kubelet.
func (f *facts) effectiveKubelets() map[string]string {
	out := map[string]string{}
	for _, n := range f.nodes {
		if n.Kubelet == "" {
			continue
		}
		out[n.Name] = maxKube(n.Kubelet, n.UpdatingKube)
	}
	return out
}

// controlPlaneOthers returns the kube-controller-manager and kube-scheduler
// instances ("kube-scheduler on master-0" -> version).
func (f *facts) controlPlaneOthers() map[string]string {
	out := map[string]string{}
	for _, c := range []string{"kube-controller-manager", "kube-scheduler"} {
		for node, v := range f.operands[c] {
			out[c+" on "+node] = v
		}
	}
	return out
}

// operator returns the named operator's fact.
func (f *facts) operator(name string) (operatorFact, bool) {
	for _, o := range f.operators {
		if o.Name == name {
			return o, true
		}
	}
	return operatorFact{}, false
}

// pool returns the named pool's fact.
func (f *facts) pool(name string) *poolFact {
	for i := range f.pools {
		if f.pools[i].Name == name {
			return &f.pools[i]
		}
	}
	return nil
}

// summary returns the cluster summary of the plan document.
func (f *facts) summary() planfile.ClusterSummary {
	s := f.s
	cs := planfile.ClusterSummary{Fingerprint: s.Fingerprint(), CVOMode: string(s.CVOMode())}
	if cv := s.ClusterVersion; cv != nil {
		cs.ClusterID = string(cv.Spec.ClusterID)
		cs.ClaimedVersion = cv.Status.Desired.Version
		if len(cv.Status.History) > 0 {
			cs.ClaimedState = string(cv.Status.History[0].State)
		}
		if u := cv.Spec.DesiredUpdate; u != nil {
			cs.DesiredUpdate = &planfile.DesiredUpdate{Version: u.Version, Image: u.Image, Force: u.Force}
		}
	}
	if s.CVO != nil {
		r := s.CVO.EffectiveReplicas()
		cs.CVOReplicas = &r
	}
	for _, o := range f.operators {
		cv := planfile.ComponentVersion{Name: o.Name, Version: o.Version, Evidence: o.Evidence}
		if !o.Verified {
			cv.Version, cv.Claimed = "", o.Claimed
		} else if o.Claimed != o.Version {
			cv.Claimed = o.Claimed
		}
		cs.Components = append(cs.Components, cv)
	}
	for _, name := range f.unknown {
		cs.Components = append(cs.Components, planfile.ComponentVersion{Name: name, Evidence: "no version claimed or verified"})
	}
	for _, c := range inspect.StaticPodComponents {
		op := s.StaticPodOperator(c.Component)
		if op == nil {
			continue
		}
		opVersion, _ := f.operator(c.ClusterOperator)
		for _, in := range s.OperandInstances(c.Component) {
			cv := planfile.ComponentVersion{Name: c.Component + "/" + in.Node, Kubernetes: in.Version}
			if c.Component == "etcd" {
				cv.Kubernetes = ""
			}
			ev := fmt.Sprintf("mirror pod %s-%s revision %d (latest %d)", c.PodPrefix, in.Node, in.Revision, op.LatestAvailableRevision)
			if in.Verified && in.Revision == op.LatestAvailableRevision && opVersion.Verified {
				cv.Version = opVersion.Version
				ev += " runs the operator's operand image"
			} else {
				cv.Claimed = opVersion.Claimed
				if !in.Verified {
					ev += " does not run the operator's operand image: version not verified"
				} else if in.Revision != op.LatestAvailableRevision {
					ev += ": not at the latest revision"
				} else {
					ev += ": the operator's own version is not verified"
				}
			}
			cv.Evidence = ev
			cs.Components = append(cs.Components, cv)
		}
	}
	for _, n := range f.nodes {
		cv := planfile.ComponentVersion{Name: "kubelet/" + n.Name, Version: n.Release, Kubernetes: n.Kubelet}
		ev := "node status.nodeInfo.kubeletVersion"
		if n.Release != "" {
			ev += "; its machine config was rendered for " + n.Release
		}
		if n.Updating != "" {
			ev += "; the machine-config daemon is moving it to " + n.Updating
			if n.UpdatingKube != "" {
				ev += " (kubelet " + strings.TrimSuffix(n.UpdatingKube, ".0") + ")"
			}
		}
		cv.Evidence = ev
		cs.Components = append(cs.Components, cv)
	}
	for _, fd := range s.Findings {
		if fd.Severity == inspect.SeverityInfo {
			continue
		}
		cs.Findings = append(cs.Findings, planfile.FindingRef{Code: fd.Code, Severity: fd.Severity, Subject: fd.Subject, Message: fd.Message})
	}
	return cs
}

// oneLine folds whitespace and newlines into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
