package sim

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Library-go's installer controller: the node status reason of a failed installer
// pod, the operator condition and its reason, and the ClusterOperator reason the
// status union makes of them ("<Type minus Degraded>_<Reason>").
const (
	installerFailedReason     = "InstallerFailed"
	nodeInstallerDegraded     = "NodeInstallerDegraded"
	installerPodFailedReason  = "InstallerPodFailed"
	nodeInstallerPodFailedCO  = "NodeInstaller_InstallerPodFailed"
	redeployTrigger           = "a new forceRedeploymentReason"
	defaultInstallerFailError = "the simulator's installer-fails fault failed this installer"
)

// reconcileStaticPods rolls a revision out when the Deployment runs a release the
// ClusterOperator does not report, or when spec.forceRedeploymentReason changed (a
// new revision each time, also in the middle of a rollout, as the revision
// controller makes one for every change of its inputs), and resumes a rollout the
// must-gather caught half done.
func (op *operator) reconcileStaticPods(ctx context.Context, version, reported string) bool {
	op.mu.Lock()
	first := op.redeploy == "" && !op.redeploySeen
	op.mu.Unlock()
	if first && version == "" && op.spec.Deployment != "" {
		// Not running yet (its Deployment is not rolled out): adopting the loaded
		// rollout now would not know which release it is for, and a later look
		// at the release would start a new revision beside it. Its Deployment
		// wakes it.
		return true
	}
	op.adoptDegraded(ctx, nodeInstallerPodFailedCO)
	reason, err := op.forceRedeploymentReason(ctx)
	if err != nil {
		op.retryLater(ctx)
		return true
	}
	op.mu.Lock()
	first = op.redeploy == "" && !op.redeploySeen
	if first {
		op.redeploy, op.redeploySeen = reason, true
	}
	forced := !first && reason != op.redeploy
	op.mu.Unlock()
	if first {
		op.adoptRollout(ctx, version, reported)
	}
	op.mu.Lock()
	resuming := op.inflight.rev > 0
	op.mu.Unlock()
	switch {
	case version != "" && version != reported:
		return op.rolloutRevision(ctx, version, false, forced, reason)
	case forced && reported != "":
		return op.rolloutRevision(ctx, reported, true, true, reason)
	case resuming && reported != "":
		return op.rolloutRevision(ctx, reported, true, false, reason)
	}
	return true
}

// adoptRollout makes a rollout the loaded status shows under way (a node below
// latestAvailableRevision) the operator's own, so that it resumes that revision
// rather than creating another.
func (op *operator) adoptRollout(ctx context.Context, version, reported string) {
	st, err := op.updateStaticPodStatus(ctx, func(*operatorv1.StaticPodOperatorStatus) bool { return false })
	if err != nil || st.LatestAvailableRevision == 0 {
		return
	}
	for _, ns := range st.NodeStatuses {
		if ns.CurrentRevision < st.LatestAvailableRevision {
			trigger := redeployTrigger
			if version != "" && version != reported {
				trigger = "release " + version
			}
			op.mu.Lock()
			op.inflight = rollout{trigger: trigger, rev: st.LatestAvailableRevision}
			op.mu.Unlock()
			return
		}
	}
}

// rollout is a static-pod rollout in flight: what started it and its revision.
type rollout struct {
	trigger string
	rev     int32
}

// rolloutRevision rolls a revision out node by node, the way library-go's
// installer controller does: a new latestAvailableRevision when bump (a new
// forceRedeploymentReason) or when the rollout in flight is not this one; then for
// one node at a time (the node already in transition first) targetRevision,
// installer-<N>-<node> to Succeeded (or Failed, retried with backoff, under an
// installer-fails fault), the kubelet restarting the static pod (the mirror pod
// then carries revision=N and the new image), currentRevision=N. Only once every
// node runs N does the ClusterOperator report the release's versions; a redeploy
// (keepVersions) keeps them. reason is the forceRedeploymentReason acted on. It
// returns false when interrupted (a newer release or reason, or the end), true
// when the rollout finished or was put off after an API error.
func (op *operator) rolloutRevision(ctx context.Context, version string, keepVersions, bump bool, reason string) bool {
	name := op.spec.ClusterOperator
	trigger := "release " + version
	if keepVersions {
		trigger = redeployTrigger
	}
	op.mu.Lock()
	inflight := op.inflight
	op.redeploy = reason
	op.mu.Unlock()
	why := trigger
	if bump {
		why = redeployTrigger
	}
	bump = bump || inflight.rev == 0 || inflight.trigger != trigger
	rev := inflight.rev
	status, err := op.updateStaticPodStatus(ctx, func(st *operatorv1.StaticPodOperatorStatus) bool {
		if bump || st.LatestAvailableRevision < rev {
			rev = st.LatestAvailableRevision + 1
		} else {
			rev = st.LatestAvailableRevision
		}
		st.LatestAvailableRevision = rev
		st.LatestAvailableRevisionReason = ""
		setOperatorCondition(&st.Conditions, "NodeInstallerProgressing", operatorv1.ConditionTrue, "NodeInstaller", revisionSummary(st.NodeStatuses, rev))
		return true
	})
	if err != nil {
		op.s.rec.record(op.actor, "Error", op.spec.StaticPods.Resource+"/"+staticPodSingleton, err.Error(), nil)
		op.retryLater(ctx)
		return true
	}
	op.mu.Lock()
	op.inflight = rollout{trigger: trigger, rev: rev}
	op.mu.Unlock()
	if bump {
		op.s.rec.record(op.actor, "RevisionCreated", op.spec.StaticPods.Resource+"/"+staticPodSingleton, fmt.Sprintf("revision %d for %s", rev, why), nil)
	}
	if !op.progressing(ctx, version, "NodeInstaller", "NodeInstallerProgressing: "+revisionSummary(status.NodeStatuses, rev)) {
		return false
	}
	for {
		node := nextNode(status.NodeStatuses, rev)
		if node == "" {
			break
		}
		if op.superseded(ctx, version) {
			return false
		}
		if !op.installRevision(ctx, version, node, rev) {
			return false
		}
		if status, err = op.updateStaticPodStatus(ctx, func(*operatorv1.StaticPodOperatorStatus) bool { return false }); err != nil {
			return false
		}
	}
	if _, err := op.updateStaticPodStatus(ctx, func(st *operatorv1.StaticPodOperatorStatus) bool {
		setOperatorCondition(&st.Conditions, "NodeInstallerProgressing", operatorv1.ConditionFalse, "AllNodesAtLatestRevision", revisionSummary(st.NodeStatuses, rev))
		setNodeInstallerDegraded(st)
		return true
	}); err != nil {
		return false
	}
	op.mu.Lock()
	op.inflight = rollout{}
	op.mu.Unlock()
	op.s.own.set(name, nil)
	msg := "NodeInstallerProgressing: " + fmt.Sprintf("%d nodes are at revision %d", len(status.NodeStatuses), rev)
	if keepVersions {
		err := op.s.updateClusterOperator(ctx, name, func(co *configv1.ClusterOperator) bool {
			setCondition(&co.Status.Conditions, conditionUpdate{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Reason: "AsExpected", Message: msg})
			setCondition(&co.Status.Conditions, op.s.degradedCondition(name))
			return true
		})
		return err == nil
	}
	return op.reportVersion(ctx, version, "AsExpected", msg)
}

// nextNode returns the node to install rev on next: the one already in
// transition, else the first in nodeStatuses order below rev ("" when none).
func nextNode(statuses []operatorv1.NodeStatus, rev int32) string {
	for _, ns := range statuses {
		if ns.TargetRevision != 0 && ns.CurrentRevision < rev {
			return ns.NodeName
		}
	}
	for _, ns := range statuses {
		if ns.CurrentRevision < rev {
			return ns.NodeName
		}
	}
	return ""
}

// superseded reports whether the rollout of version should give way: the
// Deployment moved to another release, or spec.forceRedeploymentReason changed
// since the operator last acted on it.
func (op *operator) superseded(ctx context.Context, version string) bool {
	if v, _ := op.current(); v != version && v != "" {
		return true
	}
	reason, err := op.forceRedeploymentReason(ctx)
	if err != nil {
		return false
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	return reason != op.redeploy
}

// installRevision installs revision rev on one node, retrying failed installers
// with library-go's backoff; false when interrupted.
func (op *operator) installRevision(ctx context.Context, version, node string, rev int32) bool {
	sp := op.spec.StaticPods
	for {
		var target operatorv1.NodeStatus
		if _, err := op.updateStaticPodStatus(ctx, func(st *operatorv1.StaticPodOperatorStatus) bool {
			for i := range st.NodeStatuses {
				ns := &st.NodeStatuses[i]
				if ns.NodeName != node {
					// One target at a time (the CRD's rule).
					ns.TargetRevision = 0
					continue
				}
				if ns.LastFailedRevision != rev {
					// A new target drops the old failure (deepCopyNodeStatusWithoutOldFailedState).
					*ns = operatorv1.NodeStatus{NodeName: ns.NodeName, CurrentRevision: ns.CurrentRevision}
				}
				ns.TargetRevision = rev
				target = *ns
			}
			setNodeInstallerDegraded(st)
			return true
		}); err != nil {
			return false
		}
		installer, err := op.startInstaller(ctx, node, installerPodName(target))
		if err != nil {
			op.s.rec.record(op.actor, "Error", "Pod "+sp.Namespace+"/installer", err.Error(), nil)
			return false
		}
		op.s.rec.record(op.actor, "InstallerStarted", "Pod "+sp.Namespace+"/"+installer.Name, fmt.Sprintf("installing revision %d on %s", rev, node), nil)
		if !op.waitWhileStuck(ctx, version, node) {
			return false
		}
		if !op.pauseFor(ctx, func(t Timing) time.Duration { return t.StaticPodNode.Duration }, version) {
			return false
		}
		f, fails := op.s.faults.findInstallerFailure(op.spec.ClusterOperator, node, rev)
		if !fails {
			return op.installSucceeded(ctx, version, node, rev, installer)
		}
		count, ok := op.installFailed(ctx, node, rev, installer, f)
		if !ok {
			return false
		}
		// Back off before the next installer, measured from the failure; a new
		// revision (a new reason, a new release) skips the wait.
		if !op.backoff(ctx, op.s.timings().installerBackoff(count), version) {
			return false
		}
	}
}

// installerPodName is library-go's getInstallerPodName: installer-<rev>-<node>, or
// installer-<rev>-retry-<failures>-<node> once the revision failed on the node.
func installerPodName(ns operatorv1.NodeStatus) string {
	retries := 0
	if ns.TargetRevision == ns.LastFailedRevision {
		retries = ns.LastFailedCount + ns.LastFallbackCount
	}
	if retries == 0 {
		return fmt.Sprintf("installer-%d-%s", ns.TargetRevision, ns.NodeName)
	}
	return fmt.Sprintf("installer-%d-retry-%d-%s", ns.TargetRevision, retries, ns.NodeName)
}

// installSucceeded completes a node's install: installer Succeeded, the kubelet
// restarting the static pod (unless the kubelet-false-success fault), and
// currentRevision=rev.
func (op *operator) installSucceeded(ctx context.Context, version, node string, rev int32, installer *corev1.Pod) bool {
	sp := op.spec.StaticPods
	if err := op.finishInstaller(ctx, installer); err != nil {
		op.s.rec.record(op.actor, "Error", "Pod "+sp.Namespace+"/"+installer.Name, err.Error(), nil)
		return false
	}
	op.s.rec.record(op.actor, "InstallerSucceeded", "Pod "+sp.Namespace+"/"+installer.Name, "phase Succeeded", nil)
	mirror := sp.PodPrefix + "-" + node
	if _, falseSuccess := op.s.faults.find(FaultKubeletFalseSuccess, op.spec.ClusterOperator, node); falseSuccess {
		op.s.rec.record(op.actor, "KubeletFalseSuccess", "Pod "+sp.Namespace+"/"+mirror,
			fmt.Sprintf("the installer reported Succeeded but %s keeps running the old revision", node), nil)
	} else {
		_, image := op.current()
		if err := op.restartStaticPod(ctx, node, rev, image); err != nil {
			op.s.rec.record(op.actor, "Error", "Pod "+sp.Namespace+"/"+mirror, err.Error(), nil)
			return false
		}
		op.s.rec.record(op.actor, "MirrorPodUpdated", "Pod "+sp.Namespace+"/"+mirror, fmt.Sprintf("revision %d", rev), nil)
	}
	var statuses []operatorv1.NodeStatus
	if _, err := op.updateStaticPodStatus(ctx, func(st *operatorv1.StaticPodOperatorStatus) bool {
		for i := range st.NodeStatuses {
			if st.NodeStatuses[i].NodeName == node {
				st.NodeStatuses[i].CurrentRevision = rev
				st.NodeStatuses[i].TargetRevision = 0
			}
		}
		setOperatorCondition(&st.Conditions, "NodeInstallerProgressing", operatorv1.ConditionTrue, "NodeInstaller", revisionSummary(st.NodeStatuses, rev))
		setNodeInstallerDegraded(st)
		statuses = st.NodeStatuses
		return true
	}); err != nil {
		return false
	}
	op.s.rec.record(op.actor, "NodeAtRevision", op.spec.StaticPods.Resource+"/"+staticPodSingleton, fmt.Sprintf("nodeStatuses: %s currentRevision %d", node, rev), nil)
	if op.s.own.set(op.spec.ClusterOperator, installerDegradedCO(statuses)) {
		if err := op.writeDegraded(ctx); err != nil {
			return false
		}
	}
	return op.progressing(ctx, version, "NodeInstaller", "NodeInstallerProgressing: "+revisionSummary(statuses, rev))
}

// installFailed ends the installer pod Failed with the fault's termination
// message and records the failure as the installer controller does: the node's
// lastFailedRevision, lastFailedTime, lastFailedCount+1, lastFailedReason
// InstallerFailed and lastFailedRevisionErrors; NodeInstallerDegraded on the
// operator resource; Degraded NodeInstaller_InstallerPodFailed on the
// ClusterOperator. It returns the node's failure count.
func (op *operator) installFailed(ctx context.Context, node string, rev int32, installer *corev1.Pod, f Fault) (int, bool) {
	sp := op.spec.StaticPods
	msg := f.Message
	if msg == "" {
		msg = defaultInstallerFailError
	}
	if err := op.failInstaller(ctx, installer, msg); err != nil {
		op.s.rec.record(op.actor, "Error", "Pod "+sp.Namespace+"/"+installer.Name, err.Error(), nil)
		return 0, false
	}
	var count int
	var statuses []operatorv1.NodeStatus
	if _, err := op.updateStaticPodStatus(ctx, func(st *operatorv1.StaticPodOperatorStatus) bool {
		now := metav1.Now()
		for i := range st.NodeStatuses {
			ns := &st.NodeStatuses[i]
			if ns.NodeName != node {
				continue
			}
			ns.LastFailedRevision = rev
			ns.LastFailedTime = &now
			ns.LastFailedCount++
			ns.LastFailedReason = installerFailedReason
			ns.LastFailedRevisionErrors = []string{"installer: " + msg}
			count = ns.LastFailedCount
		}
		setNodeInstallerDegraded(st)
		statuses = st.NodeStatuses
		return true
	}); err != nil {
		return 0, false
	}
	op.s.rec.record(op.actor, "InstallerFailed", "Pod "+sp.Namespace+"/"+installer.Name,
		fmt.Sprintf("revision %d on %s failed (%s time): installer: %s", rev, node, nthTime(count), msg), nil)
	if op.s.own.set(op.spec.ClusterOperator, installerDegradedCO(statuses)) {
		if err := op.writeDegraded(ctx); err != nil {
			return 0, false
		}
	}
	return count, true
}

// failingNodes groups library-go's "failing" nodes (lastFailedRevision equal to
// a nonzero targetRevision, not a fallback) by revision, with their errors.
func failingNodes(statuses []operatorv1.NodeStatus) (revs []int32, counts map[int32]int, errs map[int32][]string) {
	counts, errs = map[int32]int{}, map[int32][]string{}
	for _, ns := range statuses {
		if ns.LastFailedRevision != 0 && ns.LastFailedRevision == ns.TargetRevision && ns.LastFailedReason != "OperandFailedFallback" {
			if counts[ns.LastFailedRevision] == 0 {
				revs = append(revs, ns.LastFailedRevision)
			}
			counts[ns.LastFailedRevision]++
			errs[ns.LastFailedRevision] = append(errs[ns.LastFailedRevision], ns.LastFailedRevisionErrors...)
		}
	}
	sort.Slice(revs, func(i, j int) bool { return revs[i] < revs[j] })
	return revs, counts, errs
}

// nodeInstallerDegradedMessage is the NodeInstallerDegraded condition's message
// ("" when no node is failing).
func nodeInstallerDegradedMessage(statuses []operatorv1.NodeStatus) string {
	revs, counts, errs := failingNodes(statuses)
	var parts []string
	for _, r := range revs {
		parts = append(parts, fmt.Sprintf("%d nodes are failing on revision %d:\n%v", counts[r], r, strings.Join(errs[r], "\n")))
	}
	return strings.Join(parts, "; ")
}

// setNodeInstallerDegraded sets the operator resource's NodeInstallerDegraded
// condition from the node statuses.
func setNodeInstallerDegraded(st *operatorv1.StaticPodOperatorStatus) {
	if msg := nodeInstallerDegradedMessage(st.NodeStatuses); msg != "" {
		setOperatorCondition(&st.Conditions, nodeInstallerDegraded, operatorv1.ConditionTrue, installerPodFailedReason, msg)
		return
	}
	for _, c := range st.Conditions {
		if c.Type == nodeInstallerDegraded {
			setOperatorCondition(&st.Conditions, nodeInstallerDegraded, operatorv1.ConditionFalse, "", "")
		}
	}
}

// installerDegradedCO is the ClusterOperator Degraded condition library-go's
// status union makes of NodeInstallerDegraded: every line prefixed with the
// condition type; nil when no node is failing.
func installerDegradedCO(statuses []operatorv1.NodeStatus) *conditionUpdate {
	msg := nodeInstallerDegradedMessage(statuses)
	if msg == "" {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(msg, "\n") {
		lines = append(lines, nodeInstallerDegraded+": "+l)
	}
	return &conditionUpdate{Type: configv1.OperatorDegraded, Status: configv1.ConditionTrue, Reason: nodeInstallerPodFailedCO, Message: strings.Join(lines, "\n")}
}

// backoff waits d unless the rollout is superseded first (false) or ctx ends.
func (op *operator) backoff(ctx context.Context, d time.Duration, version string) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	woken := false
	defer func() {
		if woken {
			op.poke()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return !op.superseded(ctx, version)
		case <-op.wake:
			woken = true
			if op.superseded(ctx, version) {
				return false
			}
		}
	}
}

// startInstaller creates the installer pod name bound to node
// (installer-<rev>-retry-<k>-<node> when that name is taken by an earlier run),
// and reports it Running.
func (op *operator) startInstaller(ctx context.Context, node, name string) (*corev1.Pod, error) {
	sp := op.spec.StaticPods
	pods := op.s.kube.CoreV1().Pods(sp.Namespace)
	if err := op.s.ensureServiceAccountNamed(ctx, sp.Namespace, "installer-sa"); err != nil {
		return nil, err
	}
	rev := strings.TrimPrefix(name, "installer-")
	rev, _, _ = strings.Cut(rev, "-")
	for retry := 1; ; retry++ {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sp.Namespace, Labels: map[string]string{"app": "installer"}},
			Spec: corev1.PodSpec{
				NodeName:           node,
				RestartPolicy:      corev1.RestartPolicyNever,
				ServiceAccountName: "installer-sa",
				PriorityClassName:  "system-node-critical",
				Tolerations:        []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				Containers: []corev1.Container{{
					Name:                     "installer",
					Image:                    op.operatorImage(),
					Command:                  []string{"cluster-" + op.spec.ClusterOperator + "-operator", "installer"},
					Args:                     []string{"--revision=" + rev, "--namespace=" + sp.Namespace, "--pod=" + sp.PodPrefix + "-pod"},
					TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
				}},
			},
		}
		created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			// An installer of this name that has not finished is the one this
			// node is running (an attempt interrupted before it ended, as when
			// the operator's own Deployment rolls): library-go never starts a
			// second installer beside a running one, so neither does this.
			if live, gerr := pods.Get(ctx, name, metav1.GetOptions{}); gerr == nil &&
				live.Status.Phase != corev1.PodSucceeded && live.Status.Phase != corev1.PodFailed {
				return live, nil
			}
		}
		if apierrors.IsAlreadyExists(err) && retry < 10 {
			// Left finished by an earlier run of the simulator: take the next retry name.
			name = fmt.Sprintf("installer-%s-retry-%d-%s", rev, retry, node)
			continue
		}
		if err != nil {
			return nil, err
		}
		n, ok := simNode(op.ops.nodes, node)
		if !ok {
			n = &corev1.Node{}
		}
		runningStatus(created, n)
		return pods.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	}
}

// failInstaller reports the installer pod Failed, its container terminated with
// exit code 1 and msg as its termination message.
func (op *operator) failInstaller(ctx context.Context, pod *corev1.Pod, msg string) error {
	pods := op.s.kube.CoreV1().Pods(pod.Namespace)
	return retryConflict(ctx, func() error {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		p.Status.Phase = corev1.PodFailed
		for i := range p.Status.Conditions {
			if t := p.Status.Conditions[i].Type; t == corev1.PodReady || t == corev1.ContainersReady {
				p.Status.Conditions[i].Status = corev1.ConditionFalse
				p.Status.Conditions[i].Reason = "PodFailed"
				p.Status.Conditions[i].LastTransitionTime = now
			}
		}
		p.Status.ContainerStatuses = nil
		for _, c := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, Started: new(bool),
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: msg, StartedAt: now, FinishedAt: now}},
			})
		}
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
}

// nthTime is library-go's nthTimeOr1st.
func nthTime(n int) string {
	switch {
	case n == 0:
		return "1st"
	case n%10 == 1 && n%100 != 11:
		return strconv.Itoa(n) + "st"
	case n%10 == 2 && n%100 != 12:
		return strconv.Itoa(n) + "nd"
	case n%10 == 3 && n%100 != 13:
		return strconv.Itoa(n) + "rd"
	}
	return strconv.Itoa(n) + "th"
}
