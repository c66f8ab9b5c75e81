package sim

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/openshift-recover/recover/internal/openshift"
)

// drainTimeoutReason is the machine-config daemon's Degraded reason when a drain
// did not finish in time (machine-config-operator pkg/daemon/drain.go).
func drainTimeoutReason(node string) string {
	return fmt.Sprintf("failed to drain node: %s after 1 hour. Please see machine-config-controller logs for more information", node)
}

// daemon is the machine-config daemon of one node together with the
// machine-config controller's drain controller acting on it, from the moment the
// node controller gave the node a new desiredConfig until the node runs it:
//
//  1. the daemon sets state Working and asks for a drain: desiredDrain
//     "drain-<config>";
//  2. the drain controller cordons the node and evicts its pods through the
//     Eviction API (DaemonSet pods, mirror pods and finished pods stay, as
//     kubectl's drain helper leaves them), retrying every Timing.DrainRetry while
//     an eviction is refused; when the node is empty it sets lastAppliedDrain to
//     the same value. A daemon that waited Timing.DrainTimeout reports the node
//     Degraded with the daemon's "failed to drain node: ..." reason and keeps
//     waiting; once the drain completes it goes back to Working;
//  3. the daemon writes the config and reboots (Timing.MachineConfigNode): the
//     kubelet of the config's release;
//  4. it asks for an uncordon (desiredDrain "uncordon-<config>"), the drain
//     controller uncordons and records it, and the daemon sets currentConfig and
//     state Done.
//
// It returns when the node runs target, or when ctx ends.
func (p *pools) daemon(ctx context.Context, pool, node, target string) {
	// The node controller chose this node from its lister, which can lag the
	// daemon that just finished it: a real daemon acts on its own node's live
	// annotations, so a node that already runs target is left alone (starting
	// again cordoned and drained a node that was done).
	n, err := p.s.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		if ctx.Err() == nil {
			p.s.rec.record("machine-config", "Error", "Node "+node, err.Error(), nil)
		}
		return
	}
	if n.Annotations[currentConfigAnnotation] == target {
		return
	}
	if err := p.setWorking(ctx, node); err != nil {
		p.s.rec.record("machine-config", "Error", "Node "+node, err.Error(), nil)
		return
	}
	if !p.waitWhileStuck(ctx, node) {
		return
	}
	if !p.drainPhase(ctx, node, target) {
		return
	}
	if !p.s.delay(ctx, func(t Timing) time.Duration { return t.MachineConfigNode.Duration }, nil) {
		return
	}
	kubelet, err := p.finishNode(ctx, node, target)
	if err != nil {
		p.s.rec.record("machine-config", "Error", "Node "+node, err.Error(), nil)
		return
	}
	p.s.rec.record("machine-config", "NodeUpdated", "Node "+node, fmt.Sprintf("pool %s: currentConfig %s, kubelet %s", pool, target, kubelet), nil)
}

// setWorking is the daemon starting an update: state Working, unless the node
// already reports a failed drain of this update (a daemon that restarts keeps
// its Degraded state until the drain completes).
func (p *pools) setWorking(ctx context.Context, node string) error {
	return p.updateNode(ctx, node, func(n *corev1.Node) bool {
		if n.Annotations[stateAnnotation] == stateDegraded && strings.HasPrefix(n.Annotations[reasonAnnotation], openshift.ReasonDrainTimeout) {
			return false
		}
		if n.Annotations[stateAnnotation] == stateWorking && n.Annotations[reasonAnnotation] == "" {
			return false
		}
		n.Annotations[stateAnnotation] = stateWorking
		n.Annotations[reasonAnnotation] = ""
		return true
	})
}

// drainPhase requests the drain for target and waits until the drain controller
// applied it; it reports false when ctx ended.
func (p *pools) drainPhase(ctx context.Context, node, target string) bool {
	want := openshift.DrainPrefix + target
	n, err := p.s.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return false
	}
	if n.Annotations[openshift.AnnotationLastAppliedDrain] == want {
		return true // drained before the daemon restarted
	}
	if err := p.updateNode(ctx, node, func(n *corev1.Node) bool {
		if n.Annotations[openshift.AnnotationDesiredDrain] == want {
			return false
		}
		n.Annotations[openshift.AnnotationDesiredDrain] = want
		return true
	}); err != nil {
		p.s.rec.record("machine-config", "Error", "Node "+node, err.Error(), nil)
		return false
	}
	start := time.Now()
	degraded := n.Annotations[stateAnnotation] == stateDegraded
	lastFailure := ""
	for {
		err := p.drainNode(ctx, node)
		if ctx.Err() != nil {
			return false
		}
		if err == nil {
			break
		}
		if msg := err.Error(); msg != lastFailure {
			lastFailure = msg
			p.s.rec.record("machine-config", "DrainFailed", "Node "+node, "Drain failed. Waiting 1 minute then retrying. Error message from drain: "+msg, nil)
		}
		if !degraded && time.Since(start) >= p.s.timings().DrainTimeout.Duration {
			reason := drainTimeoutReason(node)
			if err := p.updateNode(ctx, node, func(n *corev1.Node) bool {
				n.Annotations[stateAnnotation] = stateDegraded
				n.Annotations[reasonAnnotation] = reason
				return true
			}); err == nil {
				degraded = true
				p.s.rec.record("machine-config", "FailedToDrain", "Node "+node, reason, nil)
				p.notify(nil)
			}
		}
		if !p.s.delay(ctx, func(t Timing) time.Duration { return t.DrainRetry.Duration }, nil) {
			return false
		}
	}
	// The drain controller records the drain it applied.
	if err := p.updateNode(ctx, node, func(n *corev1.Node) bool {
		n.Annotations[openshift.AnnotationLastAppliedDrain] = want
		if n.Annotations[stateAnnotation] == stateDegraded {
			// The daemon's wait succeeds; it goes on with the update.
			n.Annotations[stateAnnotation] = stateWorking
			n.Annotations[reasonAnnotation] = ""
		}
		return true
	}); err != nil {
		p.s.rec.record("machine-config", "Error", "Node "+node, err.Error(), nil)
		return false
	}
	p.s.rec.record("machine-config", "Drained", "Node "+node, "lastAppliedDrain "+want, nil)
	return true
}

// errPodsTerminating: evicted pods are still being deleted.
var errPodsTerminating = errors.New("waiting for evicted pods to terminate")

// drainNode is one drain attempt of the drain controller (kubectl's drain helper
// with Force, IgnoreAllDaemonSets and DeleteEmptyDirData, as drain_controller.go
// sets it): cordon, evict every pod the helper would, and wait for them to go.
// It returns nil once the node holds no such pod, and otherwise the first refusal,
// in the helper's words.
func (p *pools) drainNode(ctx context.Context, node string) error {
	if err := p.updateNode(ctx, node, func(n *corev1.Node) bool {
		if n.Spec.Unschedulable {
			return false
		}
		n.Spec.Unschedulable = true
		return true
	}); err != nil {
		return err
	}
	for {
		pods, err := p.s.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()})
		if err != nil {
			return err
		}
		var refusals []string
		terminating := 0
		sort.Slice(pods.Items, func(i, j int) bool {
			return pods.Items[i].Namespace+"/"+pods.Items[i].Name < pods.Items[j].Namespace+"/"+pods.Items[j].Name
		})
		for i := range pods.Items {
			pod := &pods.Items[i]
			if !drainEvicts(pod) {
				continue
			}
			if pod.DeletionTimestamp != nil {
				terminating++
				continue
			}
			err := p.s.kube.PolicyV1().Evictions(pod.Namespace).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}})
			switch {
			case err == nil:
				terminating++
				p.s.rec.record("machine-config", "Evicted", "Pod "+pod.Namespace+"/"+pod.Name, "evicted from "+node, nil)
			case apierrors.IsNotFound(err):
			case apierrors.IsTooManyRequests(err):
				refusal := fmt.Sprintf("error when evicting pods/%q -n %q (will retry after 5s): %v", pod.Name, pod.Namespace, err)
				refusals = append(refusals, refusal)
				p.s.daemonLog(ctx, node, "E", refusal)
			default:
				return fmt.Errorf("error when evicting pods/%q -n %q: %w", pod.Name, pod.Namespace, err)
			}
		}
		if len(refusals) > 0 {
			return errors.New(strings.Join(refusals, "; "))
		}
		if terminating == 0 {
			return nil
		}
		if !pause(ctx, p.s.timings().CVOPoll.Duration, nil) {
			return ctx.Err()
		}
	}
}

// drainEvicts reports whether the drain helper evicts pod: not a DaemonSet's
// (IgnoreAllDaemonSets), not a mirror pod, not finished. The static-pod operators'
// installer pods stay too: in the simulator they are the operators' bookkeeping,
// not workloads a drain moves.
func drainEvicts(pod *corev1.Pod) bool {
	if _, mirror := pod.Annotations[mirrorPodAnnotation]; mirror {
		return false
	}
	if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == "DaemonSet" {
		return false
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	if metav1.GetControllerOf(pod) == nil && pod.Labels["app"] == "installer" {
		return false
	}
	return true
}

// updateNode reads the node, lets mutate change it (annotations are never nil) and
// writes it back when mutate reports a change, retrying on conflicts.
func (p *pools) updateNode(ctx context.Context, node string, mutate func(*corev1.Node) bool) error {
	nodes := p.s.kube.CoreV1().Nodes()
	return retryConflict(ctx, func() error {
		n, err := nodes.Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		if !mutate(n) {
			return nil
		}
		_, err = nodes.Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
}
