package inspect

import (
	"fmt"
	"strconv"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// pausedPool is the PoolPaused finding of a paused pool. It blocks (details
// blocks "true") when the pause holds the update: a pool the machine-config
// operator must finish before it reports its version (master, or one labelled
// required-for-upgrade) has machines behind during an update, or its kubelets lag
// so that kube-apiserver says Upgradeable=False (W11).
func (a *analysis) pausedPool(p MachineConfigPool) Finding {
	s := a.s
	subject := "machineconfigpool/" + p.Name
	required := p.GatesUpdate()
	behind := p.Rolling()
	updating := false
	if cv := s.ClusterVersion; cv != nil && len(cv.Status.History) > 0 {
		updating = cv.Status.History[0].State == configv1.PartialUpdate
	}
	ev := []Evidence{claim("spec.paused true", subject+" spec")}
	if behind {
		ev = append(ev, reality(fmt.Sprintf("%d of %d machines on %s (status.configuration %s)", p.UpdatedMachineCount, p.MachineCount, p.Configuration, orNone(p.StatusConfiguration)), subject+" status"))
	}
	var skew *configv1.ClusterOperatorStatusCondition
	if co := s.ClusterOperator(openshift.KubeAPIServer); co != nil {
		if c := co.Condition(configv1.OperatorUpgradeable); c != nil && c.Status == configv1.ConditionFalse && ClassifyUpgradeable(c.Reason) == UpgradeClassKubeletSkew {
			skew = c
			ev = append(ev, claim(fmt.Sprintf("Upgradeable=False reason %s: %s", c.Reason, oneLine(c.Message)), "clusteroperator/kube-apiserver status.conditions"))
		}
	}
	blocks := behind && ((required && updating) || skew != nil)
	msg := fmt.Sprintf("Pool %s is paused: its machines take no new configuration until it is unpaused.", p.Name)
	switch {
	case blocks && skew != nil:
		msg += fmt.Sprintf(" Its kubelets lag the control plane, so kube-apiserver says Upgradeable=False (%s) and the next minor update is blocked; unpausing applies all queued configuration, not only the update (W11).", skew.Reason)
	case blocks:
		msg += fmt.Sprintf(" It gates the machine-config operator's version and has %d of %d machines updated, so the update cannot complete while it is paused (W11).", p.UpdatedMachineCount, p.MachineCount)
	case required:
		msg += " It gates the machine-config operator's version, so an update cannot complete while it is paused."
	case behind:
		msg += fmt.Sprintf(" %d of %d machines are behind; the cluster may not update to a further minor until they catch up (EUS docs, W11).", p.MachineCount-p.UpdatedMachineCount, p.MachineCount)
	}
	class := ClassInforms
	if blocks {
		class = ClassBlocks
	}
	return Finding{Code: CodePoolPaused, Severity: SeverityWarning, Class: class, Subject: subject, Message: msg, Evidence: ev,
		Details: map[string]string{"pool": p.Name, "blocks": strconv.FormatBool(blocks)}}
}

// poolsBehind reports the pools that lag an update ClusterVersion calls
// Completed (W12): the CVO does not wait for pools other than the required ones,
// so "Completed" can stand beside workers on the old release.
func (a *analysis) poolsBehind() {
	s := a.s
	cv := s.ClusterVersion
	if cv == nil || len(cv.Status.History) < 2 || cv.Status.History[0].State != configv1.CompletedUpdate {
		return
	}
	h := cv.Status.History[0]
	for _, p := range s.MachineConfigPools {
		if p.GatesUpdate() {
			continue
		}
		rolled := PoolRolledOut(p)
		pausedBehind := p.Paused && p.Rolling()
		if rolled.OK && !pausedBehind {
			continue
		}
		subject := "machineconfigpool/" + p.Name
		degraded := p.DegradedMachineCount > 0
		if c := poolCondition(p, mcfgv1.MachineConfigPoolDegraded); c != nil && c.Status == corev1.ConditionTrue {
			degraded = true
		}
		class, state := ClassInforms, "still rolling out"
		switch {
		case degraded:
			class, state = ClassBlocks, fmt.Sprintf("degraded (%d machines)", p.DegradedMachineCount)
		case pausedBehind:
			class, state = ClassBlocks, "paused"
		}
		ev := []Evidence{
			claim(fmt.Sprintf("history[0] Completed %s", h.Version), cvSubject+" status.history"),
			reality(fmt.Sprintf("%d of %d machines updated, %d degraded, paused %t: %s", p.UpdatedMachineCount, p.MachineCount, p.DegradedMachineCount, p.Paused, firstNonEmpty(rolled.String(), "spec.paused with machines behind")), subject+" status"),
			rule("the CVO completes an update once the ClusterOperators report it; machine-config waits only for pools labelled required-for-upgrade (master), so other pools may still lag (BZ1982575, MCO FAQ)"),
		}
		a.add(Finding{Code: CodeCompletedWithPoolsBehind, Severity: SeverityWarning, Class: class, Subject: subject,
			Message: fmt.Sprintf("ClusterVersion says %s is Completed, but pool %s has %d of %d machines updated and is %s: its nodes still run the previous configuration (W12).",
				h.Version, p.Name, p.UpdatedMachineCount, p.MachineCount, state),
			Evidence: ev, Details: map[string]string{"pool": p.Name}})
	}
}
