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
	"github.com/openshift-recover/recover/plan/planfile"
	"github.com/openshift-recover/recover/plan/policy"
)

// setUpgradeableFalse marks a ClusterOperator (or ClusterVersion, name "") Upgradeable=False.
func setUpgradeableFalse(s *inspect.Snapshot, name string) {
	c := configv1.ClusterOperatorStatusCondition{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse,
		Reason: "AdminAckRequired", Message: "admin must ack the 4.4 API removals", LastTransitionTime: metav1.Unix(0, 0)}
	if name == "" {
		s.ClusterVersion.Status.Conditions = append(s.ClusterVersion.Status.Conditions, c)
		return
	}
	co := s.ClusterOperator(name)
	for i := range co.Conditions {
		if co.Conditions[i].Type == configv1.OperatorUpgradeable {
			co.Conditions[i] = c
			return
		}
	}
	co.Conditions = append(co.Conditions, c)
}

func withPolicy(yaml string) *policy.Policy {
	p, err := policy.Parse("test-policy.yaml", []byte("apiVersion: recover.openshift.io/v1alpha1\nkind: TransitionPolicy\n"+yaml))
	if err != nil {
		panic(err)
	}
	return p
}

// TestSelect is the table of target choices: both seed incidents, each rule's
// reject and pass cases, Upgradeable=False on a minor hop, conditional risks with
// and without --accept, no safe target, and --policy overrides.
func TestSelect(t *testing.T) {
	type want struct {
		target string
		// exit is the NoTargetError exit code when no target is chosen.
		exit int
		// verdicts maps candidate -> "verdict/rule" (rule "" for chosen).
		verdicts map[string]string
		// reasons maps candidate -> text its reason must contain.
		reasons map[string]string
		risks   []string
	}
	full := func(t testing.TB) *graph.Result { return exampleGraphResult(t) }
	for _, tc := range []struct {
		name   string
		mg     string
		mutate func(*inspect.Snapshot)
		graph  func(testing.TB) *graph.Result
		policy *policy.Policy
		accept []string
		want   want
	}{
		{
			// Incident 1: 6 operators at 4.3.19, 5 at 4.4.3, a 4.4 kubelet on master-0.
			// 4.3.19 -> 4.4.3 is blocked (blocked-edges/4.4.3.yaml, from 4\.3\..*), so
			// 4.4.4 (edges from 4.3.19 and 4.4.3) is the nearest.
			name: "incident 1: mixed 4.3.19/4.4.3 goes to 4.4.4", mg: incident1, graph: full,
			want: want{target: "4.4.4",
				verdicts: map[string]string{"4.4.4": "chosen/", "4.4.5": "demoted/farther", "4.4.3": "rejected/blocked-edge",
					"4.3.19": "rejected/no-cross-minor-downgrade", "4.3.18": "rejected/no-cross-minor-downgrade"},
				reasons: map[string]string{"4.4.3": "blocked-edges/4.4.3.yaml: Updates from 4.3 to 4.4.3 can stick",
					"4.3.19": "dns, ingress, machine-config, network, openshift-samples run 4.4.3", "4.4.5": "farther than 4.4.4"}},
		},
		{
			// Incident 2: 7 operators at 4.4.4 (kube-apiserver's operand unverified on
			// master-2), 4 at 4.4.3; rolling back to 4.4.3 is allowed (previous history
			// entry) but moves 7 components, forward to 4.4.4 moves 4.
			name: "incident 2: partial 4.4.3 -> 4.4.4 stays on 4.4.4", mg: incident2, graph: full,
			want: want{target: "4.4.4",
				verdicts: map[string]string{"4.4.4": "chosen/", "4.4.3": "rejected/downgrade-not-previous-history", "4.4.5": "demoted/farther", "4.3.19": "rejected/no-cross-minor-downgrade"},
				reasons:  map[string]string{"4.4.3": "downgrades: Never"}},
		},
		{
			// The admin's explicit request for rollbacks to the previous entry:
			// the rollback is allowed but moves 7 components, forward moves 4.
			name: "downgrades: PreviousHistory demotes the rollback", mg: incident2, graph: full, policy: withPolicy("downgrades: PreviousHistory\n"),
			want: want{target: "4.4.4",
				verdicts: map[string]string{"4.4.4": "chosen/", "4.4.3": "demoted/farther"},
				reasons:  map[string]string{"4.4.3": "7 components"}},
		},
		{
			name: "downgrades: Never rejects the rollback", mg: incident2, graph: full, policy: withPolicy("downgrades: Never\n"),
			want: want{target: "4.4.4", verdicts: map[string]string{"4.4.3": "rejected/downgrade-not-previous-history"},
				reasons: map[string]string{"4.4.3": "downgrades: Never"}},
		},
		{
			name: "rollback not to the previous history entry", mg: incident2, policy: withPolicy("downgrades: PreviousHistory\n"), graph: func(t testing.TB) *graph.Result {
				return testGraph(t, wireEdge{from: "4.4.3", to: "4.4.4"}, wireEdge{from: "4.3.18", to: "4.4.3"})
			},
			mutate: func(s *inspect.Snapshot) {
				// history: Partial 4.4.4, Completed 4.4.3 -> make the previous entry 4.4.2.
				s.ClusterVersion.Status.History[1].Version = "4.4.2"
			},
			want: want{target: "4.4.4", verdicts: map[string]string{"4.4.3": "rejected/downgrade-not-previous-history"},
				reasons: map[string]string{"4.4.3": "only the previous history entry (4.4.2)"}},
		},
		{
			name: "Upgradeable=False blocks the minor hop", mg: incident1, graph: full,
			mutate: func(s *inspect.Snapshot) { setUpgradeableFalse(s, "kube-apiserver") },
			want: want{exit: 6, verdicts: map[string]string{"4.4.4": "rejected/upgradeable-false", "4.4.5": "rejected/upgradeable-false"},
				reasons: map[string]string{"4.4.4": "clusteroperator/kube-apiserver Upgradeable=False (AdminAckRequired): admin must ack"}},
		},
		{
			name: "ClusterVersion Upgradeable=False blocks the minor hop too", mg: incident1, graph: full,
			mutate: func(s *inspect.Snapshot) { setUpgradeableFalse(s, "") },
			want:   want{exit: 6, verdicts: map[string]string{"4.4.4": "rejected/upgradeable-false"}, reasons: map[string]string{"4.4.4": "clusterversion/version Upgradeable=False"}},
		},
		{
			name: "Upgradeable=False does not block a patch hop", mg: incident2, graph: full,
			mutate: func(s *inspect.Snapshot) { setUpgradeableFalse(s, "kube-apiserver") },
			want:   want{target: "4.4.4"},
		},
		{
			name: "upgradeable: Force lets the minor hop through (with force)", mg: incident1, graph: full, policy: withPolicy("upgradeable: Force\n"),
			mutate: func(s *inspect.Snapshot) { setUpgradeableFalse(s, "kube-apiserver") },
			want:   want{target: "4.4.4"},
		},
		{
			name: "maxMinorHop: 0 leaves no target for incident 1", mg: incident1, graph: full, policy: withPolicy("maxMinorHop: 0\n"),
			want: want{exit: 6, verdicts: map[string]string{"4.4.4": "rejected/minor-hop-too-large"},
				reasons: map[string]string{"4.4.4": "more than 0 minor(s) up"}},
		},
		{
			name: "minor hop too large", mg: incident1, graph: func(t testing.TB) *graph.Result {
				return testGraph(t, wireEdge{from: "4.3.19", to: "4.5.1"}, wireEdge{from: "4.4.3", to: "4.5.1"}, wireEdge{from: "4.4.3", to: "4.4.4"}, wireEdge{from: "4.3.19", to: "4.4.4"})
			},
			want: want{target: "4.4.4", verdicts: map[string]string{"4.5.1": "rejected/minor-hop-too-large"}},
		},
		{
			name: "conditional edge without --accept: exit 3", mg: incident1, graph: func(t testing.TB) *graph.Result {
				return testGraph(t, wireEdge{from: "4.3.19", to: "4.4.4", risks: []string{"EtcdSlow"}}, wireEdge{from: "4.4.3", to: "4.4.4"})
			},
			want: want{exit: 3, risks: []string{"EtcdSlow"}, verdicts: map[string]string{"4.4.4": "demoted/unaccepted-risk"},
				reasons: map[string]string{"4.4.4": "not named in --accept: EtcdSlow"}},
		},
		{
			name: "conditional edge with --accept", mg: incident1, accept: []string{"EtcdSlow"}, graph: func(t testing.TB) *graph.Result {
				return testGraph(t, wireEdge{from: "4.3.19", to: "4.4.4", risks: []string{"EtcdSlow"}}, wireEdge{from: "4.4.3", to: "4.4.4"})
			},
			want: want{target: "4.4.4"},
		},
		{
			name: "a farther safe release beats a nearer one with unaccepted risks", mg: incident1, graph: func(t testing.TB) *graph.Result {
				return testGraph(t, wireEdge{from: "4.3.19", to: "4.4.4", risks: []string{"EtcdSlow", "SCCMutation"}}, wireEdge{from: "4.4.3", to: "4.4.4"},
					wireEdge{from: "4.3.19", to: "4.4.5"}, wireEdge{from: "4.4.3", to: "4.4.5"})
			},
			want: want{target: "4.4.5", verdicts: map[string]string{"4.4.4": "demoted/unaccepted-risk"}, reasons: map[string]string{"4.4.4": "EtcdSlow, SCCMutation"}},
		},
		{
			name: "no edge from a release the cluster runs", mg: incident1, graph: func(t testing.TB) *graph.Result {
				return testGraph(t, wireEdge{from: "4.4.3", to: "4.4.4"}, wireEdge{from: "4.3.18", to: "4.3.19"})
			},
			want: want{exit: 6, verdicts: map[string]string{"4.4.4": "rejected/no-supported-edge"}, reasons: map[string]string{"4.4.4": "no update edge 4.3.19 -> 4.4.4"}},
		},
		{
			name: "kubelet too far behind the target", mg: incident1, graph: full,
			mutate: func(s *inspect.Snapshot) { s.Nodes[3].KubeletVersion = "v1.14.6" },
			want: want{exit: 6, verdicts: map[string]string{"4.4.4": "rejected/kubelet-skew"},
				reasons: map[string]string{"4.4.4": "the kubelet on worker-0 (v1.14.6) would be more than 2 minor(s) behind the 4.4.4 kube-apiserver (1.17)"}},
		},
		{
			name: "kube-controller-manager newer than the target kube-apiserver", mg: incident2, graph: full,
			mutate: func(s *inspect.Snapshot) {
				d := s.Deployment("openshift-kube-controller-manager-operator", "kube-controller-manager-operator")
				d.Containers[0].Env["OPERAND_IMAGE_VERSION"] = "1.18.3"
			},
			want: want{exit: 6, verdicts: map[string]string{"4.4.4": "rejected/control-plane-skew"},
				reasons: map[string]string{"4.4.4": "kube-controller-manager on master-0 (1.18.3), kube-controller-manager on master-1 (1.18.3), kube-controller-manager on master-2 (1.18.3) would be newer than the target kube-apiserver 1.17"}},
		},
		{
			// The graph lacks 4.4.3, which the cluster runs: no edge from it can be
			// checked, so only the history's 4.4.3 (a rollback to the previous entry,
			// which needs no edge) qualifies.
			name: "a release from history is a candidate", mg: incident2, policy: withPolicy("downgrades: PreviousHistory\n"), graph: func(t testing.TB) *graph.Result {
				return testGraph(t, wireEdge{from: "4.4.4", to: "4.4.5"})
			},
			want: want{target: "4.4.3", verdicts: map[string]string{"4.4.4": "rejected/no-supported-edge"},
				reasons: map[string]string{"4.4.4": "the cluster runs 4.4.3, which is not in the update graph"}},
		},
		{
			name: "without history candidates only the graph's releases count", mg: incident2, policy: withPolicy("historyCandidates: false\n"), graph: func(t testing.TB) *graph.Result {
				return testGraph(t, wireEdge{from: "4.4.4", to: "4.4.5"})
			},
			want: want{exit: 6, verdicts: map[string]string{"4.4.4": "rejected/no-supported-edge"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot(t, tc.mg)
			if tc.mutate != nil {
				tc.mutate(s)
				inspect.Refresh(s)
			}
			sel, err := Select(s, tc.graph(t), tc.policy, tc.accept)
			if tc.want.exit != 0 {
				var nte *NoTargetError
				if !errors.As(err, &nte) || nte.ExitCode() != tc.want.exit {
					t.Fatalf("want NoTargetError exit %d, got %v (%T)", tc.want.exit, err, err)
				}
				if !slices.Equal(nte.Risks, tc.want.risks) {
					t.Fatalf("risks %v, want %v", nte.Risks, tc.want.risks)
				}
				if len(tc.want.risks) > 0 && !strings.Contains(nte.Error(), "--accept "+strings.Join(tc.want.risks, ",")) {
					t.Fatalf("error does not say what to accept: %v", nte)
				}
				sel = nte.Selection
			} else if err != nil {
				t.Fatal(err)
			} else if sel.Target.Version != tc.want.target {
				t.Fatalf("target %s, want %s; candidates %v", sel.Target.Version, tc.want.target, versionsOf(sel.Candidates))
			}
			for v, vr := range tc.want.verdicts {
				c := candidateOf(t, sel.Candidates, v)
				if got := c.Verdict + "/" + c.Rule; got != vr {
					t.Errorf("%s: %s, want %s (%s)", v, got, vr, c.Reason)
				}
			}
			for v, text := range tc.want.reasons {
				if c := candidateOf(t, sel.Candidates, v); !strings.Contains(c.Reason, text) {
					t.Errorf("%s: reason %q lacks %q", v, c.Reason, text)
				}
			}
			for i, c := range sel.Candidates {
				if c.Rank != i+1 {
					t.Errorf("rank %d at position %d", c.Rank, i)
				}
			}
		})
	}
}

func TestSelectRanksSafeByDistanceAndExplainsTheTarget(t *testing.T) {
	sel, err := Select(snapshot(t, incident1), exampleGraphResult(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tgt := sel.Target
	if tgt.Image != image444 || tgt.URL != "https://access.redhat.com/errata/RHBA-2020:2133" || !slices.Equal(tgt.Channels, []string{"stable-4.4"}) {
		t.Fatalf("target %+v", tgt)
	}
	if tgt.Distance != (planfile.Distance{Components: 11, Minor: 6, Patch: 6*4 + 5*1}) {
		t.Fatalf("distance %+v", tgt.Distance)
	}
	reasons := strings.Join(tgt.Reasons, "\n")
	for _, want := range []string{
		"6 from 4.3.19 (authentication, etcd, kube-apiserver, kube-controller-manager, kube-scheduler, openshift-apiserver); 5 from 4.4.3",
		"4.3.19 -> 4.4.4 supported; 4.4.3 -> 4.4.4 supported",
		"the kube-apiserver goes from 1.16.2 to 1.17, one minor; no kubelet (v1.16.2 to v1.17.1) is newer",
		"4.4.3 (blocked-edge)",
		"verified against its running operator Deployment",
	} {
		if !strings.Contains(reasons, want) {
			t.Errorf("reasons lack %q:\n%s", want, reasons)
		}
	}
	if alt := sel.Alternatives(); len(alt) != len(sel.Candidates)-1 || alt[0].Version != "4.4.5" {
		t.Fatalf("alternatives %v", versionsOf(alt))
	}
}

func TestSelectSaysWhenVersionsAreOnlyClaimed(t *testing.T) {
	s := snapshot(t, incident1)
	s.OperatorDeployments = nil
	inspect.Refresh(s)
	sel, err := Select(s, exampleGraphResult(t), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Target.Version != "4.4.4" || !strings.Contains(strings.Join(sel.Target.Reasons, " "), "Only claimed, not verified") {
		t.Fatalf("target %s reasons %v", sel.Target.Version, sel.Target.Reasons)
	}
	for _, c := range sel.facts.summary().Components {
		if c.Name == "dns" && (c.Version != "" || c.Claimed != "4.4.3" || !strings.HasPrefix(c.Evidence, "claim only")) {
			t.Fatalf("dns component %+v", c)
		}
	}
}

func TestSelectRefusesEmptyInputs(t *testing.T) {
	s := snapshot(t, incident1)
	if _, err := Select(s, nil, nil, nil); err == nil || !strings.Contains(err.Error(), "--graph") {
		t.Fatalf("no graph: %v", err)
	}
	s.ClusterOperators = nil
	var ie *InputError
	if _, err := Select(s, exampleGraphResult(t), nil, nil); !errors.As(err, &ie) || !ie.BadInput() {
		t.Fatalf("no operators: %v", err)
	}
}

func TestQualifiesWithRisks(t *testing.T) {
	risk := []planfile.Risk{{Name: "R"}}
	for _, tc := range []struct {
		name string
		c    *planfile.Candidate
		want bool
	}{
		{"demoted for its risks", &planfile.Candidate{Verdict: planfile.VerdictDemoted, Risks: risk}, true},
		{"demoted as farther", &planfile.Candidate{Verdict: planfile.VerdictDemoted}, false},
		{"rejected", &planfile.Candidate{Verdict: planfile.VerdictRejected}, false},
		{"chosen", &planfile.Candidate{Verdict: planfile.VerdictChosen}, false},
		{"none", nil, false},
	} {
		if got := tc.c.QualifiesWithRisks(); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
