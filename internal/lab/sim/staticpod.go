package sim

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

// Labels and annotations of static pods, as the kubelet and library-go's static-pod
// controllers set them.
const (
	revisionLabel        = "revision"
	mirrorPodAnnotation  = "kubernetes.io/config.mirror"
	configHashAnnotation = "kubernetes.io/config.hash"
	staticPodSingleton   = "cluster"
)

// staticPodGVR is the operator.openshift.io/v1 resource of a static-pod operator.
func staticPodGVR(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: operatorv1.GroupName, Version: "v1", Resource: resource}
}

func (op *operator) staticPodClient() dynamic.ResourceInterface {
	return op.s.dyn.Resource(staticPodGVR(op.spec.StaticPods.Resource))
}

// forceRedeploymentReason reads the operator resource's spec.forceRedeploymentReason.
func (op *operator) forceRedeploymentReason(ctx context.Context) (string, error) {
	u, err := op.staticPodClient().Get(ctx, staticPodSingleton, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	reason, _, _ := unstructured.NestedString(u.Object, "spec", "forceRedeploymentReason")
	return reason, nil
}

// updateStaticPodStatus reads the operator resource (creating it with the
// control-plane nodes when absent), lets mutate change its status, and writes it.
func (op *operator) updateStaticPodStatus(ctx context.Context, mutate func(*operatorv1.StaticPodOperatorStatus) bool) (*operatorv1.StaticPodOperatorStatus, error) {
	client := op.staticPodClient()
	var out *operatorv1.StaticPodOperatorStatus
	err := retryConflict(ctx, func() error {
		u, err := client.Get(ctx, staticPodSingleton, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			u, err = op.createStaticPodOperator(ctx)
		}
		if err != nil {
			return err
		}
		status := &operatorv1.StaticPodOperatorStatus{}
		if m, ok := u.Object["status"].(map[string]any); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, status); err != nil {
				return fmt.Errorf("decoding %s/%s status: %w", op.spec.StaticPods.Resource, staticPodSingleton, err)
			}
		}
		if len(status.NodeStatuses) == 0 {
			// An operator tracks every control-plane node; new entries carry no
			// revision (the CRD refuses one on creation).
			for _, n := range op.controlPlaneNodes() {
				status.NodeStatuses = append(status.NodeStatuses, operatorv1.NodeStatus{NodeName: n})
			}
		}
		if !mutate(status) {
			out = status
			return nil
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
		if err != nil {
			return err
		}
		u.Object["status"] = m
		updated, err := client.UpdateStatus(ctx, u, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		out = status
		_ = updated
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("updating %s/%s status: %w", op.spec.StaticPods.Resource, staticPodSingleton, err)
	}
	return out, nil
}

// createStaticPodOperator creates the operator resource, Managed, as the CVO's
// payload would.
func (op *operator) createStaticPodOperator(ctx context.Context) (*unstructured.Unstructured, error) {
	kind := map[string]string{"kubeapiservers": "KubeAPIServer", "kubecontrollermanagers": "KubeControllerManager", "kubeschedulers": "KubeScheduler", "etcds": "Etcd"}[op.spec.StaticPods.Resource]
	if kind == "" {
		return nil, fmt.Errorf("no %s/%s and no kind known to create it", op.spec.StaticPods.Resource, staticPodSingleton)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(operatorv1.GroupName + "/v1")
	u.SetKind(kind)
	u.SetName(staticPodSingleton)
	_ = unstructured.SetNestedField(u.Object, string(operatorv1.Managed), "spec", "managementState")
	created, err := op.staticPodClient().Create(ctx, u, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return op.staticPodClient().Get(ctx, staticPodSingleton, metav1.GetOptions{})
	}
	return created, err
}

// controlPlaneNodes returns the names of the nodes labelled as masters.
func (op *operator) controlPlaneNodes() []string {
	nodes, err := op.ops.nodes.List(labels.Everything())
	if err != nil {
		return nil
	}
	var names []string
	for _, n := range nodes {
		if _, ok := n.Labels[openshift.LabelNodeRoleMaster]; ok {
			names = append(names, n.Name)
		}
	}
	sort.Strings(names)
	return names
}

// revisionSummary is library-go's "N nodes are at revision R" message.
func revisionSummary(statuses []operatorv1.NodeStatus, latest int32) string {
	counts := map[int32]int{}
	for _, ns := range statuses {
		counts[ns.CurrentRevision]++
	}
	revs := make([]int32, 0, len(counts))
	for r := range counts {
		revs = append(revs, r)
	}
	sort.Slice(revs, func(i, j int) bool { return revs[i] < revs[j] })
	var parts []string
	for _, r := range revs {
		parts = append(parts, fmt.Sprintf("%d nodes are at revision %d", counts[r], r))
	}
	if counts[latest] == 0 {
		parts = append(parts, fmt.Sprintf("0 nodes have achieved new revision %d", latest))
	}
	return strings.Join(parts, "; ")
}

// setOperatorCondition sets an operator resource condition, moving
// lastTransitionTime only when the status changes.
func setOperatorCondition(conds *[]operatorv1.OperatorCondition, t string, status operatorv1.ConditionStatus, reason, msg string) {
	now := metav1.Now()
	for i := range *conds {
		c := &(*conds)[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message = status, reason, msg
		return
	}
	*conds = append(*conds, operatorv1.OperatorCondition{Type: t, Status: status, Reason: reason, Message: msg, LastTransitionTime: now})
}

// operatorImage returns the image of the operator's Deployment.
func (op *operator) operatorImage() string {
	ns, name, _ := strings.Cut(op.spec.Deployment, "/")
	d, err := op.ops.deployments.Deployments(ns).Get(name)
	if err != nil || len(d.Spec.Template.Spec.Containers) == 0 {
		return "quay.io/openshift-release-dev/ocp-v4.0-art-dev:installer"
	}
	return d.Spec.Template.Spec.Containers[0].Image
}

// finishInstaller reports the installer pod Succeeded.
func (op *operator) finishInstaller(ctx context.Context, pod *corev1.Pod) error {
	pods := op.s.kube.CoreV1().Pods(pod.Namespace)
	return retryConflict(ctx, func() error {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		succeededStatus(p)
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
}

// restartStaticPod is the kubelet picking up the new static pod manifest: the
// mirror pod <prefix>-<node> is deleted and created again with label revision=rev
// and, when image is set, the operand container running image.
func (op *operator) restartStaticPod(ctx context.Context, node string, rev int32, image string) error {
	sp := op.spec.StaticPods
	pods := op.s.kube.CoreV1().Pods(sp.Namespace)
	name := sp.PodPrefix + "-" + node
	old, err := pods.Get(ctx, name, metav1.GetOptions{})
	var pod *corev1.Pod
	switch {
	case apierrors.IsNotFound(err):
		if image == "" {
			image = op.operatorImage()
		}
		pod = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sp.Namespace, Labels: map[string]string{"app": sp.PodPrefix}},
			Spec: corev1.PodSpec{
				NodeName:    node,
				HostNetwork: true,
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
				Containers:  []corev1.Container{{Name: sp.Container, Image: image}},
			},
		}
	case err != nil:
		return err
	default:
		pod = old.DeepCopy()
		pod.ObjectMeta = metav1.ObjectMeta{Name: name, Namespace: sp.Namespace, Labels: pod.Labels, Annotations: pod.Annotations, OwnerReferences: pod.OwnerReferences}
		pod.Status = corev1.PodStatus{}
		if image != "" {
			for i := range pod.Spec.Containers {
				if pod.Spec.Containers[i].Name == sp.Container || len(pod.Spec.Containers) == 1 {
					pod.Spec.Containers[i].Image = image
				}
			}
		}
		if err := pods.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[revisionLabel] = strconv.Itoa(int(rev))
	hash := fmt.Sprintf("%x", fnvHash(fmt.Sprintf("%s/%d/%s", name, rev, image)))
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[mirrorPodAnnotation] = hash
	pod.Annotations[configHashAnnotation] = hash
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	n, ok := simNode(op.ops.nodes, node)
	if !ok {
		n = &corev1.Node{}
	}
	return retryConflict(ctx, func() error {
		p, err := pods.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		runningStatus(p, n)
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})
}
