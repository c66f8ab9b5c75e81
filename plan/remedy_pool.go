package plan

import (
	"fmt"

	"github.com/openshift-recover/recover/inspect"
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

// poolRef is the object reference of a MachineConfigPool.
func poolRef(name string) ObjectRef {
	return ObjectRef{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfigPool", Name: name}
}

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
	st := Step{Action: ActionUnpausePool, Pool: name, Remedy: RemedyUnpausePool, Finding: fd.Code,
		Change: newChange(poolRef(name), p.UID, field{path: []string{"spec", "paused"}, after: false, before: true}),
		Reason: fmt.Sprintf("MachineConfigPool %s was paused before recovery, and inspect found that the pause holds the update (%s).%s Unpause it, as the EUS update docs and the MachineConfigControllerPausedPoolKubeletCA runbook say: the MCO then rolls every configuration queued for the pool, not only the one the update needs, node by node. recover unpauses a pool the user paused only as this remedy; the gate waits for the pool to roll out (inspect.PoolRolledOut).",
			name, oneLine(fd.Message), behind),
		Gate: &Gate{Kind: GatePoolUpdated, Pool: name, Description: "MachineConfigPool " + name + " has every machine updated, none degraded"}}
	rs.groups = append(rs.groups, &remedyGroup{phase: phasePools, pool: name, steps: []Step{st},
		rems: []remRef{{r: remediation(RemedyUnpausePool, fd, fmt.Sprintf("Unpause MachineConfigPool %s (paused by the user; the pause holds the update) and wait for it to roll out.", name)), pre: []int{0}}}})
}
