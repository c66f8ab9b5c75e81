package plan

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestRemedies makes a remediation-only plan for one wedge at a time: the
// remedy fires with its steps, or is refused (exit 12 when unsafe, 3 when an
// --accept name would allow it).
func TestRemedies(t *testing.T) {
	D := []planfile.Action{planfile.ActionDisableCVO}
	R := []planfile.Action{planfile.ActionRestoreCVO}
	seq := func(parts ...[]planfile.Action) []planfile.Action { return slices.Concat(parts...) }
	for _, tc := range []struct {
		name   string
		wedge  func(t *testing.T, s *inspect.Snapshot)
		accept []string
		// want are the actions; exit, when set, the refusal's exit code instead.
		want    []planfile.Action
		exit    int
		refused []string // "<remedy> <subject>" of Plan.Refused or the error's refusals
		check   func(t *testing.T, p *planfile.Plan)
	}{
		{name: "PDB holds a drain: relax, wait, revert", wedge: func(t *testing.T, s *inspect.Snapshot) { holdDrain(t, s, "ci", "build", "worker-0") },
			want: seq(D, []planfile.Action{planfile.ActionRelaxPDB, planfile.ActionWait, planfile.ActionRevert}, R),
			check: func(t *testing.T, p *planfile.Plan) {
				relax, wait, rev := p.Steps[1], p.Steps[2], p.Steps[3]
				c := relax.Change
				if c.Object != planfile.PDBRef("ci", "build") || c.UID != "uid-pdb-build" || string(c.Patch) != `{"spec":{"maxUnavailable":null,"minAvailable":0}}` ||
					string(c.Before) != `{"spec":{"maxUnavailable":null,"minAvailable":2}}` || planfile.FieldsText(c.Fields) != "spec.minAvailable, spec.maxUnavailable" {
					t.Fatalf("relax change %+v patch %s before %s", c, c.Patch, c.Before)
				}
				if relax.RevertedBy != rev.ID || rev.Reverts != relax.ID || rev.Gate.Kind != planfile.GateRestored || rev.Gate.Object.Name != "build" {
					t.Fatalf("pairing: relax %s revertedBy %s, revert %s reverts %s gate %+v", relax.ID, relax.RevertedBy, rev.ID, rev.Reverts, rev.Gate)
				}
				if wait.Gate.Kind != planfile.GateNodesSettled || !slices.Equal(wait.Gate.Nodes, []string{"worker-0"}) {
					t.Fatalf("wait gate %+v", wait.Gate)
				}
				for _, want := range []string{"MachineConfigControllerDrainError", "minAvailable: 0", "ci/build-0 on worker-0", "revert step"} {
					if !strings.Contains(relax.Reason, want) {
						t.Errorf("relax reason lacks %q: %s", want, relax.Reason)
					}
				}
				if r := p.Remediations[0]; r.Remedy != planfile.RemedyRelaxPDB || !slices.Equal(r.Steps, []string{relax.ID, wait.ID, rev.ID}) || r.Subject != "poddisruptionbudget/ci/build" {
					t.Fatalf("remediation %+v", r)
				}
			}},
		{name: "PDBs holding the same node are relaxed together", wedge: func(t *testing.T, s *inspect.Snapshot) {
			holdDrain(t, s, "ci", "build", "worker-0")
			holdDrain(t, s, "db", "pg", "worker-0", "worker-1")
		}, want: seq(D, []planfile.Action{planfile.ActionRelaxPDB, planfile.ActionRelaxPDB, planfile.ActionWait, planfile.ActionRevert, planfile.ActionRevert}, R),
			check: func(t *testing.T, p *planfile.Plan) {
				if w := p.Steps[3].Gate; !slices.Equal(w.Nodes, []string{"worker-0", "worker-1"}) {
					t.Fatalf("the shared wait waits for %v", w.Nodes)
				}
				if !strings.Contains(p.Steps[1].Reason, "relaxed together with db/pg") || len(p.Remediations) != 2 {
					t.Fatalf("%s / %d remediations", p.Steps[1].Reason, len(p.Remediations))
				}
			}},
		{name: "PDBs on different nodes each get their own bracket", wedge: func(t *testing.T, s *inspect.Snapshot) {
			holdDrain(t, s, "ci", "build", "worker-0")
			holdDrain(t, s, "db", "pg", "worker-1")
		}, want: seq(D, []planfile.Action{planfile.ActionRelaxPDB, planfile.ActionWait, planfile.ActionRevert, planfile.ActionRelaxPDB, planfile.ActionWait, planfile.ActionRevert}, R)},
		{name: "guard PDB: never relaxed", wedge: func(t *testing.T, s *inspect.Snapshot) { guardHolds(t, s, "master-0", "master-1") },
			exit: 12, refused: []string{"guard-pdb poddisruptionbudget/openshift-etcd/etcd-guard-pdb"}},
		{name: "guard PDB blocks even beside a PDB recover may relax", wedge: func(t *testing.T, s *inspect.Snapshot) {
			holdDrain(t, s, "ci", "build", "worker-0")
			guardHolds(t, s, "master-0", "master-1")
		}, exit: 12, refused: []string{"guard-pdb poddisruptionbudget/openshift-etcd/etcd-guard-pdb"}},
		{name: "a guard PDB that does not block is listed, the plan made", wedge: func(t *testing.T, s *inspect.Snapshot) {
			holdDrain(t, s, "ci", "build", "worker-0")
			guardHolds(t, s, "master-0", "master-1")
			s.Findings[len(s.Findings)-1].Class = inspect.ClassInforms
		}, want: seq(D, []planfile.Action{planfile.ActionRelaxPDB, planfile.ActionWait, planfile.ActionRevert}, R), refused: []string{"guard-pdb poddisruptionbudget/openshift-etcd/etcd-guard-pdb"},
			check: func(t *testing.T, p *planfile.Plan) {
				if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.HasPrefix(w, "not taken: guard-pdb") }) {
					t.Fatalf("warnings %v", p.Warnings)
				}
			}},
		{name: "a drain finding naming a guard PDB is refused as a guard", wedge: func(t *testing.T, s *inspect.Snapshot) {
			holdDrain(t, s, "openshift-kube-apiserver", "kube-apiserver-guard-pdb", "master-0")
		}, exit: 12, refused: []string{"guard-pdb poddisruptionbudget/openshift-kube-apiserver/kube-apiserver-guard-pdb"}},
		{name: "new node's client CSR vouched by its machine", wedge: func(t *testing.T, s *inspect.Snapshot) {
			pendingCSRs(t, s, "worker-2", csrSpec{"csr-a", "worker-2", "new"})
		}, want: seq(D, []planfile.Action{planfile.ActionApproveCSR}, R),
			check: func(t *testing.T, p *planfile.Plan) {
				st := p.Steps[1]
				if a := st.CSR; a.Name != "csr-a" || a.UID != "uid-csr-a" || a.Node != "worker-2" || !strings.Contains(a.VouchedBy, "machine openshift-machine-api/worker-2") ||
					st.Gate.Kind != planfile.GateCSRIssued || st.Gate.Object.Name != "csr-a" {
					t.Fatalf("approve %+v gate %+v", st.CSR, st.Gate)
				}
			}},
		{name: "NotReady node's renewal: approve, then wait for Ready", wedge: func(t *testing.T, s *inspect.Snapshot) {
			notReady(t, s, "worker-1")
			pendingCSRs(t, s, "worker-1", csrSpec{"csr-r", "worker-1", "renew"})
		}, want: seq(D, []planfile.Action{planfile.ActionApproveCSR, planfile.ActionWait}, R),
			check: func(t *testing.T, p *planfile.Plan) {
				if g := p.Steps[2].Gate; g.Kind != planfile.GateNodesReady || !slices.Equal(g.Nodes, []string{"worker-1"}) {
					t.Fatalf("gate %+v", g)
				}
			}},
		{name: "CSR nobody vouches for: refused", wedge: func(t *testing.T, s *inspect.Snapshot) {
			pendingCSRs(t, s, "worker-9", csrSpec{"csr-x", "worker-9", "stranger"})
		}, exit: 12, refused: []string{"approve-csr certificatesigningrequest/csr-x"}},
		{name: "vouched CSRs approved, the stranger listed", wedge: func(t *testing.T, s *inspect.Snapshot) {
			pendingCSRs(t, s, "worker-2", csrSpec{"csr-a", "worker-2", "new"}, csrSpec{"csr-x", "evil", "stranger"})
		}, want: seq(D, []planfile.Action{planfile.ActionApproveCSR}, R), refused: []string{"approve-csr certificatesigningrequest/csr-x"},
			check: func(t *testing.T, p *planfile.Plan) {
				if r := p.Refused[0]; !strings.Contains(r.Reason, "no machine without a node has InternalDNS address evil") || r.Accept != "" {
					t.Fatalf("refusal %+v", r)
				}
			}},
		{name: "paused pool that blocks: unpause", wedge: func(t *testing.T, s *inspect.Snapshot) { pausePool(t, s, "worker", true) },
			want: seq(D, []planfile.Action{planfile.ActionUnpausePool}, R),
			check: func(t *testing.T, p *planfile.Plan) {
				st := p.Steps[1]
				if st.Remedy != planfile.RemedyUnpausePool || st.Change.UID != "uid-pool-worker" || string(st.Change.Patch) != `{"spec":{"paused":false}}` ||
					string(st.Change.Before) != `{"spec":{"paused":true}}` || st.Gate.Kind != planfile.GatePoolUpdated || st.Gate.Pool != "worker" {
					t.Fatalf("unpause %+v %s", st, st.Change.Patch)
				}
			}},
		{name: "stuck static-pod rollout without --accept: refused, exit 3", wedge: func(t *testing.T, s *inspect.Snapshot) { stuckRollout(t, s) },
			exit: 3, refused: []string{"force-redeployment node/master-2"}},
		{name: "stuck static-pod rollout with --accept", wedge: func(t *testing.T, s *inspect.Snapshot) { stuckRollout(t, s) },
			accept: []string{"force-redeployment:kube-apiserver"}, want: seq(D, []planfile.Action{planfile.ActionForceRedeployment}, R),
			check: func(t *testing.T, p *planfile.Plan) {
				st := p.Steps[1]
				if string(st.Change.Patch) != `{"spec":{"forceRedeploymentReason":"recover-20200525T090000Z"}}` || string(st.Change.Before) != `{"spec":{"forceRedeploymentReason":null}}` ||
					st.Change.Object.Kind != "KubeAPIServer" || st.Gate.StaticPods.MinRevision != 10 || st.Gate.Kind != planfile.GateStaticPods {
					t.Fatalf("force %+v %s gate %+v", st.Change, st.Change.Patch, st.Gate.StaticPods)
				}
				if !strings.Contains(st.Reason, "one at a time") || p.Remediations[0].Accepted != "force-redeployment:kube-apiserver" {
					t.Fatalf("%s %+v", st.Reason, p.Remediations)
				}
			}},
		{name: "admin gate without --accept: exit 3", wedge: func(t *testing.T, s *inspect.Snapshot) { adminGate(s, "ack-4.4-kube-1.18-api-removals-in-4.5") },
			exit: 3, refused: []string{"admin-ack admingate/ack-4.4-kube-1.18-api-removals-in-4.5"}},
		{name: "admin gate acknowledged; the wait after restore-cvo", wedge: func(t *testing.T, s *inspect.Snapshot) { adminGate(s, "ack-4.4-kube-1.18-api-removals-in-4.5") },
			accept: []string{"admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5"}, want: seq(D, []planfile.Action{planfile.ActionAcknowledgeGate}, R, []planfile.Action{planfile.ActionWait}),
			check: func(t *testing.T, p *planfile.Plan) {
				ack, wait := p.Steps[1], p.Steps[3]
				if string(ack.Change.Patch) != `{"data":{"ack-4.4-kube-1.18-api-removals-in-4.5":"true"}}` || ack.Change.Object.Name != "admin-acks" || ack.Change.UID != "uid-admin-acks" {
					t.Fatalf("ack %+v %s", ack.Change, ack.Change.Patch)
				}
				if g := wait.Gate; g.Kind != planfile.GateConditionCleared || g.Reason != "AdminAckRequired" || g.Condition != "Upgradeable" || g.Object.Kind != "ClusterVersion" {
					t.Fatalf("wait gate %+v", g)
				}
			}},
		{name: "overrides without --accept: exit 3", wedge: func(t *testing.T, s *inspect.Snapshot) { overridesSet(s) },
			exit: 3, refused: []string{"remove-overrides clusterversion/version"}},
		{name: "overrides removed", wedge: func(t *testing.T, s *inspect.Snapshot) { overridesSet(s) }, accept: []string{"remove-overrides"},
			want: seq(D, []planfile.Action{planfile.ActionRemoveOverrides}, R, []planfile.Action{planfile.ActionWait}),
			check: func(t *testing.T, p *planfile.Plan) {
				st := p.Steps[1]
				if string(st.Change.Patch) != `{"spec":{"overrides":null}}` || !strings.Contains(string(st.Change.Before), `"name":"cluster-monitoring-operator"`) || !strings.Contains(st.Reason, "Careful") {
					t.Fatalf("%s %s %s", st.Change.Patch, st.Change.Before, st.Reason)
				}
				if g := p.Steps[2].Gate; g.RefusalExpected != "" {
					t.Errorf("nothing else holds the update, yet restore-cvo expects a refusal: %q", g.RefusalExpected)
				}
			}},
		{name: "overrides removed while an operator's Upgradeable=False still holds the minor", wedge: func(t *testing.T, s *inspect.Snapshot) {
			overridesSet(s)
			addFinding(s, inspect.CodeUpgradeableFalse, "clusteroperator/authentication", map[string]string{"reason": "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet", "class": inspect.UpgradeClassUnsupportedConfig})
			addFinding(s, inspect.CodeReleaseNotAccepted, "clusterversion/version", map[string]string{"reason": "PreconditionChecks", "class": inspect.ReleaseClassPreconditions})
		}, accept: []string{"remove-overrides"},
			want: seq(D, []planfile.Action{planfile.ActionRemoveOverrides}, R, []planfile.Action{planfile.ActionWait}),
			check: func(t *testing.T, p *planfile.Plan) {
				g := p.Steps[2].Gate
				if !strings.Contains(g.RefusalExpected, "clusteroperator/authentication is Upgradeable=False") || !strings.Contains(p.Steps[2].Reason, "It will still refuse") {
					t.Errorf("restore-cvo does not expect the refusal authentication holds: gate %+v, reason %s", g, p.Steps[2].Reason)
				}
				if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "after this plan the CVO still refuses") }) {
					t.Errorf("no warning that the update stays refused: %v", p.Warnings)
				}
			}},
		{name: "an operator's Upgradeable=False without a refused release holds nothing", wedge: func(t *testing.T, s *inspect.Snapshot) {
			overridesSet(s)
			addFinding(s, inspect.CodeUpgradeableFalse, "clusteroperator/authentication", map[string]string{"reason": "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet", "class": inspect.UpgradeClassUnsupportedConfig})
		}, accept: []string{"remove-overrides"},
			want: seq(D, []planfile.Action{planfile.ActionRemoveOverrides}, R, []planfile.Action{planfile.ActionWait}),
			check: func(t *testing.T, p *planfile.Plan) {
				if g := p.Steps[2].Gate; g.RefusalExpected != "" {
					t.Errorf("no release is refused, yet restore-cvo expects a refusal: %q", g.RefusalExpected)
				}
			}},
		{name: "cloud credentials named by ClusterVersion too: one annotation", wedge: func(t *testing.T, s *inspect.Snapshot) {
			addFinding(s, inspect.CodeUpgradeableFalse, "clusterversion/version", map[string]string{"reason": openshift.ReasonMissingUpgradeableAnnotation, "class": inspect.UpgradeClassCloudCredential})
			manualCredentials(s)
		}, accept: []string{"upgradeable-to:4.5"}, want: seq(D, []planfile.Action{planfile.ActionAnnotateUpgradeableTo}, R, []planfile.Action{planfile.ActionWait}),
			check: func(t *testing.T, p *planfile.Plan) {
				if len(p.Remediations) != 1 || p.Remediations[0].Subject != "clusteroperator/"+openshift.CloudCredentialOperator {
					t.Errorf("remediations %+v, want one, for the cloud-credential operator", p.Remediations)
				}
			}},
		{name: "cloud credentials without --accept: exit 3", wedge: func(t *testing.T, s *inspect.Snapshot) { manualCredentials(s) },
			exit: 3, refused: []string{"upgradeable-to clusteroperator/cloud-credential"}},
		{name: "cloud credentials with another minor than the next: exit 3", wedge: func(t *testing.T, s *inspect.Snapshot) { manualCredentials(s) },
			accept: []string{"upgradeable-to:4.6"}, exit: 3, refused: []string{"upgradeable-to clusteroperator/cloud-credential"}},
		{name: "cloud credentials annotated for the next minor", wedge: func(t *testing.T, s *inspect.Snapshot) { manualCredentials(s) },
			accept: []string{"upgradeable-to:4.5"}, want: seq(D, []planfile.Action{planfile.ActionAnnotateUpgradeableTo}, R, []planfile.Action{planfile.ActionWait}),
			check: func(t *testing.T, p *planfile.Plan) {
				st := p.Steps[1]
				if string(st.Change.Patch) != `{"metadata":{"annotations":{"cloudcredential.openshift.io/upgradeable-to":"4.5"}}}` || st.Change.UID != "uid-cco" ||
					!slices.Equal(st.Change.Fields[0], []string{"metadata", "annotations", "cloudcredential.openshift.io/upgradeable-to"}) {
					t.Fatalf("%+v %s", st.Change, st.Change.Patch)
				}
				if g := p.Steps[3].Gate; g.Object.Kind != "ClusterOperator" || g.Object.Name != "cloud-credential" || g.Reason != "MissingUpgradeableAnnotation" {
					t.Fatalf("gate %+v", g)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := healthyUpdating(t)
			tc.wedge(t, s)
			// The CVO reconciles its release here, so the plan stops it while
			// the remedies run (the bracket D ... R); an updating CVO keeps the
			// wheel (TestRemediesInTheExpertsOrder).
			reconciling(t, s)
			p, err := makeRemedies(t, s, tc.accept...)
			if tc.exit != 0 {
				var re *planfile.RemedyRefusedError
				if !errors.As(err, &re) || re.ExitCode() != tc.exit {
					t.Fatalf("got %v (%T), want a refusal with exit %d", err, err, tc.exit)
				}
				if got := refusedNames(re.Refused); !slices.Equal(got, tc.refused) {
					t.Fatalf("refused %v, want %v", got, tc.refused)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("the error is not one line: %q", err)
				}
				if tc.exit == 3 && (len(re.Accept()) == 0 || !strings.Contains(err.Error(), "--accept "+strings.Join(re.Accept(), ","))) {
					t.Fatalf("exit 3 must name the --accept: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(p); !slices.Equal(got, tc.want) {
				t.Fatalf("actions %v, want %v", got, tc.want)
			}
			if p.Mode != planfile.ModeRemediation || p.Target.Version != "" || !strings.HasPrefix(p.Target.Reasons[0], "No new release") {
				t.Fatalf("mode %q target %+v", p.Mode, p.Target)
			}
			if got := refusedNames(p.Refused); !slices.Equal(got, tc.refused) {
				t.Fatalf("refused %v, want %v", got, tc.refused)
			}
			for _, st := range p.Steps {
				if st.Action == planfile.ActionDisableCVO || st.Action == planfile.ActionRestoreCVO {
					continue
				}
				if st.Remedy == "" || st.Finding == "" || st.Reason == "" {
					t.Fatalf("step %s lacks its remedy, finding or reason", st.ID)
				}
			}
			if _, err := json.Marshal(p); err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

// everyWedge is a snapshot with one of each wedge a remediation plan answers
// (the CSR of a NotReady node, a stuck kube-apiserver rollout, a paused pool
// that blocks, a PDB holding a drain, an admin gate, overrides), and the
// --accept names its promises need.
func everyWedge(t testing.TB) (*inspect.Snapshot, []string) {
	s := healthyUpdating(t)
	adminGate(s, "ack-4.4-kube-1.18-api-removals-in-4.5")
	holdDrain(t, s, "ci", "build", "worker-0")
	pausePool(t, s, "master", true)
	stuckRollout(t, s)
	notReady(t, s, "worker-1")
	pendingCSRs(t, s, "worker-1", csrSpec{"csr-r", "worker-1", "renew"}, csrSpec{"csr-x", "evil", "stranger"})
	overridesSet(s)
	return s, []string{"force-redeployment:kube-apiserver", "admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5", "remove-overrides"}
}

func refusedNames(rs []planfile.RefusedRemedy) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Remedy+" "+r.Subject)
	}
	return out
}

// TestRemediesInTheExpertsOrder puts every wedge in one snapshot: CSRs and node
// readiness first, then the stuck static-pod rollout, the paused pool, the PDB
// bracket, the admin's promises, restore-cvo, and the waits for what the CVO
// computes.
func TestRemediesInTheExpertsOrder(t *testing.T) {
	s, accept := everyWedge(t)
	p, err := makeRemedies(t, s, accept...)
	if err != nil {
		t.Fatal(err)
	}
	want := []planfile.Action{planfile.ActionApproveCSR, planfile.ActionWait, planfile.ActionForceRedeployment, planfile.ActionUnpausePool, planfile.ActionRelaxPDB, planfile.ActionWait, planfile.ActionRevert,
		planfile.ActionAcknowledgeGate, planfile.ActionRemoveOverrides, planfile.ActionWait, planfile.ActionWait}
	if got := actions(p); !slices.Equal(got, want) {
		t.Fatalf("actions\n %v\nwant\n %v", got, want)
	}
	if p.Inputs.Graph.Source != "" || p.Inputs.Payload.Source != "" || !slices.Equal(p.Inputs.Accepted, []string{"admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5", "force-redeployment:kube-apiserver", "remove-overrides"}) {
		t.Fatalf("inputs %+v", p.Inputs)
	}
	if len(p.Remediations) != 6 {
		t.Fatalf("%d remediations: %+v", len(p.Remediations), p.Remediations)
	}
	if err := Check(p, s, nil); err != nil {
		t.Fatal(err)
	}
}

func TestAcceptNamesValidated(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"AuthConnectionLeak", true},
		{"force-redeployment:etcd", true},
		{"force-redeployment:kube-scheduler", true},
		{"force-redeployment:openshift-apiserver", false},
		{"admin-ack:ack-4.18-kube-1.32-api-removals-in-4.19", true},
		{"admin-ack:please", false},
		{"remove-overrides", true},
		{"remove-overrides:all", false},
		{"upgradeable-to:4.17", true},
		{"upgradeable-to:v4.17", false},
		{"force-redeploy:etcd", false},
		{"", false},
	} {
		err := ValidateAccept([]string{tc.name})
		var ae *AcceptError
		if tc.ok != (err == nil) || err != nil && (!errors.As(err, &ae) || ae.ExitCode() != 2 || strings.Contains(err.Error(), "\n")) {
			t.Errorf("%q: %v", tc.name, err)
		}
	}
	if _, err := makeRemedies(t, healthyUpdating(t), "force-redeployment:dns"); err == nil || !strings.Contains(err.Error(), `"dns" is not a static-pod component`) {
		t.Fatalf("Make takes a malformed remedy name: %v", err)
	}
}
