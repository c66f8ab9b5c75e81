package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The drain remedy (W1; openshift/runbooks alerts/machine-config-operator/
// MachineConfigControllerDrainError.md: "temporarily patch the PDB to
// minAvailable: 0", restore it afterwards). A PodDisruptionBudget that allows no
// disruption holds the machine-config controller's drain of the nodes its pods
// run on; relaxing it lets the drain evict them. The relaxation is temporary: a
// wait for the held nodes to settle, then a revert that writes back exactly what
// apply journaled before the change. Budgets holding the same nodes are relaxed
// together (one cannot drain while the other still holds it).

// pdbRef is the object reference of a PodDisruptionBudget.

// pdb returns the snapshot's PodDisruptionBudget.
func (rs *remedyStage) pdb(ns, name string) *inspect.PodDisruptionBudget {
	return snapshotPDB(rs.s, ns, name)
}

// snapshotPDB returns the snapshot's PodDisruptionBudget ns/name, nil when it
// holds none.
func snapshotPDB(s *inspect.Snapshot, ns, name string) *inspect.PodDisruptionBudget {
	for i := range s.PodDisruptionBudgets {
		if p := &s.PodDisruptionBudgets[i]; p.Namespace == ns && p.Name == name {
			return p
		}
	}
	return nil
}

// snapshotCSR returns the snapshot's certificate signing request of that name.
func snapshotCSR(s *inspect.Snapshot, name string) *inspect.CertificateSigningRequest {
	for i := range s.CertificateSigningRequests {
		if c := &s.CertificateSigningRequests[i]; c.Name == name {
			return c
		}
	}
	return nil
}

// guard refuses to relax a guard PDB: the member it counts must be repaired.
func (rs *remedyStage) guard(fd inspect.Finding) {
	ns, name := fd.Details["namespace"], fd.Details["name"]
	component := fd.Details["component"]
	if component == "" {
		component = "control-plane"
	}
	held := planfile.CapList(detailList(fd, "nodes"), 3)
	unready := detailList(fd, "unready")
	why := fmt.Sprintf("recover never relaxes the %s guard PodDisruptionBudget %s/%s", component, ns, name)
	if held != "" {
		why += fmt.Sprintf(": it holds the drain of %s", held)
	}
	if len(unready) > 0 {
		why += fmt.Sprintf(" because the %s member on %s is not ready; repair that member first (its static pod and guard pod on %s), then the drain proceeds by itself", component, planfile.CapList(unready, 3), planfile.CapList(unready, 3))
	} else {
		why += fmt.Sprintf("; repair the %s member that is not ready first, then the drain proceeds by itself", component)
	}
	rs.refuse(fd, planfile.RemedyGuardPDB, "", "", why+" (a guard keeps quorum and the API up: OCPBUGS-23796, library-go#1614)")
}

// relaxPDBs plans the relax, wait and revert of every budget holding a drain,
// grouping the budgets whose held nodes overlap.
func (rs *remedyStage) relaxPDBs(fds []inspect.Finding) {
	type held struct {
		fd    inspect.Finding
		pdb   *inspect.PodDisruptionBudget
		nodes []string
	}
	var hs []held
	for _, fd := range fds {
		ns, name := fd.Details["namespace"], fd.Details["name"]
		nodes := detailList(fd, "nodes")
		p := rs.pdb(ns, name)
		switch {
		case ns == "" || name == "" || len(nodes) == 0:
			rs.warnf("%s on %s lacks its namespace, name or nodes: no remedy is planned for it", fd.Code, fd.Subject)
			continue
		case p == nil:
			rs.warnf("%s names PodDisruptionBudget %s/%s, which the snapshot does not hold (were poddisruptionbudgets collected?): no remedy is planned for it", fd.Code, ns, name)
			continue
		case !inspect.PDBAtLimit(*p):
			rs.warnf("PodDisruptionBudget %s/%s allows %d disruption(s) now: it no longer holds a drain, so it is not relaxed", ns, name, p.DisruptionsAllowed)
			continue
		}
		hs = append(hs, held{fd: fd, pdb: p, nodes: nodes})
	}
	// Union the budgets that hold a node in common.
	parent := make([]int, len(hs))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	for i, h := range hs {
		for _, n := range h.nodes {
			if j, ok := owner[n]; ok {
				parent[find(i)] = find(j)
			} else {
				owner[n] = i
			}
		}
	}
	var roots []int
	members := map[int][]int{}
	for i := range hs {
		r := find(i)
		if _, ok := members[r]; !ok {
			roots = append(roots, r)
		}
		members[r] = append(members[r], i)
	}
	for _, r := range roots {
		g := &remedyGroup{phase: phasePDB}
		var nodes, names []string
		for _, i := range members[r] {
			for _, n := range hs[i].nodes {
				if !slices.Contains(nodes, n) {
					nodes = append(nodes, n)
				}
			}
			names = append(names, hs[i].pdb.Key())
		}
		sort.Strings(nodes)
		for _, i := range members[r] {
			h := hs[i]
			together := ""
			if others := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == h.pdb.Key() }); len(others) > 0 {
				together = fmt.Sprintf(" It is relaxed together with %s, which hold the same nodes: no node could drain while one of them still held it.", strings.Join(others, ", "))
			}
			g.steps = append(g.steps, rs.relaxStep(h.fd, h.pdb, together))
		}
		wait := len(g.steps)
		g.steps = append(g.steps, planfile.Step{Action: planfile.ActionWait, Remedy: planfile.RemedyRelaxPDB, Finding: inspect.CodeDrainBlockedByPDB,
			Reason: fmt.Sprintf("Wait, with %s relaxed, until the machine-config controller has drained %s and the machine-config daemon has finished with %s: the last drain request applied (lastAppliedDrain equals desiredDrain), the daemon Done and the desired configuration running (inspect.NodeSettled). The budget is restored by the next step whatever happens next: if the pool's next node is held again, run recover plan again.", strings.Join(names, ", "), planfile.CapList(nodes, 5), pronoun(len(nodes))),
			Gate: &planfile.Gate{Kind: planfile.GateNodesSettled, Nodes: nodes,
				Description: fmt.Sprintf("%s: desiredDrain applied, machine-config daemon Done, desired configuration running", planfile.CapList(nodes, 5))}})
		for k, i := range members[r] {
			h := hs[i]
			rev := len(g.steps)
			g.steps = append(g.steps, rs.revertStep(h.fd, h.pdb, g.steps[k]))
			g.pairs = append(g.pairs, [2]int{k, rev})
			g.rems = append(g.rems, remRef{r: remediation(planfile.RemedyRelaxPDB, h.fd,
				fmt.Sprintf("Relax PodDisruptionBudget %s to minAvailable 0 until %s drained and settled, then restore it exactly.", h.pdb.Key(), planfile.CapList(h.nodes, 3))),
				pre: []int{k, wait, rev}})
		}
		rs.groups = append(rs.groups, g)
	}
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// relaxStep sets minAvailable 0 and drops maxUnavailable.
func (rs *remedyStage) relaxStep(fd inspect.Finding, p *inspect.PodDisruptionBudget, together string) planfile.Step {
	ch := planfile.RelaxPDBChange(p.Namespace, p.Name, p.UID, p.MinAvailable, p.MaxUnavailable)
	pods := planfile.CapList(detailList(fd, "pods"), 4)
	nodes := planfile.CapList(detailList(fd, "nodes"), 4)
	bound := "minAvailable " + orNone(p.MinAvailable)
	if p.MaxUnavailable != "" {
		bound = "maxUnavailable " + p.MaxUnavailable
	}
	reason := fmt.Sprintf("PodDisruptionBudget %s (%s) allows no disruption (disruptionsAllowed %d, currentHealthy %d, desiredHealthy %d) and guards %s on %s, whose drain the machine-config controller keeps retrying (\""+strings.TrimSuffix(openshift.EvictionRefused, ".")+"\"). "+
		"Relax it to minAvailable 0, as the MCO runbook MachineConfigControllerDrainError says (\"temporarily patch the PDB to minAvailable: 0\"), so the drain can evict them. The change is temporary: apply journals spec.minAvailable and spec.maxUnavailable first, and the revert step puts back exactly those values.%s",
		p.Key(), bound, p.DisruptionsAllowed, p.CurrentHealthy, p.DesiredHealthy, orWord(pods, "its pods"), orWord(nodes, "the draining nodes"), together)
	return planfile.Step{Action: planfile.ActionRelaxPDB, Remedy: planfile.RemedyRelaxPDB, Finding: fd.Code, Change: ch, Reason: reason}
}

// revertStep restores what the relax step changed.
func (rs *remedyStage) revertStep(fd inspect.Finding, p *inspect.PodDisruptionBudget, relax planfile.Step) planfile.Step {
	ch := *relax.Change
	ch.Patch = ch.Before // what the snapshot showed; apply writes back the journaled pre-image
	ch.Before = relax.Change.Patch
	was := []string{}
	if p.MinAvailable != "" {
		was = append(was, "minAvailable "+p.MinAvailable)
	}
	if p.MaxUnavailable != "" {
		was = append(was, "maxUnavailable "+p.MaxUnavailable)
	}
	if len(was) == 0 {
		was = append(was, "neither bound set")
	}
	return planfile.Step{Action: planfile.ActionRevert, Remedy: planfile.RemedyRelaxPDB, Finding: fd.Code, Change: &ch,
		Reason: fmt.Sprintf("Restore PodDisruptionBudget %s exactly as it was before it was relaxed (the snapshot showed %s; apply writes back the pre-image it journaled just before the relax, read live): recover never leaves a budget relaxed, and restores it also when a run stops early.", p.Key(), strings.Join(was, ", ")),
		Gate: &planfile.Gate{Kind: planfile.GateRestored, Object: &ch.Object,
			Description: fmt.Sprintf("PodDisruptionBudget %s carries again the %s journaled before it was relaxed", p.Key(), planfile.FieldsText(ch.Fields))}}
}

func orNone(s string) string {
	if s == "" {
		return "unset"
	}
	return s
}

func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}
