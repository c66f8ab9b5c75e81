package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/policy"
)

// Selection is the outcome of target selection: the target and every candidate,
// ranked (the target first, with Verdict "chosen").
type Selection struct {
	Target     planfile.Target      `json:"target"`
	Candidates []planfile.Candidate `json:"candidates"`
	// Force lists why the target needs desiredUpdate.force (empty: it does not).
	Force []string `json:"force,omitempty"`

	facts  *facts
	pol    *policy.Policy
	accept []string // the --accept names
	evals  []*evaluation
	chosen *evaluation
}

// Alternatives returns the candidates other than the target.
func (s *Selection) Alternatives() []planfile.Candidate {
	var out []planfile.Candidate
	for _, c := range s.Candidates {
		if c.Verdict != planfile.VerdictChosen {
			out = append(out, c)
		}
	}
	return out
}

// evaluation is one candidate under the policy.
type evaluation struct {
	version    string
	image      string
	node       *graph.Node
	moves      []policy.Move
	distance   planfile.Distance
	violations []policy.Violation
	force      []string
	edges      []string // "4.3.19 -> 4.4.4 supported"
	risks      []graph.Risk
}

// class orders evaluations: 0 safe, 1 safe with unaccepted risks only, 2 rejected.
func (e *evaluation) class() int {
	cls := 0
	for _, v := range e.violations {
		switch v.Class {
		case policy.ClassAcceptable:
			if cls < 1 {
				cls = 1
			}
		default:
			return 2
		}
	}
	return cls
}

// Select evaluates every candidate release against the policy and returns the
// nearest safe one with the others ranked. Candidates are the graph's versions
// (already filtered to its channel) plus, when the policy says so, the releases
// in ClusterVersion history. When none qualifies the error is a *NoTargetError
// carrying the ranked candidates.
func Select(s *inspect.Snapshot, g *graph.Result, pol *policy.Policy, accept []string) (*Selection, error) {
	if s == nil {
		return nil, &InputError{Msg: "no snapshot"}
	}
	return selectTarget(s, newFacts(s), g, pol, accept, "")
}

// selectTarget is Select from the snapshot's facts, read already; it leaves
// them as they are (the selection's own copy resolves the accepted blockers).
// With only set (a staged plan's stage 1: Options.StageTarget) that release
// is the one candidate: the stage's hop is chosen by the staged path, and
// the per-hop rules accept or refuse it.
func selectTarget(s *inspect.Snapshot, read *facts, g *graph.Result, pol *policy.Policy, accept []string, only string) (*Selection, error) {
	if g == nil || g.Graph == nil {
		return nil, &InputError{Msg: "no update graph", Hint: "pass --graph FILE|URL"}
	}
	if pol == nil {
		pol = policy.Default()
	}
	if len(read.operators) == 0 {
		return nil, &InputError{Msg: "the snapshot has no ClusterOperator with a version: nothing tells where the cluster is", Hint: "inspect it with 'recover inspect' and check that clusteroperators were collected"}
	}
	f := new(facts)
	*f = *read
	f.blockers, f.resolved = resolvedBlockers(s, f.blockers, accept)
	sel := &Selection{facts: f, pol: pol, accept: accept}
	for _, c := range candidates(s, g.Graph, pol) {
		if only != "" && c.version != only {
			continue
		}
		sel.evals = append(sel.evals, evaluate(f, g.Graph, pol, accept, c))
	}
	sort.SliceStable(sel.evals, func(i, j int) bool { return lessEval(sel.evals[i], sel.evals[j]) })
	for _, e := range sel.evals {
		if e.class() == 0 {
			sel.chosen = e
			break
		}
	}
	sel.Candidates = rankCandidates(sel.evals, sel.chosen)
	if sel.chosen == nil {
		return sel, noTarget(sel)
	}
	sel.Target = targetFor(sel)
	sel.Force = sel.chosen.force
	return sel, nil
}

// candidate is a release to evaluate.
type candidate struct {
	version string
	image   string
	node    *graph.Node
}

// candidates returns the graph's releases and the history's, deduplicated.
func candidates(s *inspect.Snapshot, g *graph.Graph, pol *policy.Policy) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, n := range g.Nodes() {
		if n.Payload == "" {
			continue // a placeholder node names no release image
		}
		n := n
		v := stripBuild(n.Version)
		if seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, candidate{version: v, image: n.Payload, node: &n})
	}
	if pol.IncludeHistory() && s.ClusterVersion != nil {
		for _, h := range s.ClusterVersion.Status.History {
			if h.Version == "" || seen[h.Version] {
				continue
			}
			seen[h.Version] = true
			out = append(out, candidate{version: h.Version, image: h.Image})
		}
	}
	return out
}

// stripBuild drops semver build metadata ("4.4.3+amd64" -> "4.4.3").
func stripBuild(v string) string {
	if i := strings.IndexByte(v, '+'); i >= 0 {
		return v[:i]
	}
	return v
}

// evaluate applies every rule to one candidate.
func evaluate(f *facts, g *graph.Graph, pol *policy.Policy, accept []string, c candidate) *evaluation {
	e := &evaluation{version: c.version, image: c.image, node: c.node}
	for _, o := range f.operators {
		e.moves = append(e.moves, policy.Move{Component: o.Name, From: o.Version, To: c.version})
	}
	e.distance = distance(e.moves)
	// The risks the cluster's spec.desiredUpdate.acceptRisks accepts count as
	// named with --accept (plan/risks.go).
	accept = withClusterAccepted(f.s, accept)
	vs, force := pol.CheckMoves(e.moves, f.history)
	e.violations, e.force = append(e.violations, vs...), append(e.force, force...)
	if v, fr := pol.CheckUpgradeable(e.moves, f.blockers, f.history); v != nil {
		e.violations = append(e.violations, *v)
	} else if fr != "" {
		e.force = append(e.force, fr)
	}
	rvs, rforce := retargetViolations(f, pol, accept, c.version)
	e.force = append(e.force, rforce...)
	for _, v := range rvs {
		if slices.ContainsFunc(e.violations, func(o policy.Violation) bool { return o.Rule == v.Rule }) {
			continue // the components' own moves say it already
		}
		e.violations = append(e.violations, v)
		if v.Rule == policy.RuleUnacceptedRisk {
			e.risks = appendRisks(e.risks, v.Risks...)
		}
	}
	if v, exposed := clusterRisks(f, accept, c); v != nil || len(exposed) > 0 {
		if v != nil {
			e.violations = append(e.violations, *v)
		}
		e.risks = appendRisks(e.risks, exposed...)
	}
	// Edges: from every release the cluster runs, unless the candidate is that
	// release or below it (a rollback needs no edge; the direction rules decide).
	for _, from := range f.present {
		if from == c.version || inspect.CompareVersions(from, c.version) > 0 {
			continue
		}
		if c.node == nil {
			e.violations = append(e.violations, policy.Violation{Rule: policy.RuleNoSupportedEdge, Class: policy.ClassMandatory,
				Reason: fmt.Sprintf("%s is in ClusterVersion history but not in the update graph%s: no edge %s -> %s can be checked", c.version, scope(g), from, c.version)})
			break
		}
		edge, found, err := g.Edge(from, c.version)
		if err != nil {
			e.violations = append(e.violations, policy.Violation{Rule: policy.RuleNoSupportedEdge, Class: policy.ClassMandatory,
				Reason: fmt.Sprintf("the cluster runs %s, which is not in the update graph%s: no edge %s -> %s can be checked", from, scope(g), from, c.version)})
			continue
		}
		if v := policy.CheckEdge(from, c.version, edge, found, accept); v != nil {
			e.violations = append(e.violations, *v)
			if v.Rule == policy.RuleUnacceptedRisk {
				e.risks = appendRisks(e.risks, v.Risks...)
			}
			continue
		}
		desc := fmt.Sprintf("%s -> %s %s", from, c.version, edge.State)
		if edge.State == graph.EdgeConditional {
			var ns []string
			for _, r := range edge.Risks {
				ns = append(ns, r.Name)
			}
			desc += " (accepted risks: " + strings.Join(ns, ", ") + ")"
			e.risks = appendRisks(e.risks, edge.Risks...)
		}
		e.edges = append(e.edges, desc)
	}
	// Kubernetes skew at the hop: the kube-apiserver moves to the candidate's minor
	// while every kubelet is where it is (or where its in-flight update takes it).
	if kas := kubeForRelease(c.version); kas != "" {
		what := fmt.Sprintf("the %s kube-apiserver (%s)", c.version, strings.TrimSuffix(kas, ".0"))
		e.violations = append(e.violations, pol.CheckKubelets(kas, what, f.effectiveKubelets())...)
		if f.kasOK {
			e.violations = append(e.violations, policy.CheckControlPlane(f.kas.Version, kas, f.controlPlaneOthers())...)
		}
	}
	policy.SortViolations(e.violations)
	return e
}

func scope(g *graph.Graph) string {
	if g.Channel != "" {
		return " (channel " + g.Channel + ")"
	}
	return ""
}

func appendRisks(have []graph.Risk, add ...graph.Risk) []graph.Risk {
	for _, r := range add {
		dup := false
		for _, h := range have {
			if h.Name == r.Name {
				dup = true
			}
		}
		if !dup {
			have = append(have, r)
		}
	}
	return have
}

// distance measures the moves: components that change, the minors they cross and
// the patch steps (within a minor: the difference; into a new minor: the target's
// patch number).
func distance(moves []policy.Move) planfile.Distance {
	var d planfile.Distance
	for _, m := range moves {
		if m.From == m.To {
			continue
		}
		d.Components++
		f, err1 := inspect.ParseVersion(m.From)
		t, err2 := inspect.ParseVersion(m.To)
		if err1 != nil || err2 != nil {
			continue
		}
		if f.Major == t.Major && f.Minor == t.Minor {
			d.Patch += absDiff(t.Patch, f.Patch)
			continue
		}
		if f.Major == t.Major {
			d.Minor += absDiff(t.Minor, f.Minor)
		} else {
			d.Minor += 100 * absDiff(t.Major, f.Major)
		}
		d.Patch += int(t.Patch)
	}
	return d
}

func absDiff(a, b uint64) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func lessDistance(a, b planfile.Distance) bool {
	if a.Components != b.Components {
		return a.Components < b.Components
	}
	if a.Minor != b.Minor {
		return a.Minor < b.Minor
	}
	return a.Patch < b.Patch
}

// lessEval ranks evaluations: safe before risk-only before rejected, then by
// distance, then by version (older first).
func lessEval(a, b *evaluation) bool {
	if ca, cb := a.class(), b.class(); ca != cb {
		return ca < cb
	}
	if a.distance != b.distance {
		return lessDistance(a.distance, b.distance)
	}
	return inspect.CompareVersions(a.version, b.version) < 0
}

// describeDistance is "11 components (6 across a minor, 29 patch steps)".
func describeDistance(d planfile.Distance) string {
	if d.Components == 0 {
		return "no component moves"
	}
	s := fmt.Sprintf("%d component", d.Components)
	if d.Components != 1 {
		s += "s"
	}
	return fmt.Sprintf("%s (%d minor, %d patch steps)", s, d.Minor, d.Patch)
}

// rankCandidates turns the sorted evaluations into the candidate table.
func rankCandidates(evals []*evaluation, chosen *evaluation) []planfile.Candidate {
	out := make([]planfile.Candidate, 0, len(evals))
	for i, e := range evals {
		c := planfile.Candidate{Version: e.version, Image: e.image, Rank: i + 1, Distance: e.distance}
		switch {
		case e == chosen:
			c.Verdict, c.Rule, c.Reason = planfile.VerdictChosen, "", "nearest safe release: "+describeDistance(e.distance)
		case e.class() == 0:
			c.Verdict, c.Rule = planfile.VerdictDemoted, string(policy.RuleFarther)
			if chosen != nil {
				c.Reason = fmt.Sprintf("safe, but farther than %s: %s against %s", chosen.version, describeDistance(e.distance), describeDistance(chosen.distance))
			}
		default:
			v := e.violations[0]
			c.Verdict, c.Rule, c.Reason = planfile.VerdictRejected, string(v.Rule), v.Reason
			if e.class() == 1 {
				c.Verdict = planfile.VerdictDemoted
				for _, r := range e.risks {
					c.Risks = append(c.Risks, planfile.Risk{Name: r.Name, URL: r.URL, Message: r.Message})
				}
			}
			if more := otherRules(e.violations); more != "" {
				c.Reason += " (also " + more + ")"
			}
		}
		out = append(out, c)
	}
	return out
}

// otherRules names the rules after the first, once each.
func otherRules(vs []policy.Violation) string {
	var out []string
	seen := map[policy.Rule]bool{vs[0].Rule: true}
	for _, v := range vs[1:] {
		if !seen[v.Rule] {
			seen[v.Rule] = true
			out = append(out, string(v.Rule))
		}
	}
	return strings.Join(out, ", ")
}

// targetFor builds the Target of the chosen evaluation, with its reasons.
func targetFor(sel *Selection) planfile.Target {
	e, f := sel.chosen, sel.facts
	t := planfile.Target{Version: e.version, Image: e.image, Distance: e.distance}
	if e.node != nil {
		t.Channels = e.node.Channels
		t.URL = e.node.Metadata[graph.MetadataURL]
	}
	for _, r := range e.risks {
		t.AcceptedRisks = append(t.AcceptedRisks, planfile.Risk{Name: r.Name, URL: r.URL, Message: r.Message})
	}
	// What moves, grouped by where it comes from.
	byFrom := map[string][]string{}
	for _, m := range e.moves {
		if m.From != m.To {
			byFrom[m.From] = append(byFrom[m.From], m.Component)
		}
	}
	var parts []string
	for _, from := range f.present {
		cs := byFrom[from]
		if len(cs) == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d from %s (%s)", len(cs), from, strings.Join(cs, ", ")))
	}
	stay := len(e.moves) - e.distance.Components
	r := "Nearest release every component can move to safely: no component needs to move"
	if e.distance.Components > 0 {
		r = fmt.Sprintf("Nearest release every component can move to safely: %s move", describeDistance(e.distance))
	}
	if len(parts) > 0 {
		r += ": " + strings.Join(parts, "; ")
	}
	if stay > 0 {
		r += fmt.Sprintf("; %d already run %s", stay, e.version)
	}
	t.Reasons = append(t.Reasons, r+".")
	if len(e.edges) > 0 {
		t.Reasons = append(t.Reasons, "Reachable by an update edge from every release the cluster runs: "+strings.Join(e.edges, "; ")+".")
	}
	if kas := kubeForRelease(e.version); kas != "" && f.kasOK {
		lo, hi := "", ""
		for _, v := range f.effectiveKubelets() {
			if lo == "" || inspect.CompareVersions(v, lo) < 0 {
				lo = v
			}
			hi = maxKube(hi, v)
		}
		if lo != "" {
			move := fmt.Sprintf("the kube-apiserver goes from %s to %s, one minor", f.kas.Version, strings.TrimSuffix(kas, ".0"))
			if kubeMinor(f.kas.Version) == kubeMinor(kas) {
				move = fmt.Sprintf("the kube-apiserver stays on %s", strings.TrimSuffix(kas, ".0"))
			}
			kubelets := fmt.Sprintf("no kubelet (%s to %s) is newer", lo, hi)
			if lo == hi {
				kubelets = fmt.Sprintf("every kubelet runs %s: none is newer", lo)
			}
			t.Reasons = append(t.Reasons, fmt.Sprintf("Kubernetes skew holds: %s; %s, none is further behind than %s.", move, kubelets, lagText(sel, kas, lo)))
		}
	}
	if r := retargetReason(sel); r != "" {
		t.Reasons = append(t.Reasons, r)
	}
	for _, n := range f.resolved {
		t.Reasons = append(t.Reasons, upperFirst(n)+".")
	}
	var nearer []string
	for _, c := range sel.Candidates {
		if c.Verdict == planfile.VerdictRejected && lessDistance(c.Distance, e.distance) {
			nearer = append(nearer, fmt.Sprintf("%s (%s)", c.Version, c.Rule))
		}
	}
	if len(nearer) > 0 {
		t.Reasons = append(t.Reasons, "Nearer releases break a rule: "+strings.Join(nearer, ", ")+"; see the alternatives.")
	}
	var claims []string
	for _, o := range f.operators {
		if !o.Verified {
			claims = append(claims, o.Name)
		}
	}
	if len(claims) > 0 {
		t.Reasons = append(t.Reasons, fmt.Sprintf("Only claimed, not verified (no running operator Deployment to check): %s.", strings.Join(claims, ", ")))
	} else {
		t.Reasons = append(t.Reasons, "Every ClusterOperator's version was verified against its running operator Deployment, not taken from status.")
	}
	if len(t.AcceptedRisks) > 0 {
		var ns []string
		for _, r := range t.AcceptedRisks {
			ns = append(ns, r.Name)
		}
		byCluster := clusterAccepted(f.s, sel.accept, ns)
		var byFlag []string
		for _, n := range ns {
			if !slices.Contains(byCluster, n) {
				byFlag = append(byFlag, n)
			}
		}
		if len(byFlag) > 0 {
			t.Reasons = append(t.Reasons, "Accepted conditional-update risks (--accept): "+strings.Join(byFlag, ", ")+".")
		}
		if len(byCluster) > 0 {
			t.Reasons = append(t.Reasons, "Conditional-update risks the admin already accepted (ClusterVersion spec.desiredUpdate.acceptRisks): "+strings.Join(byCluster, ", ")+".")
		}
	}
	return t
}

// lagText says which kubelet lag limit applied.
func lagText(sel *Selection, kas, oldest string) string {
	n, err := sel.pol.KubeletAllowedLag(oldest, kas)
	if err != nil {
		return "the skew policy"
	}
	if sel.pol.KubeletSkew == policy.KubeletSkewUpstream {
		return fmt.Sprintf("the upstream limit (%d minors)", n)
	}
	return fmt.Sprintf("OpenShift 4.%d's limit (%d minors)", inspect.OpenShiftMinorForKube(uint64(kubeMinor(kas))), n)
}
