package plan

import (
	"errors"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/graph"
)

// acceptInCluster sets ClusterVersion spec.desiredUpdate.acceptRisks, as `oc
// adm upgrade accept` does (a merge patch of that field alone).
func acceptInCluster(names ...string) func(*inspect.Snapshot) {
	return func(s *inspect.Snapshot) {
		cv := s.ClusterVersion
		if cv.Spec.DesiredUpdate == nil {
			cv.Spec.DesiredUpdate = &configv1.Update{}
		}
		for _, n := range names {
			cv.Spec.DesiredUpdate.AcceptRisks = append(cv.Spec.DesiredUpdate.AcceptRisks, configv1.AcceptRisk{Name: n})
		}
	}
}

// reports444 makes the cluster list 4.4.4 as a conditional update with the
// risk R: with an Applies condition (a 2026 CVO) when applies is set, and the
// entry's Recommended condition.
func reports444(applies, recommended metav1.ConditionStatus) func(*inspect.Snapshot) {
	return func(s *inspect.Snapshot) {
		r := configv1.ConditionalUpdateRisk{Name: "R", URL: "https://issues.redhat.com/browse/OCPBUGS-1", Message: "R breaks etcd.", MatchingRules: []configv1.ClusterCondition{{Type: "Always"}}}
		cu := configv1.ConditionalUpdate{Release: configv1.Release{Version: "4.4.4", Image: image444}, Risks: []configv1.ConditionalUpdateRisk{r},
			Conditions: []metav1.Condition{{Type: "Recommended", Status: recommended, Reason: "R"}}}
		if applies != "" {
			cu.RiskNames = []string{"R"}
			r.Conditions = []metav1.Condition{{Type: "Applies", Status: applies, Reason: "Match"}}
			s.ClusterVersion.Status.ConditionalUpdateRisks = []configv1.ConditionalUpdateRisk{r}
		}
		s.ClusterVersion.Status.ConditionalUpdates = append(s.ClusterVersion.Status.ConditionalUpdates, cu)
	}
}

// TestSelectReadsTheClusterRiskAPI: the risks the admin accepted in the
// cluster (spec.desiredUpdate.acceptRisks) count as --accept, and a release the
// cluster reports exposed (status.conditionalUpdates, conditionalUpdateRisks'
// Applies) carries its risks under the one name --accept and oc use; a cluster
// without the 2026 fields keeps working.
func TestSelectReadsTheClusterRiskAPI(t *testing.T) {
	conditional := func(t testing.TB) *graph.Result {
		return testGraph(t, wireEdge{from: "4.3.19", to: "4.4.4", risks: []string{"EtcdSlow"}}, wireEdge{from: "4.4.3", to: "4.4.4"})
	}
	supported := func(t testing.TB) *graph.Result {
		return testGraph(t, wireEdge{from: "4.3.19", to: "4.4.4"}, wireEdge{from: "4.4.3", to: "4.4.4"})
	}
	for _, tc := range []struct {
		name   string
		graph  func(testing.TB) *graph.Result
		mutate []func(*inspect.Snapshot)
		accept []string
		// target "" wants NoTargetError with risks.
		target string
		risks  []string
		// reason is text the target's reasons (or 4.4.4's candidate reason) must hold.
		reason string
	}{
		{name: "a conditional edge, nothing accepted", graph: conditional, risks: []string{"EtcdSlow"}, reason: "not named in --accept: EtcdSlow"},
		{name: "acceptRisks accepts the edge's risk", graph: conditional, mutate: []func(*inspect.Snapshot){acceptInCluster("EtcdSlow")},
			target: "4.4.4", reason: "already accepted (ClusterVersion spec.desiredUpdate.acceptRisks): EtcdSlow"},
		{name: "--accept and acceptRisks are told apart", graph: conditional, accept: []string{"EtcdSlow"}, mutate: []func(*inspect.Snapshot){acceptInCluster("EtcdSlow")},
			target: "4.4.4", reason: "Accepted conditional-update risks (--accept): EtcdSlow"},
		{name: "acceptRisks naming another risk accepts nothing here", graph: conditional, mutate: []func(*inspect.Snapshot){acceptInCluster("Other")},
			risks: []string{"EtcdSlow"}},
		{name: "2026: the cluster reports 4.4.4 exposed", graph: supported, mutate: []func(*inspect.Snapshot){reports444(metav1.ConditionTrue, metav1.ConditionFalse)},
			risks: []string{"R"}, reason: "the cluster reports 4.4.4 exposed to R"},
		{name: "2026: an Unknown evaluation counts as exposed", graph: supported, mutate: []func(*inspect.Snapshot){reports444(metav1.ConditionUnknown, metav1.ConditionUnknown)},
			risks: []string{"R"}},
		{name: "2026: exposed and accepted with --accept", graph: supported, accept: []string{"R"}, mutate: []func(*inspect.Snapshot){reports444(metav1.ConditionTrue, metav1.ConditionFalse)},
			target: "4.4.4", reason: "(--accept): R"},
		{name: "2026: exposed and accepted in the cluster", graph: supported, mutate: []func(*inspect.Snapshot){reports444(metav1.ConditionTrue, metav1.ConditionTrue), acceptInCluster("R")},
			target: "4.4.4", reason: "spec.desiredUpdate.acceptRisks): R"},
		{name: "2026: a risk that does not apply holds nothing", graph: supported, mutate: []func(*inspect.Snapshot){reports444(metav1.ConditionFalse, metav1.ConditionTrue)},
			target: "4.4.4"},
		{name: "old cluster: not recommended, no Applies", graph: supported, mutate: []func(*inspect.Snapshot){reports444("", metav1.ConditionFalse)},
			risks: []string{"R"}},
		{name: "old cluster: recommended, no Applies", graph: supported, mutate: []func(*inspect.Snapshot){reports444("", metav1.ConditionTrue)},
			target: "4.4.4"},
		{name: "old cluster without any of it", graph: supported, target: "4.4.4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot(t, incident1)
			for _, m := range tc.mutate {
				m(s)
			}
			inspect.Refresh(s)
			sel, err := Select(s, tc.graph(t), nil, tc.accept)
			if tc.target == "" {
				var nte *NoTargetError
				if !errors.As(err, &nte) || nte.ExitCode() != 3 {
					t.Fatalf("want NoTargetError exit 3, got %v", err)
				}
				if !slices.Equal(nte.Risks, tc.risks) {
					t.Fatalf("risks %v, want %v", nte.Risks, tc.risks)
				}
				if c := candidateOf(t, nte.Selection.Candidates, "4.4.4"); !strings.Contains(c.Reason, tc.reason) {
					t.Fatalf("4.4.4: reason %q lacks %q", c.Reason, tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sel.Target.Version != tc.target {
				t.Fatalf("target %s, want %s", sel.Target.Version, tc.target)
			}
			if r := strings.Join(sel.Target.Reasons, "\n"); !strings.Contains(r, tc.reason) {
				t.Fatalf("reasons lack %q:\n%s", tc.reason, r)
			}
		})
	}
}

func TestWithClusterAccepted(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cluster []string
		accept  []string
		want    []string
	}{
		{"none anywhere", nil, nil, nil},
		{"flags only", nil, []string{"A"}, []string{"A"}},
		{"the cluster's added once", []string{"A", "B"}, []string{"A"}, []string{"A", "B"}},
		{"a remedy name in acceptRisks is no promise", []string{"remove-overrides", "admin-ack:x", "B"}, nil, []string{"B"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &inspect.Snapshot{ClusterVersion: &inspect.ClusterVersion{}}
			acceptInCluster(tc.cluster...)(s)
			in := slices.Clone(tc.accept)
			got := withClusterAccepted(s, in)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if !slices.Equal(in, tc.accept) {
				t.Fatalf("the --accept list was changed: %v", in)
			}
		})
	}
}
