package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/policy"
)

// TestRetargetAwayFromARiskyInFlightTarget: the second incident's update to
// 4.4.4 is exposed to EtcdSlow. 4.4.4 is demoted with the risk; 4.4.5, a
// z-stream of the same minor without it, is the target, and the
// set-desired-update step is the retarget's remediation.
func TestRetargetAwayFromARiskyInFlightTarget(t *testing.T) {
	s := healthyUpdating(t)
	addFinding(s, inspect.CodeConditionalRiskOnTarget, "clusterversion/version", map[string]string{"target": "4.4.4", "risks": "EtcdSlow"})
	g := testGraph(t, wireEdge{from: "4.4.3", to: "4.4.4"}, wireEdge{from: "4.4.3", to: "4.4.5"}, wireEdge{from: "4.4.4", to: "4.4.5"})
	pol := policy.Default()
	pol.Downgrades = policy.DowngradesNever // no rollback to 4.4.3: the retarget is the answer
	sel, err := Select(s, g, pol, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Target.Version != "4.4.5" {
		t.Fatalf("target %s; candidates %v", sel.Target.Version, versionsOf(sel.Candidates))
	}
	c := candidateOf(t, sel.Candidates, "4.4.4")
	if c.Verdict != planfile.VerdictDemoted || c.Rule != string(policy.RuleUnacceptedRisk) || !strings.Contains(c.Reason, "exposed to EtcdSlow (ConditionalRiskOnTarget)") || c.Risks[0].Name != "EtcdSlow" {
		t.Fatalf("4.4.4: %+v", c)
	}
	if !strings.Contains(strings.Join(sel.Target.Reasons, " "), "Retarget within the minor under way: the cluster updates to 4.4.4, which inspect found exposed to EtcdSlow; 4.4.5 is a z-stream of the same minor that is not") {
		t.Fatalf("reasons %v", sel.Target.Reasons)
	}
	r := sel.retargetRemediation([]planfile.Step{{ID: "009-set-desired-update", Action: planfile.ActionSetDesiredUpdate, DesiredUpdate: &planfile.DesiredUpdate{Version: "4.4.5"}}})
	if r == nil || r.Remedy != planfile.RemedyRetarget || r.Finding != inspect.CodeConditionalRiskOnTarget || r.Steps[0] != "009-set-desired-update" {
		t.Fatalf("remediation %+v", r)
	}
	// Accepting the risk makes the in-flight target the nearest again.
	sel, err = Select(s, g, pol, []string{"EtcdSlow"})
	if err != nil || sel.Target.Version != "4.4.4" {
		t.Fatalf("with the risk accepted: %v %v", err, sel)
	}
}

func TestUpgradeableDoesNotBlockARetargetWithinTheMinorUnderWay(t *testing.T) {
	moves := []policy.Move{{Component: "dns", From: "4.3.19", To: "4.4.5"}}
	blockers := []policy.Blocker{{Source: "clusterversion/version", Reason: "AdminAckRequired"}}
	if v, _ := policy.Default().CheckUpgradeable(moves, blockers, policy.History{Desired: "4.4.4", Updating: true}); v != nil {
		t.Fatalf("a retarget within 4.4 is blocked: %v", v)
	}
	if v, _ := policy.Default().CheckUpgradeable(moves, blockers, policy.History{Desired: "4.4.4"}); v == nil {
		t.Fatal("a minor hop without an update under way is not blocked")
	}
	if v, _ := policy.Default().CheckUpgradeable([]policy.Move{{Component: "dns", From: "4.4.4", To: "4.5.1"}}, blockers, policy.History{Desired: "4.4.4", Updating: true}); v == nil {
		t.Fatal("a hop past the minor under way is not blocked")
	}
}

// TestAcceptedPromiseResolvesItsBlocker: an admin gate's Upgradeable=False does
// not reject a minor hop once its acknowledgement is accepted (the plan makes it).
func TestAcceptedPromiseResolvesItsBlocker(t *testing.T) {
	s := healthyUpdating(t)
	adminGate(s, "ack-4.4-kube-1.18-api-removals-in-4.5")
	s.ClusterVersion.Status.Conditions = append(s.ClusterVersion.Status.Conditions, configv1.ClusterOperatorStatusCondition{
		Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: "AdminAckRequired", Message: "ack the API removals"})
	f := newFacts(s)
	kept, notes := resolvedBlockers(s, f.blockers, []string{"admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5"})
	if len(kept) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "resolved by the plan's own remedy (--accept admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5)") {
		t.Fatalf("kept %v notes %v", kept, notes)
	}
	if kept, _ := resolvedBlockers(s, f.blockers, nil); len(kept) != 1 {
		t.Fatalf("without --accept the blocker stays: %v", kept)
	}
}

// TestRealDataRetarget uses a real ClusterVersion of oc adm upgrade recommend's
// examples (4.12.16, channel stable-4.13, its availableUpdates and
// conditionalUpdates as the cluster's update service evaluated them): the cluster
// is modeled updating to 4.13.36, which the CVO found exposed to
// HighNodeStatusReportFrequency (Recommended=False with that reason), while
// machine-config says Upgradeable=False. The nearest z-stream of 4.13 above the
// in-flight target that the service recommends is the retarget, and
// Upgradeable=False does not reject it.
func TestRealDataRetarget(t *testing.T) {
	path := filepath.Join(shareddata.RealData(t, "oc-upgrade-recommend-examples"), "4.12.16-longest-recommended-cv.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cv configv1.ClusterVersion
	if err := yaml.Unmarshal(data, &cv); err != nil {
		t.Fatal(err)
	}
	const inFlight = "4.13.36"
	var risky *configv1.ConditionalUpdate
	for i := range cv.Status.ConditionalUpdates {
		if cv.Status.ConditionalUpdates[i].Release.Version == inFlight {
			risky = &cv.Status.ConditionalUpdates[i]
		}
	}
	if risky == nil {
		t.Fatalf("%s has no conditional update %s", path, inFlight)
	}
	reason := ""
	for _, c := range risky.Conditions {
		if c.Type == "Recommended" && c.Status == "False" {
			reason = c.Reason
		}
	}
	if reason != "HighNodeStatusReportFrequency" {
		t.Fatalf("the real data changed: %s Recommended reason %q", inFlight, reason)
	}
	from := cv.Status.History[0]
	cv.Status.History = []configv1.UpdateHistory{{State: configv1.PartialUpdate, Version: inFlight, Image: risky.Release.Image}, from}
	cv.Status.Desired = risky.Release
	cv.Status.Conditions = append(cv.Status.Conditions, configv1.ClusterOperatorStatusCondition{
		Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse, Reason: "PoolUpdating", Message: "One or more machine config pools are updating"})
	s := &inspect.Snapshot{ClusterVersion: &inspect.ClusterVersion{Spec: cv.Spec, Status: cv.Status}}
	for _, name := range []string{"dns", "etcd", "kube-apiserver", "machine-config", "network"} {
		s.ClusterOperators = append(s.ClusterOperators, inspect.ClusterOperator{Name: name, Versions: []configv1.OperandVersion{{Name: "operator", Version: from.Version}}})
	}
	s.Findings = []inspect.Finding{{Code: inspect.CodeConditionalRiskOnTarget, Class: inspect.ClassBlocks, Subject: "clusterversion/version",
		Details: map[string]string{"target": inFlight, "risks": reason, "image": risky.Release.Image}}}

	sel, err := Select(s, recommendGraph(t, &cv, from.Version), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Target.Version != "4.13.37" {
		t.Fatalf("target %s; candidates %v", sel.Target.Version, versionsOf(sel.Candidates)[:10])
	}
	if c := candidateOf(t, sel.Candidates, inFlight); c.Rule != string(policy.RuleUnacceptedRisk) || c.Risks[0].Name != "HighNodeStatusReportFrequency" ||
		!strings.HasPrefix(c.Risks[0].URL, "https://") {
		t.Fatalf("%s: %+v", inFlight, c)
	}
	if c := candidateOf(t, sel.Candidates, "4.13.10"); c.Rule != string(policy.RuleDowngradeNotPreviousHistory) || !strings.Contains(c.Reason, "an update to 4.13.36 is under way") {
		t.Fatalf("4.13.10 (below the in-flight target): %+v", c)
	}
	if c := candidateOf(t, sel.Candidates, "4.12.64"); c.Rule != string(policy.RuleNoCrossMinorDowngrade) {
		t.Fatalf("4.12.64 (below the minor under way): %+v", c)
	}
	if !strings.Contains(strings.Join(sel.Target.Reasons, " "), "Upgradeable=False does not block a retarget") {
		t.Fatalf("reasons %v", sel.Target.Reasons)
	}
}

// recommendGraph turns a ClusterVersion's availableUpdates (supported edges) and
// its conditionalUpdates that are not recommended (conditional edges with their
// risks) into an update-service graph from the cluster's version.
func recommendGraph(t *testing.T, cv *configv1.ClusterVersion, from string) *graph.Result {
	t.Helper()
	type node struct {
		Version string `json:"version"`
		Payload string `json:"payload"`
	}
	type risk struct {
		Name          string           `json:"name"`
		URL           string           `json:"url"`
		Message       string           `json:"message"`
		MatchingRules []map[string]any `json:"matchingRules"`
	}
	type cond struct {
		Edges []map[string]string `json:"edges"`
		Risks []risk              `json:"risks"`
	}
	doc := struct {
		Version          int     `json:"version"`
		Nodes            []node  `json:"nodes"`
		Edges            [][]int `json:"edges"`
		ConditionalEdges []cond  `json:"conditionalEdges"`
	}{Version: 1, Edges: [][]int{}}
	index := map[string]int{}
	add := func(v, image string) int {
		if i, ok := index[v]; ok {
			return i
		}
		index[v] = len(doc.Nodes)
		doc.Nodes = append(doc.Nodes, node{Version: v, Payload: image})
		return index[v]
	}
	src := add(from, cv.Status.History[len(cv.Status.History)-1].Image)
	available := map[string]bool{}
	for _, u := range cv.Status.AvailableUpdates {
		available[u.Version] = true
		doc.Edges = append(doc.Edges, []int{src, add(u.Version, u.Image)})
	}
	for _, cu := range cv.Status.ConditionalUpdates {
		if available[cu.Release.Version] {
			continue
		}
		add(cu.Release.Version, cu.Release.Image)
		c := cond{Edges: []map[string]string{{"from": from, "to": cu.Release.Version}}}
		for _, r := range cu.Risks {
			c.Risks = append(c.Risks, risk{Name: r.Name, URL: r.URL, Message: r.Message, MatchingRules: []map[string]any{{"type": "Always"}}})
		}
		doc.ConditionalEdges = append(doc.ConditionalEdges, c)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Parse("recommend-graph.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return &graph.Result{Graph: g, Digest: planfile.DigestBytes(data)}
}
