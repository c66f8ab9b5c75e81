package sim

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// kubelet is the simulator's kubelet for the scenario's nodes (every node without
// kwok's annotation). Like kwok's pod stages, it starts the pods that controllers
// (ReplicaSets, DaemonSets, Jobs) bind to those nodes, completes Job pods, and
// finalizes deletions. Pods no workload controller owns (mirror and installer
// pods) are the static-pod operators' business and keep the status they were given.
type kubelet struct {
	s     *Sim
	pods  corelisters.PodLister
	nodes corelisters.NodeLister
	queue *keyQueue
}

// simNode reports whether the simulator is the kubelet of the named node.
func simNode(nodes corelisters.NodeLister, name string) (*corev1.Node, bool) {
	if name == "" {
		return nil, false
	}
	n, err := nodes.Get(name)
	if err != nil {
		return nil, false
	}
	if _, kwok := n.Annotations[kubetest.FakeNodeAnnotation]; kwok {
		return nil, false
	}
	return n, true
}

func (k *kubelet) handler() cache.ResourceEventHandler {
	enqueue := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			k.queue.add(p.Namespace + "/" + p.Name)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}
}

// sync brings one pod a step forward.
func (k *kubelet) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := k.pods.Pods(ns).Get(name)
	if err != nil {
		return nil
	}
	node, ok := simNode(k.nodes, pod.Spec.NodeName)
	if !ok {
		return nil
	}
	pods := k.s.kube.CoreV1().Pods(ns)
	if pod.DeletionTimestamp != nil {
		err := pods.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0), Preconditions: &metav1.Preconditions{UID: &pod.UID}})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	}
	owner := metav1.GetControllerOf(pod)
	if owner == nil || !slices.Contains(workloadControllers, owner.Kind) {
		// Mirror pods (owned by their Node) and installer pods belong to the
		// static-pod operators.
		return nil
	}
	switch {
	case pod.Status.Phase == corev1.PodPending || pod.Status.Phase == "":
		p := pod.DeepCopy()
		runningStatus(p, node)
		_, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	case pod.Status.Phase == corev1.PodRunning && owner.Kind == "Job":
		p := pod.DeepCopy()
		succeededStatus(p)
		_, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	}
	return nil
}

// runningStatus sets the status a kubelet reports once every container started.
func runningStatus(p *corev1.Pod, node *corev1.Node) {
	now := metav1.Now()
	hostIP := nodeIP(node)
	podIP := hostIP
	if !p.Spec.HostNetwork {
		podIP = fakePodIP(p.Namespace + "/" + p.Name)
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.StartTime = &now
	p.Status.HostIP = hostIP
	p.Status.HostIPs = []corev1.HostIP{{IP: hostIP}}
	p.Status.PodIP = podIP
	p.Status.PodIPs = []corev1.PodIP{{IP: podIP}}
	p.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
	}
	p.Status.InitContainerStatuses = nil
	for _, c := range p.Spec.InitContainers {
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, Ready: true,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}},
		})
	}
	p.Status.ContainerStatuses = nil
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, Ready: true, Started: ptr.To(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
}

// succeededStatus sets the status of a pod whose containers all exited 0.
func succeededStatus(p *corev1.Pod) {
	now := metav1.Now()
	p.Status.Phase = corev1.PodSucceeded
	for i := range p.Status.Conditions {
		if t := p.Status.Conditions[i].Type; t == corev1.PodReady || t == corev1.ContainersReady {
			p.Status.Conditions[i].Status = corev1.ConditionFalse
			p.Status.Conditions[i].Reason = "PodCompleted"
			p.Status.Conditions[i].LastTransitionTime = now
		}
	}
	p.Status.ContainerStatuses = nil
	for _, c := range p.Spec.Containers {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, Started: ptr.To(false),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}},
		})
	}
}

// nodeIP returns the node's InternalIP, or a loopback address.
func nodeIP(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP && a.Address != "" {
			return a.Address
		}
	}
	return "127.0.0.1"
}

// fakePodIP derives a stable pod address in 10.128.0.0/14, OpenShift's default
// cluster network, from the pod's key.
func fakePodIP(key string) string {
	v := fnvHash(key)
	return fmt.Sprintf("10.%d.%d.%d", 128+(v>>16)%4, (v>>8)%256, 1+v%254)
}

// fnvHash is the 32-bit FNV-1a hash of s.
func fnvHash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
