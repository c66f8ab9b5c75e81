package inspect

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The wedge summary answers "why is this cluster stuck" in a few lines: the
// findings are grouped by cause (seven nodes whose drains one PodDisruptionBudget
// holds are one line), the groups a deeper cause explains are folded into it (the
// pool those nodes are in, machine-config Degraded because of that pool, the CVO
// Failing because of machine-config), and what is left is ranked by the layer of
// the update it holds first. docs/findings.md documents the order.

// tierOf is the layer of the update a finding code holds (FindingSpec.Tier);
// an unknown code is context.
func tierOf(code string) int {
	if sp := findingSpecs[code]; sp != nil {
		return sp.Tier
	}
	return 9
}

func codeOrder(code string) int {
	for i, c := range Codes {
		if c == code {
			return i
		}
	}
	return len(Codes)
}

// less orders findings within a group: the most blocking layer, then severity,
// then documentation order and subject.
func wedgeLess(x, y Finding) bool {
	if (x.Class == ClassBlocks) != (y.Class == ClassBlocks) {
		return x.Class == ClassBlocks
	}
	if tierOf(x.Code) != tierOf(y.Code) {
		return tierOf(x.Code) < tierOf(y.Code)
	}
	if severityRank(x.Severity) != severityRank(y.Severity) {
		return severityRank(x.Severity) < severityRank(y.Severity)
	}
	if codeOrder(x.Code) != codeOrder(y.Code) {
		return codeOrder(x.Code) < codeOrder(y.Code)
	}
	return x.Subject < y.Subject
}

// wedgeGroup is one set of findings that share a cause.
type wedgeGroup struct {
	key     string
	members []Finding
	parent  string // the key of the group that explains this one, "" for a root
}

// Wedges computes the wedge summary of a snapshot from its findings: one line per
// cause, most blocking first (docs/findings.md "The wedge summary"). It is pure;
// Refresh stores it in Snapshot.Wedges.
func Wedges(s *Snapshot) []Wedge {
	w := &wedger{s: s, groups: map[string]*wedgeGroup{}}
	for _, f := range s.Findings {
		k := w.keyOf(f)
		g := w.groups[k]
		if g == nil {
			g = &wedgeGroup{key: k}
			w.groups[k] = g
			w.order = append(w.order, k)
		}
		g.members = append(g.members, f)
	}
	for _, k := range w.order {
		w.groups[k].parent = w.parentOf(w.groups[k])
	}
	// Resolve every group to its root; a cycle (none is expected) stops at the
	// group where it closes.
	root := func(k string) string {
		seen := map[string]bool{}
		for w.groups[k].parent != "" && !seen[k] {
			seen[k] = true
			k = w.groups[k].parent
		}
		return k
	}
	folded := map[string][]Finding{}
	var roots []string
	for _, k := range w.order {
		r := root(k)
		if r == k {
			roots = append(roots, k)
			continue
		}
		folded[r] = append(folded[r], w.groups[k].members...)
	}
	out := make([]Wedge, 0, len(roots))
	type ranked struct {
		wedge Wedge
		best  Finding // the member that ranks the line
	}
	var lines []ranked
	for _, k := range roots {
		g := w.groups[k]
		sort.SliceStable(g.members, func(i, j int) bool { return wedgeLess(g.members[i], g.members[j]) })
		cause := g.members[0]
		follows := folded[k]
		sort.SliceStable(follows, func(i, j int) bool { return wedgeLess(follows[i], follows[j]) })
		best := cause
		class := ClassInforms
		for _, f := range append(append([]Finding(nil), g.members...), follows...) {
			if f.Class == ClassBlocks {
				class = ClassBlocks
			}
			if wedgeLess(f, best) {
				best = f
			}
		}
		var subjects []string
		seen := map[string]bool{}
		for _, f := range append(append([]Finding(nil), g.members...), follows...) {
			if !seen[f.Subject] {
				seen[f.Subject] = true
				subjects = append(subjects, f.Subject)
			}
		}
		summary := w.summary(g.members)
		if len(follows) > 0 {
			summary += " It explains " + followText(follows) + "."
		}
		var keys []string
		for _, f := range append(append([]Finding(nil), g.members...), follows...) {
			keys = append(keys, f.Code+" "+f.Subject)
		}
		lines = append(lines, ranked{Wedge{Code: cause.Code, Class: class, Summary: summary, Subjects: subjects, Next: w.next(g.members), findings: keys}, best})
	}
	sort.SliceStable(lines, func(i, j int) bool {
		x, y := lines[i], lines[j]
		if (x.wedge.Class == ClassBlocks) != (y.wedge.Class == ClassBlocks) {
			return x.wedge.Class == ClassBlocks
		}
		return wedgeLess(x.best, y.best)
	})
	for i, l := range lines {
		l.wedge.Rank = i + 1
		out = append(out, l.wedge)
	}
	return out
}

type wedger struct {
	s      *Snapshot
	groups map[string]*wedgeGroup
	order  []string
}

// keyOf returns the group a finding belongs to (FindingSpec's group rule).
func (w *wedger) keyOf(f Finding) string {
	if sp := findingSpecs[f.Code]; sp != nil && sp.group != nil {
		return sp.group(w, f)
	}
	return f.Code + "|" + f.Subject
}

func (w *wedger) has(code, subject string) bool {
	for _, f := range w.s.Findings {
		if f.Code == code && f.Subject == subject {
			return true
		}
	}
	return false
}

// groupWith returns the key of the group holding a finding with code and
// subject, "" when there is none.
func (w *wedger) groupWith(code, subject string) string {
	for _, k := range w.order {
		for _, f := range w.groups[k].members {
			if f.Code == code && (subject == "" || f.Subject == subject) {
				return k
			}
		}
	}
	return ""
}

func (w *wedger) exists(key string) string {
	if _, ok := w.groups[key]; ok {
		return key
	}
	return ""
}

// preconditionReason finds the reason of a failed precondition: `Precondition %q
// failed because of %q` (cluster-version-operator pkg/payload/precondition).
var preconditionReason = regexp.MustCompile(`Precondition "[^"]+" failed because of "([^"]+)"`)

// poolInMessage finds the pool machine-config's Degraded message names:
// "MachineConfigPool %s is not ready" and "required MachineConfigPool %s is
// paused and cannot sync until it is unpaused" (machine-config-operator
// pkg/operator/sync.go, syncRequiredMachineConfigPools), or "pool %s is|has".
var poolInMessage = regexp.MustCompile(`MachineConfigPool (\S+) is (?:not ready|paused)|pool (\S+) (?:is|has) `)

// parentOf returns the group that explains g ("" when none does): the parent
// rule of its first finding's code (every member of a group shares it).
func (w *wedger) parentOf(g *wedgeGroup) string {
	sp := findingSpecs[g.members[0].Code]
	if sp == nil || sp.parent == nil {
		return ""
	}
	kind, arg, _ := strings.Cut(g.key, "|")
	return sp.parent(w, g, kind, arg)
}

func arg0(g *wedgeGroup) string { return g.members[0].Subject }

// hasClass reports whether a group has a finding of the class.
func (w *wedger) hasClass(key, class string) bool {
	for _, m := range w.groups[key].members {
		if m.Class == class {
			return true
		}
	}
	return false
}

// blockingGroupWith returns the key of the group holding a finding with code
// that blocks the update, "" when there is none.
func (w *wedger) blockingGroupWith(code string) string {
	for _, k := range w.order {
		for _, f := range w.groups[k].members {
			if f.Code == code && f.Class == ClassBlocks {
				return k
			}
		}
	}
	return ""
}

// upgradeableTarget returns the group an Upgradeable=False class belongs to: its
// own line, or the admin gate or the overrides it reports.
func (w *wedger) upgradeableTarget(class string) string {
	switch class {
	case UpgradeClassAdminAck:
		if k := w.exists("admin-ack"); k != "" {
			return k
		}
	case UpgradeClassOverrides:
		if k := w.groupWith(CodeUnmanagedOverrides, ""); k != "" {
			return k
		}
	}
	return w.exists("upgradeable|" + class)
}

// cvUpgradeableClasses returns the classes of the reasons ClusterVersion's
// Upgradeable=False aggregates (its operators' lines and a MultipleReasons list),
// in the message's order.
func cvUpgradeableClasses(s *Snapshot) []string {
	c := cvCondition(s.ClusterVersion, "Upgradeable")
	if c == nil {
		return nil
	}
	var out []string
	if rest, ok := strings.CutPrefix(c.Message, "Cluster should not be upgraded between minor or major versions for multiple reasons: "); ok {
		line, _, _ := strings.Cut(rest, "\n")
		for _, r := range strings.Split(line, ",") {
			if r = strings.TrimSpace(r); r != "" && r != openshift.ReasonClusterOperatorsNotUpgradable {
				out = append(out, ClassifyUpgradeable(r))
			}
		}
	}
	for _, it := range parseUpgradeableItems(c.Message) {
		out = append(out, ClassifyUpgradeable(it.Reason))
	}
	return out
}

func (w *wedger) hasCode(key, code string) bool {
	for _, m := range w.groups[key].members {
		if m.Code == code {
			return true
		}
	}
	return false
}

// conditionOfCode returns the ClusterOperator condition type an operator finding
// reads (FindingSpec.Condition: Degraded for OperatorDegraded, Available for
// OperatorUnavailable).
func conditionOfCode(code string) string {
	if sp := findingSpecs[code]; sp != nil {
		return sp.Condition
	}
	return ""
}

// operandOf returns the static-pod operand a ClusterOperator
// reports ("" when it reports none).
func operandOf(co string) string {
	for _, c := range StaticPodComponents {
		if c.ClusterOperator == co {
			return c.Component
		}
	}
	return ""
}

// followText lists the findings a wedge explains: "7 NodeDegraded,
// PoolDegraded machineconfigpool/worker, ClusterVersionFailing".
func followText(fs []Finding) string {
	var codes []string
	by := map[string][]string{}
	for _, f := range fs {
		if _, ok := by[f.Code]; !ok {
			codes = append(codes, f.Code)
		}
		by[f.Code] = append(by[f.Code], f.Subject)
	}
	var parts []string
	for _, c := range codes {
		subs := by[c]
		switch {
		case len(subs) > 1:
			parts = append(parts, fmt.Sprintf("%d %s", len(subs), c))
		case subs[0] == cvSubject:
			parts = append(parts, c)
		default:
			parts = append(parts, c+" "+subs[0])
		}
	}
	return strings.Join(parts, ", ")
}

// names returns the last path element of each subject ("node/a" -> "a").
func names(fs []Finding) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range fs {
		n := f.Subject
		if i := strings.LastIndex(n, "/"); i >= 0 {
			n = n[i+1:]
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func withCode(fs []Finding, code string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

// firstSentence returns the message up to its first sentence end.
func firstSentence(msg string) string {
	if i := strings.Index(msg, ". "); i > 0 {
		return msg[:i+1]
	}
	return msg
}

// summary is the one sentence of a group (FindingSpec's summary rule).
func (w *wedger) summary(ms []Finding) string {
	if sp := findingSpecs[ms[0].Code]; sp != nil && sp.summary != nil {
		return sp.summary(w, ms)
	}
	return summaryDefault(w, ms)
}

// upgradeEffect says what an Upgradeable-like finding does now.
func upgradeEffect(f Finding) string {
	if f.Class == ClassBlocks {
		return "the minor update requested is blocked."
	}
	return "the next minor update will be blocked; z-streams are not."
}

func countedNodes(nodes []string) string {
	if len(nodes) == 1 {
		return "node " + nodes[0]
	}
	return fmt.Sprintf("%d nodes (%s)", len(nodes), nodeList(nodes))
}

// next is the command that comes next for a group (FindingSpec's Next or
// next rule): a recover plan for what recover remedies, the oc command for
// what only the admin can do.
func (w *wedger) next(ms []Finding) string {
	if sp := findingSpecs[ms[0].Code]; sp != nil {
		if sp.next != nil {
			return sp.next(w, ms)
		}
		if sp.Next != "" {
			return sp.Next
		}
	}
	return nextStatus
}

func (w *wedger) pausedPool() string {
	for _, p := range w.s.MachineConfigPools {
		if p.Paused {
			return p.Name
		}
	}
	return ""
}

func (w *wedger) operatorOf(component string) string {
	if c := StaticPodComponentFor(component); c != nil {
		return c.ClusterOperator
	}
	return ""
}

// WhyStuck returns the wedge summary, most blocking first (Snapshot.Wedges,
// computed when it was not): the lines the report, the Markdown report and the
// TUI overview show first.
func (s *Snapshot) WhyStuck() []Wedge {
	if s.Wedges == nil && s.Findings != nil {
		s.Wedges = Wedges(s)
	}
	return s.Wedges
}

// Blocking returns the wedges that hold the update (ClassBlocks).
func (s *Snapshot) Blocking() []Wedge {
	var out []Wedge
	for _, w := range s.WhyStuck() {
		if w.Class == ClassBlocks {
			out = append(out, w)
		}
	}
	return out
}

// getCommand is the oc command that shows the object a subject
// ("<kind>/<name>" or "<kind>/<namespace>/<name>") names.
func getCommand(subject string) string {
	parts := strings.Split(subject, "/")
	switch len(parts) {
	case 2:
		return "oc get " + parts[0] + " " + parts[1] + " -o yaml"
	case 3:
		return "oc -n " + parts[1] + " get " + parts[0] + " " + parts[2] + " -o yaml"
	}
	return "oc adm upgrade status"
}
