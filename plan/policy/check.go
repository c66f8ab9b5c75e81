package policy

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/graph"
)

// CheckMoves applies the direction rules to every component's move: no cross-minor
// downgrade, downgrades within a minor only as Downgrades allows, at most
// MaxMinorHop minors up. force lists why the target needs force even though every
// rule passes (a WithinMinor downgrade to a release other than the previous one).
// Moves whose versions do not parse are skipped (the caller reports them).
func (p *Policy) CheckMoves(moves []Move, h History) (vs []Violation, force []string) {
	type key struct {
		rule Rule
		from string
	}
	groups := map[key][]string{}
	var order []key
	add := func(r Rule, from, component string) {
		k := key{r, from}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], component)
	}
	to := ""
	for _, m := range moves {
		to = m.To
		f, err1 := inspect.ParseVersion(m.From)
		t, err2 := inspect.ParseVersion(m.To)
		if err1 != nil || err2 != nil || m.From == m.To {
			continue
		}
		switch {
		case t.Major < f.Major || (t.Major == f.Major && t.Minor < f.Minor):
			add(RuleNoCrossMinorDowngrade, m.From, m.Component)
		case t.LT(f):
			switch p.Downgrades {
			case DowngradesNever:
				add(RuleDowngradeNotPreviousHistory, m.From, m.Component)
			case DowngradesWithinMinor:
				if m.To != h.Previous {
					force = append(force, fmt.Sprintf("%s moves down from %s to %s, which is not the previous history entry (%s): the CVO's Rollback precondition refuses it without force", m.Component, m.From, m.To, orNone(h.Previous)))
				}
			default:
				if m.To != h.Previous || !sameMinor(h.Previous, h.Desired) {
					add(RuleDowngradeNotPreviousHistory, m.From, m.Component)
				}
			}
		case t.Major > f.Major || int(t.Minor)-int(f.Minor) > p.minorHop():
			add(RuleMinorHopTooLarge, m.From, m.Component)
		}
	}
	for _, k := range order {
		cs := groups[k]
		switch k.rule {
		case RuleNoCrossMinorDowngrade:
			vs = append(vs, violation(k.rule, "%s %s %s: moving to %s would go down across a minor, which Kubernetes and the CVO do not support", names(cs), runs(cs), k.from, to))
		case RuleDowngradeNotPreviousHistory:
			why := fmt.Sprintf("only the previous history entry (%s) may be rolled back to, within its minor", orNone(h.Previous))
			if p.Downgrades == DowngradesNever {
				why = "the policy allows no downgrades (downgrades: Never)"
			}
			vs = append(vs, violation(k.rule, "%s %s %s: moving down to %s is not allowed: %s", names(cs), runs(cs), k.from, to, why))
		case RuleMinorHopTooLarge:
			vs = append(vs, violation(k.rule, "%s %s %s: moving to %s is more than %d minor(s) up in one hop", names(cs), runs(cs), k.from, to, p.minorHop()))
		}
	}
	return vs, force
}

// Blocker is a condition that says Upgradeable=False.
type Blocker struct {
	// Source is "clusterversion/version" or "clusteroperator/<name>".
	Source  string
	Reason  string
	Message string
}

func (b Blocker) String() string {
	s := b.Source + " Upgradeable=False"
	if b.Reason != "" {
		s += " (" + b.Reason + ")"
	}
	if b.Message != "" {
		s += ": " + strings.TrimSuffix(b.Message, ".")
	}
	return s
}

// CheckUpgradeable applies the Upgradeable rule: when any component moves up a
// minor and a blocker exists, the candidate is rejected (Block) or needs force
// (Force). A retarget within the minor an update is already under way to
// (h.Updating, the candidate in h.Desired's major.minor) is not blocked: the
// CVO's Upgradeable precondition compares the new target with status.desired,
// the in-flight target (OCPBUGS-42880, cluster-version-operator#1094).
func (p *Policy) CheckUpgradeable(moves []Move, blockers []Blocker, h History) (*Violation, string) {
	if len(blockers) == 0 {
		return nil, ""
	}
	if h.Updating && len(moves) > 0 && sameMinor(moves[0].To, h.Desired) {
		return nil, ""
	}
	var hop []string
	for _, m := range moves {
		f, err1 := inspect.ParseVersion(m.From)
		t, err2 := inspect.ParseVersion(m.To)
		if err1 == nil && err2 == nil && (t.Major > f.Major || (t.Major == f.Major && t.Minor > f.Minor)) {
			hop = append(hop, m.Component)
		}
	}
	if len(hop) == 0 {
		return nil, ""
	}
	var bs []string
	for _, b := range blockers {
		bs = append(bs, b.String())
	}
	msg := fmt.Sprintf("%s would move up a minor while %s", names(hop), strings.Join(bs, "; "))
	if p.Upgradeable == UpgradeableForce {
		return nil, msg + " (allowed by upgradeable: Force)"
	}
	v := violation(RuleUpgradeableFalse, "%s", msg)
	return &v, ""
}

// CheckEdge applies the edge rules to the edge from a release the cluster runs to
// the candidate: found is false when the graph has no such edge in any state.
// accepted are the risk names given with --accept.
func CheckEdge(from, to string, e graph.Edge, found bool, accepted []string) *Violation {
	if !found {
		v := violation(RuleNoSupportedEdge, "no update edge %s -> %s in the graph", from, to)
		return &v
	}
	switch e.State {
	case graph.EdgeSupported:
		return nil
	case graph.EdgeBlocked:
		var why []string
		for _, b := range e.BlockedBy {
			why = append(why, b.File+": "+oneLine(b.Reason()))
		}
		why = append(why, e.RemovedBy...)
		if len(why) == 0 {
			why = append(why, "removed by the update service")
		}
		v := violation(RuleBlockedEdge, "%s -> %s is blocked by %s", from, to, strings.Join(why, "; "))
		return &v
	case graph.EdgeConditional:
		var missing []graph.Risk
		for _, r := range e.Risks {
			if !slices.Contains(accepted, r.Name) {
				missing = append(missing, r)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		var ns []string
		for _, r := range missing {
			ns = append(ns, r.Name)
		}
		v := violation(RuleUnacceptedRisk, "%s -> %s is conditional on risks not named in --accept: %s", from, to, strings.Join(ns, ", "))
		v.Risks = missing
		return &v
	}
	v := violation(RuleNoSupportedEdge, "edge %s -> %s is in an unknown state %q", from, to, e.State)
	return &v
}

// KubeletAllowedLag returns how many minors a kubelet may lag a kube-apiserver
// of kubeAPIServer, under the policy, for the given kubelet.
func (p *Policy) KubeletAllowedLag(kubelet, kubeAPIServer string) (int, error) {
	v, err := inspect.CheckKubeletSkew(kubelet, kubeAPIServer, 0)
	if err != nil {
		return 0, err
	}
	if p.KubeletSkew == KubeletSkewUpstream {
		return v.UpstreamAllowed, nil
	}
	return v.OpenShiftAllowed, nil
}

// CheckKubelets applies the kubelet skew rule against a kube-apiserver version:
// no kubelet newer, none further behind than allowed. kubelets maps node names
// to versions; what says where kubeAPIServer comes from ("the 4.4.4
// kube-apiserver (1.17)").
func (p *Policy) CheckKubelets(kubeAPIServer, what string, kubelets map[string]string) []Violation {
	newer := map[string][]string{}
	old := map[string][]string{}
	lag := map[string]int{}
	for node, kv := range kubelets {
		v, err := inspect.CheckKubeletSkew(kv, kubeAPIServer, 0)
		if err != nil {
			continue
		}
		allowed := v.OpenShiftAllowed
		if p.KubeletSkew == KubeletSkewUpstream {
			allowed = v.UpstreamAllowed
		}
		switch {
		case v.Newer:
			newer[kv] = append(newer[kv], node)
		case -v.Skew > allowed:
			old[kv] = append(old[kv], node)
			lag[kv] = allowed
		}
	}
	var vs []Violation
	for _, kv := range slices.Sorted(maps.Keys(newer)) {
		vs = append(vs, violation(RuleKubeletSkew, "the kubelet on %s (%s) would be newer than %s", names(newer[kv]), kv, what))
	}
	for _, kv := range slices.Sorted(maps.Keys(old)) {
		vs = append(vs, violation(RuleKubeletSkew, "the kubelet on %s (%s) would be more than %d minor(s) behind %s (kubeletSkew: %s)", names(old[kv]), kv, lag[kv], what, p.KubeletSkew))
	}
	return vs
}

// CheckControlPlane applies the control-plane skew rule: the kube-apiserver moves
// from its oldest running version to target by at most one minor, and no
// kube-controller-manager or kube-scheduler instance is newer than target.
// others maps "kube-controller-manager on master-0" style names to versions.
func CheckControlPlane(oldestKubeAPIServer, target string, others map[string]string) []Violation {
	t, err := inspect.ParseVersion(target)
	if err != nil {
		return nil
	}
	var vs []Violation
	if o, err := inspect.ParseVersion(oldestKubeAPIServer); err == nil && (t.Major != o.Major || int(t.Minor)-int(o.Minor) > 1) {
		vs = append(vs, violation(RuleControlPlaneSkew, "the kube-apiserver would move from %s to %d.%d, skipping a minor", oldestKubeAPIServer, t.Major, t.Minor))
	}
	var newer []string
	for name, v := range others {
		if ov, err := inspect.ParseVersion(v); err == nil && minorOf(ov) > minorOf(t) {
			newer = append(newer, fmt.Sprintf("%s (%s)", name, v))
		}
	}
	if len(newer) > 0 {
		sort.Strings(newer)
		vs = append(vs, violation(RuleControlPlaneSkew, "%s would be newer than the target kube-apiserver %d.%d", strings.Join(newer, ", "), t.Major, t.Minor))
	}
	return vs
}

func minorOf(v semver.Version) uint64 { return v.Major*1000 + v.Minor }

func sameMinor(a, b string) bool {
	va, err1 := inspect.ParseVersion(a)
	vb, err2 := inspect.ParseVersion(b)
	return err1 == nil && err2 == nil && va.Major == vb.Major && va.Minor == vb.Minor
}

func runs(cs []string) string {
	if len(cs) == 1 {
		return "runs"
	}
	return "run"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
