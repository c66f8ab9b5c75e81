package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/plan/graph"
)

// Rule is a stable rule name. Plans, the candidate table and scripts quote it;
// never rename one.
type Rule string

// The rules, in the order the planner reports them when several apply.
const (
	// RuleNoCrossMinorDowngrade: no component moves down across a minor.
	RuleNoCrossMinorDowngrade Rule = "no-cross-minor-downgrade"
	// RuleDowngradeNotPreviousHistory: a move down within a minor that Downgrades
	// does not allow (by default: anything but the previous history entry).
	RuleDowngradeNotPreviousHistory Rule = "downgrade-not-previous-history"
	// RuleMinorHopTooLarge: a component would move up more minors than MaxMinorHop.
	RuleMinorHopTooLarge Rule = "minor-hop-too-large"
	// RuleUpgradeableFalse: a minor hop while Upgradeable=False says so.
	RuleUpgradeableFalse Rule = "upgradeable-false"
	// RuleBlockedEdge: an edge from a release the cluster runs was removed by a
	// blocked-edges entry (or node metadata).
	RuleBlockedEdge Rule = "blocked-edge"
	// RuleNoSupportedEdge: no edge at all from a release the cluster runs.
	RuleNoSupportedEdge Rule = "no-supported-edge"
	// RuleKubeletSkew: a kubelet newer than the target kube-apiserver, or further
	// behind it than the skew policy allows.
	RuleKubeletSkew Rule = "kubelet-skew"
	// RuleControlPlaneSkew: the kube-apiserver would skip a minor, or
	// kube-controller-manager / kube-scheduler would be newer than it.
	RuleControlPlaneSkew Rule = "control-plane-skew"
	// RuleUnacceptedRisk: a conditional edge whose risks are not all named in --accept.
	RuleUnacceptedRisk Rule = "unaccepted-risk"
	// RuleFarther: a safe candidate that moves more than the chosen one (a ranking
	// verdict, not a violation).
	RuleFarther Rule = "farther"
)

// Class says who may relax a rule.
type Class string

// The rule classes (kubeadm's Mandatory / Skippable split, with the policy file
// and --accept as the two ways to relax).
const (
	// ClassMandatory: never relaxed.
	ClassMandatory Class = "Mandatory"
	// ClassPolicy: a --policy file may change the default.
	ClassPolicy Class = "Policy"
	// ClassAcceptable: relaxed by naming the risk in --accept.
	ClassAcceptable Class = "Acceptable"
)

// RuleInfo documents one rule.
type RuleInfo struct {
	Rule    Rule   `json:"rule"`
	Class   Class  `json:"class"`
	Summary string `json:"summary"`
	// Source is where the rule comes from.
	Source string `json:"source"`
}

// Rules lists every rule, in reporting order.
var Rules = []RuleInfo{
	{RuleNoCrossMinorDowngrade, ClassMandatory, "no component moves down across a minor", "Kubernetes does not support downgrades; CVO ClusterVersionRollback refuses cross-minor rollbacks (pkg/payload/precondition/clusterversion/rollback.go)"},
	{RuleDowngradeNotPreviousHistory, ClassPolicy, "down within a minor only as far as `downgrades` allows (default: the previous history entry)", "CVO ClusterVersionRollback: the only supported rollback is to the previous version, within its minor"},
	{RuleMinorHopTooLarge, ClassPolicy, "at most `maxMinorHop` (default and ceiling 1) minors up per hop", "CVO ClusterVersionGiantHop (MultipleMinorVersionsUpdate); a kube-apiserver must not skip a minor"},
	{RuleUpgradeableFalse, ClassPolicy, "no minor hop while ClusterVersion or a ClusterOperator says Upgradeable=False (`upgradeable: Block`)", "CVO ClusterVersionUpgradeable; ClusterOperator Upgradeable godoc"},
	{RuleBlockedEdge, ClassMandatory, "no blocked edge from a release the cluster runs", "cincinnati-graph-data blocked-edges"},
	{RuleNoSupportedEdge, ClassMandatory, "an update edge from every release the cluster runs (or the candidate is that release; downgrades need none)", "the update graph: the next hop is one edge"},
	{RuleKubeletSkew, ClassMandatory, "no kubelet newer than the kube-apiserver, none further behind than `kubeletSkew` allows", "kubernetes.io version-skew policy; cluster-kube-apiserver-operator kubelet_version_skew_controller.go"},
	{RuleControlPlaneSkew, ClassMandatory, "the kube-apiserver moves at most one minor; kube-controller-manager and kube-scheduler never newer than it", "kubernetes.io version-skew policy"},
	{RuleUnacceptedRisk, ClassAcceptable, "a conditional edge qualifies only when every risk is named in --accept", "update service conditionalEdges; oc adm upgrade recommend --accept"},
}

// ClassOf returns a rule's class (ClassMandatory for unknown rules).
func ClassOf(r Rule) Class {
	for _, ri := range Rules {
		if ri.Rule == r {
			return ri.Class
		}
	}
	return ClassMandatory
}

// Order returns a rule's reporting position.
func Order(r Rule) int {
	for i, ri := range Rules {
		if ri.Rule == r {
			return i
		}
	}
	return len(Rules)
}

// Violation is one rule a candidate breaks.
type Violation struct {
	Rule   Rule   `json:"rule"`
	Class  Class  `json:"class"`
	Reason string `json:"reason"`
	// Risks are the unaccepted risks of RuleUnacceptedRisk.
	Risks []graph.Risk `json:"risks,omitempty"`
}

func violation(r Rule, format string, args ...any) Violation {
	return Violation{Rule: r, Class: ClassOf(r), Reason: fmt.Sprintf(format, args...)}
}

// SortViolations orders violations by rule order, then reason.
func SortViolations(vs []Violation) {
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := Order(vs[i].Rule), Order(vs[j].Rule)
		if a != b {
			return a < b
		}
		return vs[i].Reason < vs[j].Reason
	})
}

// Move is one component's move from the version it runs to a candidate.
type Move struct {
	Component string
	From, To  string
}

// History is what the CVO's preconditions read from ClusterVersion.
type History struct {
	// Desired is status.desired.version, the CVO's "current target".
	Desired string
	// Previous is the version of the first history entry whose version or image
	// differs from status.desired: the only rollback target the CVO allows.
	Previous string
	// Updating is true while the update to Desired is under way (history[0] is
	// Partial): a new target of Desired's minor is then a retarget.
	Updating bool
}

// names joins component names, sorted, capping long lists.
func names(cs []string) string {
	sort.Strings(cs)
	if len(cs) > 6 {
		return fmt.Sprintf("%s and %d more", strings.Join(cs[:5], ", "), len(cs)-5)
	}
	return strings.Join(cs, ", ")
}
