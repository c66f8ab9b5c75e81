package policy

import (
	"strings"
	"testing"

	"github.com/openshift-recover/recover/plan/graph"
)

func withPolicy(mut func(*Policy)) *Policy {
	p := Default()
	if mut != nil {
		mut(p)
	}
	return p
}

func TestCheckMoves(t *testing.T) {
	hist := History{Desired: "4.4.4", Previous: "4.4.3"}
	for _, tc := range []struct {
		name   string
		policy func(*Policy)
		moves  []Move
		hist   History
		want   []Rule
		force  bool
	}{
		{name: "patch up", moves: []Move{{"dns", "4.4.3", "4.4.4"}}},
		{name: "one minor up", moves: []Move{{"etcd", "4.3.19", "4.4.4"}}},
		{name: "same version", moves: []Move{{"etcd", "4.4.4", "4.4.4"}}},
		{name: "two minors up", moves: []Move{{"etcd", "4.3.19", "4.5.1"}}, want: []Rule{RuleMinorHopTooLarge}},
		{name: "major up", moves: []Move{{"etcd", "4.3.19", "5.0.0"}}, want: []Rule{RuleMinorHopTooLarge}},
		{name: "minor up with maxMinorHop 0", policy: func(p *Policy) { z := 0; p.MaxMinorHop = &z }, moves: []Move{{"etcd", "4.3.19", "4.4.4"}}, want: []Rule{RuleMinorHopTooLarge}},
		{name: "patch up with maxMinorHop 0", policy: func(p *Policy) { z := 0; p.MaxMinorHop = &z }, moves: []Move{{"etcd", "4.4.3", "4.4.4"}}},
		{name: "cross-minor downgrade", moves: []Move{{"dns", "4.4.3", "4.3.19"}}, hist: History{Desired: "4.4.3", Previous: "4.3.19"}, want: []Rule{RuleNoCrossMinorDowngrade}},
		{name: "cross-minor downgrade even when WithinMinor", policy: func(p *Policy) { p.Downgrades = DowngradesWithinMinor }, moves: []Move{{"dns", "4.4.3", "4.3.19"}}, want: []Rule{RuleNoCrossMinorDowngrade}},
		{name: "rollback to previous history entry", policy: func(p *Policy) { p.Downgrades = DowngradesPreviousHistory }, moves: []Move{{"etcd", "4.4.4", "4.4.3"}}, hist: hist},
		{name: "downgrade not to the previous entry", policy: func(p *Policy) { p.Downgrades = DowngradesPreviousHistory }, moves: []Move{{"etcd", "4.4.5", "4.4.3"}}, hist: History{Desired: "4.4.5", Previous: "4.4.4"}, want: []Rule{RuleDowngradeNotPreviousHistory}},
		{name: "previous entry in another minor", policy: func(p *Policy) { p.Downgrades = DowngradesPreviousHistory }, moves: []Move{{"etcd", "4.4.5", "4.4.3"}}, hist: History{Desired: "4.5.1", Previous: "4.4.3"}, want: []Rule{RuleDowngradeNotPreviousHistory}},
		{name: "no downgrades by default, not even to the previous entry", moves: []Move{{"etcd", "4.4.4", "4.4.3"}}, hist: hist, want: []Rule{RuleDowngradeNotPreviousHistory}},
		{name: "no downgrades at all", policy: func(p *Policy) { p.Downgrades = DowngradesNever }, moves: []Move{{"etcd", "4.4.4", "4.4.3"}}, hist: hist, want: []Rule{RuleDowngradeNotPreviousHistory}},
		{name: "within minor, not previous: needs force", policy: func(p *Policy) { p.Downgrades = DowngradesWithinMinor }, moves: []Move{{"etcd", "4.4.5", "4.4.3"}}, hist: History{Desired: "4.4.5", Previous: "4.4.4"}, force: true},
		{name: "several rules", moves: []Move{{"dns", "4.5.1", "4.4.3"}, {"etcd", "4.2.1", "4.4.3"}}, want: []Rule{RuleNoCrossMinorDowngrade, RuleMinorHopTooLarge}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs, force := withPolicy(tc.policy).CheckMoves(tc.moves, tc.hist)
			var got []Rule
			for _, v := range vs {
				got = append(got, v.Rule)
				if v.Class != ClassOf(v.Rule) || !strings.Contains(v.Reason, tc.moves[0].To) {
					t.Errorf("violation %+v: class or reason", v)
				}
			}
			if strings.Join(ruleStrings(got), ",") != strings.Join(ruleStrings(tc.want), ",") {
				t.Fatalf("rules %v, want %v (%+v)", got, tc.want, vs)
			}
			if (len(force) > 0) != tc.force {
				t.Fatalf("force %v, want %v", force, tc.force)
			}
		})
	}
}

func TestCheckMovesNamesComponentsAndVersions(t *testing.T) {
	vs, _ := Default().CheckMoves([]Move{{"network", "4.4.3", "4.3.19"}, {"dns", "4.4.3", "4.3.19"}}, History{})
	if len(vs) != 1 || vs[0].Reason != "dns, network run 4.4.3: moving to 4.3.19 would go down across a minor, which Kubernetes and the CVO do not support" {
		t.Fatalf("%+v", vs)
	}
}

func ruleStrings(rs []Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r))
	}
	return out
}

func TestCheckUpgradeable(t *testing.T) {
	blockers := []Blocker{{Source: "clusteroperator/kube-apiserver", Reason: "KubeletMinorVersionUnsupportedNextUpgrade", Message: "Kubelet minor version (1.16.2) on node worker-0 will not be supported."}}
	minor := []Move{{"kube-apiserver", "4.3.19", "4.4.4"}}
	patch := []Move{{"dns", "4.4.3", "4.4.4"}}
	if v, f := Default().CheckUpgradeable(minor, nil, History{}); v != nil || f != "" {
		t.Fatalf("no blockers: %v %q", v, f)
	}
	if v, f := Default().CheckUpgradeable(patch, blockers, History{}); v != nil || f != "" {
		t.Fatalf("patch hop must pass Upgradeable=False: %v %q", v, f)
	}
	v, f := Default().CheckUpgradeable(minor, blockers, History{})
	if v == nil || v.Rule != RuleUpgradeableFalse || f != "" || !strings.Contains(v.Reason, "clusteroperator/kube-apiserver Upgradeable=False (KubeletMinorVersionUnsupportedNextUpgrade)") {
		t.Fatalf("minor hop blocked: %+v %q", v, f)
	}
	v, f = withPolicy(func(p *Policy) { p.Upgradeable = UpgradeableForce }).CheckUpgradeable(minor, blockers, History{})
	if v != nil || !strings.Contains(f, "upgradeable: Force") {
		t.Fatalf("force policy: %+v %q", v, f)
	}
}

func TestCheckEdge(t *testing.T) {
	risk := graph.Risk{Name: "AuthConnectionLeak", URL: "https://issues.example/1", Message: "leaks"}
	blocked := graph.Edge{From: "4.3.19", To: "4.4.3", State: graph.EdgeBlocked, BlockedBy: []graph.BlockedEdge{{File: "blocked-edges/4.4.3.yaml", From: `4\.3\..*`, Comment: "4.3 -> 4.4 updates occasionally stick\n on etcd"}}}
	for _, tc := range []struct {
		name     string
		e        graph.Edge
		found    bool
		accepted []string
		want     Rule
		reason   string
	}{
		{name: "supported", e: graph.Edge{State: graph.EdgeSupported}, found: true},
		{name: "missing", found: false, want: RuleNoSupportedEdge, reason: "no update edge 4.3.19 -> 4.4.3"},
		{name: "blocked quotes file and comment", e: blocked, found: true, want: RuleBlockedEdge, reason: "4.3.19 -> 4.4.3 is blocked by blocked-edges/4.4.3.yaml: 4.3 -> 4.4 updates occasionally stick on etcd"},
		{name: "removed by metadata", e: graph.Edge{State: graph.EdgeBlocked, RemovedBy: []string{"previous.remove_regex=4\\.3\\..*"}}, found: true, want: RuleBlockedEdge, reason: "remove_regex"},
		{name: "conditional, not accepted", e: graph.Edge{State: graph.EdgeConditional, Risks: []graph.Risk{risk}}, found: true, want: RuleUnacceptedRisk, reason: "AuthConnectionLeak"},
		{name: "conditional, accepted", e: graph.Edge{State: graph.EdgeConditional, Risks: []graph.Risk{risk}}, found: true, accepted: []string{"AuthConnectionLeak"}},
		{name: "conditional, one of two accepted", e: graph.Edge{State: graph.EdgeConditional, Risks: []graph.Risk{risk, {Name: "Other"}}}, found: true, accepted: []string{"AuthConnectionLeak"}, want: RuleUnacceptedRisk, reason: "not named in --accept: Other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := CheckEdge("4.3.19", "4.4.3", tc.e, tc.found, tc.accepted)
			if tc.want == "" {
				if v != nil {
					t.Fatalf("unexpected %+v", v)
				}
				return
			}
			if v == nil || v.Rule != tc.want || !strings.Contains(v.Reason, tc.reason) {
				t.Fatalf("got %+v, want %s containing %q", v, tc.want, tc.reason)
			}
			if tc.want == RuleUnacceptedRisk && (v.Class != ClassAcceptable || len(v.Risks) == 0) {
				t.Fatalf("risk violation %+v", v)
			}
		})
	}
}

func TestCheckKubelets(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policy   func(*Policy)
		kas      string
		kubelets map[string]string
		want     []string
	}{
		{name: "in skew", kas: "1.17.1", kubelets: map[string]string{"master-0": "v1.17.1", "worker-0": "v1.16.2"}},
		{name: "newer kubelet", kas: "1.16.2", kubelets: map[string]string{"master-0": "v1.17.1", "worker-0": "v1.16.2"}, want: []string{"master-0 (v1.17.1) would be newer"}},
		{name: "even minor allows two", kas: "1.17.1", kubelets: map[string]string{"w": "v1.15.0"}},
		{name: "even minor refuses three", kas: "1.17.1", kubelets: map[string]string{"w": "v1.14.0"}, want: []string{"more than 2 minor(s) behind"}},
		{name: "odd minor allows one", kas: "1.18.2", kubelets: map[string]string{"w": "v1.17.1"}},
		{name: "odd minor refuses two", kas: "1.18.2", kubelets: map[string]string{"w": "v1.16.2"}, want: []string{"more than 1 minor(s) behind"}},
		{name: "upstream allows two below 1.25", policy: func(p *Policy) { p.KubeletSkew = KubeletSkewUpstream }, kas: "1.18.2", kubelets: map[string]string{"w": "v1.16.2"}},
		{name: "upstream allows three from 1.25", policy: func(p *Policy) { p.KubeletSkew = KubeletSkewUpstream }, kas: "1.29.1", kubelets: map[string]string{"w": "v1.26.0"}},
		{name: "upstream refuses four", policy: func(p *Policy) { p.KubeletSkew = KubeletSkewUpstream }, kas: "1.29.1", kubelets: map[string]string{"w": "v1.25.0"}, want: []string{"more than 3 minor(s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := withPolicy(tc.policy).CheckKubelets(tc.kas, "the kube-apiserver", tc.kubelets)
			if len(vs) != len(tc.want) {
				t.Fatalf("got %+v, want %v", vs, tc.want)
			}
			for i, v := range vs {
				if v.Rule != RuleKubeletSkew || v.Class != ClassMandatory || !strings.Contains(v.Reason, tc.want[i]) {
					t.Fatalf("got %+v, want %q", v, tc.want[i])
				}
			}
		})
	}
}

func TestCheckControlPlane(t *testing.T) {
	if vs := CheckControlPlane("1.16.2", "1.17.1", map[string]string{"kube-scheduler on master-0": "1.16.2"}); len(vs) != 0 {
		t.Fatalf("normal hop: %+v", vs)
	}
	vs := CheckControlPlane("1.16.2", "1.18.1", nil)
	if len(vs) != 1 || vs[0].Rule != RuleControlPlaneSkew || !strings.Contains(vs[0].Reason, "skipping a minor") {
		t.Fatalf("skip: %+v", vs)
	}
	vs = CheckControlPlane("1.16.2", "1.16.2", map[string]string{"kube-controller-manager on master-1": "1.17.1"})
	if len(vs) != 1 || !strings.Contains(vs[0].Reason, "kube-controller-manager on master-1 (1.17.1) would be newer than the target kube-apiserver 1.16") {
		t.Fatalf("newer kcm: %+v", vs)
	}
}

func TestRulesAreDocumentedOnce(t *testing.T) {
	seen := map[Rule]bool{}
	for _, r := range Rules {
		if seen[r.Rule] || r.Summary == "" || r.Source == "" {
			t.Fatalf("rule %+v duplicated or undocumented", r)
		}
		seen[r.Rule] = true
	}
	if ClassOf(RuleUnacceptedRisk) != ClassAcceptable || ClassOf(RuleMinorHopTooLarge) != ClassPolicy || ClassOf(RuleBlockedEdge) != ClassMandatory {
		t.Fatal("classes")
	}
}
