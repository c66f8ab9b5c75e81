package plan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestCheckCatchesBrokenRemedies breaks a good remediation plan one way at a
// time: the checker names the invariant and the step.
func TestCheckCatchesBrokenRemedies(t *testing.T) {
	s, accept := everyWedge(t)
	reconciling(t, s) // the bracketed remediation plan: the CVO stopped while the remedies run
	good, err := makeRemedies(t, s, accept...)
	if err != nil {
		t.Fatal(err)
	}
	idx := func(p *planfile.Plan, a planfile.Action) int {
		return stepIndex(p, func(st *planfile.Step) bool { return st.Action == a })
	}
	for _, tc := range []struct {
		name   string
		snap   func(s *inspect.Snapshot)
		break_ func(t *testing.T, p *planfile.Plan)
		rule   string
		step   string // a part of the failing step's ID ("" for the plan as a whole)
		text   string
	}{
		{name: "temporary change without its revert", rule: InvariantTemporary, step: "relax-pdb", text: "names no revert step",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps[idx(p, planfile.ActionRelaxPDB)].RevertedBy = ""
				p.Steps = remove(p.Steps, func(st *planfile.Step) bool { return st.Action == planfile.ActionRevert })
			}},
		{name: "temporary change never reverted", rule: InvariantTemporary, step: "relax-pdb", text: "not a revert of this step",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps[idx(p, planfile.ActionRevert)].Action = planfile.ActionWait
			}},
		{name: "revert before the change", rule: InvariantTemporary, step: "revert", text: "revert before change",
			break_: func(t *testing.T, p *planfile.Plan) {
				r := idx(p, planfile.ActionRevert)
				p.Steps = move(p.Steps, r, idx(p, planfile.ActionRelaxPDB))
			}},
		{name: "a second change of the object while relaxed", rule: InvariantTemporary, step: "remove-overrides", text: "while the temporary change of step",
			break_: func(t *testing.T, p *planfile.Plan) {
				o := &p.Steps[idx(p, planfile.ActionRemoveOverrides)]
				o.Change = p.Steps[idx(p, planfile.ActionRelaxPDB)].Change
				p.Steps = move(p.Steps, idx(p, planfile.ActionRemoveOverrides), idx(p, planfile.ActionRevert))
			}},
		{name: "restored without waiting for the nodes", rule: InvariantRemedies, step: "revert", text: "without a nodes-settled wait",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps = remove(p.Steps, func(st *planfile.Step) bool { return st.Gate != nil && st.Gate.Kind == planfile.GateNodesSettled })
			}},
		{name: "a guard PDB relaxed", rule: InvariantRemedies, step: "relax-pdb", text: "guard PodDisruptionBudget openshift-etcd/etcd-guard-pdb",
			break_: func(t *testing.T, p *planfile.Plan) {
				for _, a := range []planfile.Action{planfile.ActionRelaxPDB, planfile.ActionRevert} {
					c := p.Steps[idx(p, a)].Change
					c.Object.Namespace, c.Object.Name = "openshift-etcd", "etcd-guard-pdb"
				}
				p.Steps[idx(p, planfile.ActionRevert)].Gate.Object = &p.Steps[idx(p, planfile.ActionRevert)].Change.Object
			}},
		{name: "the pre-4.11 etcd quorum guard relaxed", rule: InvariantRemedies, step: "relax-pdb", text: "guard PodDisruptionBudget openshift-etcd/etcd-quorum-guard",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps[idx(p, planfile.ActionRelaxPDB)].Change.Object.Namespace, p.Steps[idx(p, planfile.ActionRelaxPDB)].Change.Object.Name = "openshift-etcd", "etcd-quorum-guard"
				p.Steps[idx(p, planfile.ActionRevert)].Change.Object = p.Steps[idx(p, planfile.ActionRelaxPDB)].Change.Object
			}},
		{name: "a PDB that allows disruptions relaxed", rule: InvariantRemedies, step: "relax-pdb", text: "inspect.PDBAtLimit",
			snap: func(s *inspect.Snapshot) { s.PodDisruptionBudgets[0].DisruptionsAllowed = 1 }},
		{name: "an unvouched CSR approved", rule: InvariantRemedies, step: "approve-csr", text: "nothing vouches for (inspect.CSRVouch: no machine without a node has InternalDNS address evil)",
			break_: func(t *testing.T, p *planfile.Plan) {
				a := p.Steps[idx(p, planfile.ActionApproveCSR)].CSR
				a.Name, a.UID, a.Username, a.CommonName, a.Node = "csr-x", "uid-csr-x", "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper", "system:node:evil", "evil"
				p.Steps[idx(p, planfile.ActionApproveCSR)].Gate.Object.Name = "csr-x"
			}},
		{name: "a CSR approved as something it is not", rule: InvariantRemedies, step: "approve-csr", text: "but the snapshot's request says",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps[idx(p, planfile.ActionApproveCSR)].CSR.Username = "system:admin"
			}},
		{name: "an approval without its gate", rule: InvariantGates, step: "approve-csr", text: "csr-issued",
			break_: func(t *testing.T, p *planfile.Plan) { p.Steps[idx(p, planfile.ActionApproveCSR)].Gate = nil }},
		{name: "an admin promise not accepted", rule: InvariantRemedies, step: "acknowledge-admin-gate", text: "needs --accept admin-ack:ack-4.4-kube-1.18-api-removals-in-4.5",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Inputs.Accepted = []string{"force-redeployment:kube-apiserver", "remove-overrides"}
			}},
		{name: "force-redeployment without its accept name", rule: InvariantRemedies, step: "force-redeployment", text: "needs --accept force-redeployment:kube-apiserver",
			break_: func(t *testing.T, p *planfile.Plan) { p.Inputs.Accepted = nil }},
		{name: "force-redeployment waiting for the old revision", rule: InvariantGates, step: "force-redeployment", text: "minRevision above the snapshot's latest revision 9",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps[idx(p, planfile.ActionForceRedeployment)].Gate.StaticPods.MinRevision = 9
			}},
		{name: "a change that sets more than its fields say", rule: InvariantRemedies, step: "relax-pdb", text: "are not what its patch sets",
			break_: func(t *testing.T, p *planfile.Plan) {
				c := p.Steps[idx(p, planfile.ActionRelaxPDB)].Change
				c.Fields = c.Fields[:1]
			}},
		{name: "a user-paused pool unpaused without the remedy", rule: InvariantPools, step: "unpause-pool-master", text: "paused by the user before recovery",
			break_: func(t *testing.T, p *planfile.Plan) { p.Steps[idx(p, planfile.ActionUnpausePool)].Remedy = "" }},
		{name: "a user-paused pool whose pause does not block", rule: InvariantPools, step: "unpause-pool-master", text: "paused by the user before recovery",
			snap: func(s *inspect.Snapshot) {
				for i := range s.Findings {
					if s.Findings[i].Code == inspect.CodePoolPaused {
						delete(s.Findings[i].Details, "blocks")
					}
				}
			}},
		{name: "a change after restore-cvo", rule: InvariantCVOBracketing, step: "acknowledge-admin-gate", text: "after restore-cvo",
			break_: func(t *testing.T, p *planfile.Plan) {
				p.Steps = move(p.Steps, idx(p, planfile.ActionAcknowledgeGate), len(p.Steps)-1)
			}},
		{name: "a remediation plan that sets a desired update", rule: InvariantCVOBracketing, step: "set-desired-update", text: "has no set-desired-update",
			break_: func(t *testing.T, p *planfile.Plan) {
				r := idx(p, planfile.ActionRestoreCVO)
				p.Steps = append(p.Steps[:r], append([]planfile.Step{{Action: planfile.ActionSetDesiredUpdate, DesiredUpdate: &planfile.DesiredUpdate{Version: "4.4.4", Image: image444}}}, p.Steps[r:]...)...)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := s
			if tc.snap != nil {
				data, _ := json.Marshal(s)
				snap = &inspect.Snapshot{}
				if err := json.Unmarshal(data, snap); err != nil {
					t.Fatal(err)
				}
				tc.snap(snap)
			}
			p := clonePlan(t, good)
			if tc.break_ != nil {
				tc.break_(t, p)
			}
			renumber(p)
			err := Check(p, snap, nil)
			var ce *CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("the broken plan passed the check (%v)", err)
			}
			if ce.Rule != tc.rule || !strings.Contains(ce.Msg, tc.text) {
				t.Fatalf("got %v; want rule %s with %q", err, tc.rule, tc.text)
			}
			if tc.step == "" && ce.StepID != "" || tc.step != "" && !strings.Contains(ce.StepID, tc.step) {
				t.Fatalf("failing step %q, want one containing %q (%v)", ce.StepID, tc.step, err)
			}
		})
	}
}

// renumber gives the steps of a broken plan new IDs and keeps the references
// between them (revertedBy, reverts) pointing at the same steps.
func renumber(p *planfile.Plan) {
	old := make([]string, len(p.Steps))
	for i := range p.Steps {
		old[i] = p.Steps[i].ID
	}
	numberSteps(p.Steps)
	ids := map[string]string{}
	for i := range p.Steps {
		ids[old[i]] = p.Steps[i].ID
	}
	for i := range p.Steps {
		st := &p.Steps[i]
		if st.RevertedBy != "" {
			if n, ok := ids[st.RevertedBy]; ok {
				st.RevertedBy = n
			}
		}
		if st.Reverts != "" {
			if n, ok := ids[st.Reverts]; ok {
				st.Reverts = n
			}
		}
	}
}

// TestCheckAcceptsRemediationPlans: the plans the planner makes pass, also
// after a round trip through JSON.
func TestCheckAcceptsRemediationPlans(t *testing.T) {
	s, accept := everyWedge(t)
	p, err := makeRemedies(t, s, accept...)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(clonePlan(t, p), s, nil); err != nil {
		t.Fatal(err)
	}
}
