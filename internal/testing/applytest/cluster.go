package applytest

import (
	"context"
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// The current release of the fixture cluster.
const (
	CurrentVersion = "4.4.3"
	CurrentImage   = "quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc"
	// Revision is the kube-apiserver revision every master runs.
	Revision = 3
)

// Masters are the control-plane nodes of the fixture cluster. They are not kwok
// nodes: the fixture writes their mirror pods' status itself.
var Masters = []string{"master-0", "master-1", "master-2"}

// Cluster is a minimal OpenShift on a kubetest control plane.
type Cluster struct {
	Config   *rest.Config
	Kube     kubernetes.Interface
	OSConfig configclient.Interface
	Operator operatorclient.Interface
	MCFG     mcfgclient.Interface
}

// NewCluster connects to env.
func NewCluster(cfg *rest.Config) *Cluster {
	return &Cluster{
		Config:   cfg,
		Kube:     kubernetes.NewForConfigOrDie(cfg),
		OSConfig: configclient.NewForConfigOrDie(cfg),
		Operator: operatorclient.NewForConfigOrDie(cfg),
		MCFG:     mcfgclient.NewForConfigOrDie(cfg),
	}
}

func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// Setup creates the fixture cluster (idempotently): a kwok worker for the
// workloads, three masters, ClusterVersion at CurrentVersion, the CVO Deployment
// (1 replica, running), the master pool (updated), and the kube-apiserver operator
// with its mirror pods at Revision. It builds on the env it is given: apply's
// tests build one on each of their lanes (apply/lanes_test.go), each a
// kube-apiserver of its own, and run their tests side by side.
func Setup(ctx context.Context, env *kubetest.Env) (*Cluster, error) {
	c := NewCluster(env.Config)
	if _, err := env.NewFakeNode(ctx, "worker-0", map[string]string{"node-role.kubernetes.io/worker": ""}); err != nil {
		return nil, err
	}
	for _, m := range Masters {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: m, Labels: map[string]string{"node-role.kubernetes.io/master": ""}}, Spec: corev1.NodeSpec{Unschedulable: true}}
		if _, err := c.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); ignoreExists(err) != nil {
			return nil, err
		}
	}
	for _, ns := range []string{"openshift-cluster-version", "openshift-kube-apiserver"} {
		if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); ignoreExists(err) != nil {
			return nil, err
		}
	}
	// The ServiceAccount admission plugin refuses a pod (the mirror pods
	// below) until kube-controller-manager made its namespace's "default"
	// ServiceAccount; on a loaded machine a fresh control plane's controller
	// comes after this function's first pod (seen with apply's lanes).
	for _, ns := range []string{"openshift-cluster-version", "openshift-kube-apiserver"} {
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := c.Kube.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return err == nil, err
		}); err != nil {
			return nil, fmt.Errorf("the default ServiceAccount of %s: %w", ns, err)
		}
	}
	if err := c.setupClusterVersion(ctx); err != nil {
		return nil, fmt.Errorf("ClusterVersion: %w", err)
	}
	if err := c.setupCVO(ctx); err != nil {
		return nil, fmt.Errorf("CVO: %w", err)
	}
	if err := c.setupPool(ctx); err != nil {
		return nil, fmt.Errorf("pool: %w", err)
	}
	if err := c.setupKubeAPIServer(ctx); err != nil {
		return nil, fmt.Errorf("kube-apiserver: %w", err)
	}
	return c, c.Reset(ctx)
}

func (c *Cluster) setupClusterVersion(ctx context.Context) error {
	cvs := c.OSConfig.ConfigV1().ClusterVersions()
	cv, err := cvs.Create(ctx, &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version"}, Spec: configv1.ClusterVersionSpec{ClusterID: "5c2d3e0a-9b1f-4f6e-8d8a-1f2b3c4d5e6f", Channel: "stable-4.4"}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return err
	}
	started := metav1.NewTime(time.Date(2020, 5, 24, 16, 2, 51, 0, time.UTC))
	cv.Status = configv1.ClusterVersionStatus{
		Desired:            configv1.Release{Version: CurrentVersion, Image: CurrentImage},
		History:            []configv1.UpdateHistory{{State: configv1.CompletedUpdate, Version: CurrentVersion, Image: CurrentImage, StartedTime: started, CompletionTime: &started}},
		ObservedGeneration: cv.Generation,
		VersionHash:        "test",
	}
	_, err = cvs.UpdateStatus(ctx, cv, metav1.UpdateOptions{})
	return err
}

func (c *Cluster) setupCVO(ctx context.Context) error {
	labels := map[string]string{"k8s-app": "cluster-version-operator"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-version-operator", Namespace: "openshift-cluster-version"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "cluster-version-operator", Image: CurrentImage}}},
			},
		},
	}
	_, err := c.Kube.AppsV1().Deployments("openshift-cluster-version").Create(ctx, d, metav1.CreateOptions{})
	return ignoreExists(err)
}

func (c *Cluster) setupPool(ctx context.Context) error {
	pools := c.MCFG.MachineconfigurationV1().MachineConfigPools()
	p, err := pools.Create(ctx, &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: "master"}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return err
	}
	p.Status = mcfgv1.MachineConfigPoolStatus{ObservedGeneration: p.Generation, MachineCount: 3, UpdatedMachineCount: 3, ReadyMachineCount: 3}
	_, err = pools.UpdateStatus(ctx, p, metav1.UpdateOptions{})
	return err
}

func (c *Cluster) setupKubeAPIServer(ctx context.Context) error {
	kas := c.Operator.OperatorV1().KubeAPIServers()
	cr, err := kas.Create(ctx, &operatorv1.KubeAPIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: operatorv1.KubeAPIServerSpec{StaticPodOperatorSpec: operatorv1.StaticPodOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}}}, metav1.CreateOptions{})
	if err == nil {
		cr.Status.LatestAvailableRevision = Revision
		for _, m := range Masters {
			cr.Status.NodeStatuses = append(cr.Status.NodeStatuses, operatorv1.NodeStatus{NodeName: m})
		}
		if cr, err = kas.UpdateStatus(ctx, cr, metav1.UpdateOptions{}); err != nil {
			return err
		}
		for i := range cr.Status.NodeStatuses {
			cr.Status.NodeStatuses[i].CurrentRevision = Revision
		}
		if _, err = kas.UpdateStatus(ctx, cr, metav1.UpdateOptions{}); err != nil {
			return err
		}
	} else if !apierrors.IsAlreadyExists(err) {
		return err
	}
	for _, m := range Masters {
		if err := c.SetMirrorPodRevision(ctx, m, Revision); err != nil {
			return err
		}
	}
	return nil
}

// SetMirrorPodRevision makes node's kube-apiserver mirror pod run revision rev
// (created Running and Ready when missing).
func (c *Cluster) SetMirrorPodRevision(ctx context.Context, node string, rev int) error {
	pods := c.Kube.CoreV1().Pods("openshift-kube-apiserver")
	name := "kube-apiserver-" + node
	p, err := pods.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		p, err = pods.Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "openshift-kube-apiserver", "revision": fmt.Sprint(rev)}},
			Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "kube-apiserver", Image: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:1111111111111111111111111111111111111111111111111111111111111111"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	p.Labels["revision"] = fmt.Sprint(rev)
	_, err = pods.Update(ctx, p, metav1.UpdateOptions{})
	return err
}

// Reset puts the singletons back as Setup made them: the CVO running with 1
// replica, no desired update, the pool unpaused, no apply lock.
func (c *Cluster) Reset(ctx context.Context) error {
	err := c.Kube.CoordinationV1().Leases("openshift-cluster-version").Delete(ctx, "recover-apply", metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	// The fake CVO (RunFakes) writes ClusterVersion's status while it runs, so
	// this read-modify-write retries on a conflict as a controller would.
	cvs := c.OSConfig.ConfigV1().ClusterVersions()
	if _, err := Update(ctx, cvs.Get, cvs.Update, "version", func(cv *configv1.ClusterVersion) { cv.Spec.DesiredUpdate = nil }); err != nil {
		return err
	}
	if _, err := c.MCFG.MachineconfigurationV1().MachineConfigPools().Patch(ctx, "master", "application/merge-patch+json", []byte(`{"spec":{"paused":false}}`), metav1.PatchOptions{}); err != nil {
		return err
	}
	if _, err := c.Kube.AppsV1().Deployments("openshift-cluster-version").Patch(ctx, "cluster-version-operator", "application/merge-patch+json", []byte(`{"spec":{"replicas":1}}`), metav1.PatchOptions{}); err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		d, err := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if d.Status.ObservedGeneration != d.Generation || d.Status.AvailableReplicas != 1 || d.Status.Replicas != 1 {
			return false, nil
		}
		// The fake CVO has observed the spec Reset wrote: it has no status
		// write pending that a test's own read-modify-write would race.
		cv, err := cvs.Get(ctx, "version", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return cv.Status.ObservedGeneration == cv.Generation, nil
	})
}
