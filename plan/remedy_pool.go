package plan

import (
	"fmt"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The paused-pool remedy (W11; the EUS update docs: "If pools are not unpaused,
// the cluster is not permitted to update to any future minor versions"; Bug
// 1869876 / MCO#2028; runbook MachineConfigControllerPausedPoolKubeletCA). A
// pool the user paused is unpaused only when inspect's PoolPaused finding says
// the pause holds the update (details blocks=true): a required pool with
// machines behind during an update, or kubelets so far behind that the
// kube-apiserver says Upgradeable=False. Unpausing applies every queued
// configuration, not only the one the update needs; the gate waits for the pool
// to roll out (inspect.PoolRolledOut).

// unpause plans the unpause of a pool whose pause blocks the update.
func (rs *remedyStage) unpause(fd inspect.Finding) {
	name := fd.Details["pool"]
	var p *inspect.MachineConfigPool
	for i := range rs.s.MachineConfigPools {
		if rs.s.MachineConfigPools[i].Name == name {
			p = &rs.s.MachineConfigPools[i]
		}
	}
	switch {
	case p == nil:
		rs.warnf("%s names pool %q, which the snapshot does not hold: it is not unpaused", fd.Code, name)
		return
	case !p.Paused:
		return
	}
	behind := ""
	if p.UpdatedMachineCount < p.MachineCount {
		behind = fmt.Sprintf(" %d of its %d machines are not on %s yet.", p.MachineCount-p.UpdatedMachineCount, p.MachineCount, orWord(p.Configuration, "its configuration"))
	}
	st := planfile.Step{Action: planfile.ActionUnpausePool, Pool: name, Remedy: planfile.RemedyUnpausePool, Finding: fd.Code,
		Change: planfile.NewChange(planfile.PoolRef(name), p.UID, planfile.Field{Path: []string{"spec", "paused"}, After: false, Before: true}),
		Reason: fmt.Sprintf("MachineConfigPool %s was paused before recovery, and inspect found that the pause holds the update (%s).%s Unpause it, as the EUS update docs and the MachineConfigControllerPausedPoolKubeletCA runbook say: the MCO then rolls every configuration queued for the pool, not only the one the update needs, node by node. recover unpauses a pool the user paused only as this remedy; the gate waits for the pool to roll out (inspect.PoolRolledOut).",
			name, oneLine(fd.Message), behind),
		Gate: &planfile.Gate{Kind: planfile.GatePoolUpdated, Pool: name, Description: "MachineConfigPool " + name + " has every machine updated, none degraded"}}
	rs.groups = append(rs.groups, &remedyGroup{phase: phasePools, pool: name, steps: []planfile.Step{st},
		rems: []remRef{{r: remediation(planfile.RemedyUnpausePool, fd, fmt.Sprintf("Unpause MachineConfigPool %s (paused by the user; the pause holds the update) and wait for it to roll out.", name)), pre: []int{0}}}})
}
