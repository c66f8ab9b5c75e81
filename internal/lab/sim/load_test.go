package sim

import (
	"fmt"
	"testing"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

func TestLoadCreatesTheMustGatherWithStatus(t *testing.T) {
	f := newFixture()
	h := newHarness(t, f, Options{}, true)
	ctx := h.ctx

	cv, err := h.sim.config.ConfigV1().ClusterVersions().Get(ctx, openshift.ClusterVersionName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cv.Status.Desired.Version != oldVersion || len(cv.Status.History) != 1 || cv.Status.History[0].State != configv1.CompletedUpdate {
		t.Errorf("ClusterVersion status was not loaded: desired %+v, history %+v", cv.Status.Desired, cv.Status.History)
	}
	if cv.UID == "9b1f0000-0000-0000-0000-000000000001" {
		t.Errorf("the must-gather's uid was kept; the API server must assign its own")
	}

	for _, o := range testOperators {
		co := h.clusterOperator(o.co)
		if !atRelease(co, oldVersion) {
			t.Errorf("ClusterOperator %s status was not loaded: %s", o.co, describeCO(co))
		}
		d, err := h.sim.kube.AppsV1().Deployments(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("Deployment %s/%s from a DeploymentList was not loaded: %v", o.namespace, o.name, err)
		} else if releaseVersionOf(d) != oldVersion {
			t.Errorf("Deployment %s/%s: RELEASE_VERSION %q", o.namespace, o.name, releaseVersionOf(d))
		}
	}

	for i, name := range f.masterNames() {
		n := h.node(name)
		if n.Status.NodeInfo.KubeletVersion != "v"+oldKube {
			t.Errorf("node %s kubelet %q, want v%s (node status is written by the loader)", name, n.Status.NodeInfo.KubeletVersion, oldKube)
		}
		if _, ok := n.Annotations[kubetest.FakeNodeAnnotation]; ok {
			t.Errorf("node %s carries kwok's annotation; kwok would overwrite its status", name)
		}
		if got := n.Status.Allocatable.Pods().String(); got != "250" {
			t.Errorf("node %s allocatable pods %s, want the default 250 for a node without capacity", name, got)
		}
		pod, err := h.sim.kube.CoreV1().Pods("openshift-kube-apiserver").Get(ctx, "kube-apiserver-"+name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("mirror pod of %s: %v", name, err)
		}
		if pod.Labels[revisionLabel] != fmt.Sprint(f.revision) || pod.Status.Phase != corev1.PodRunning || pod.Spec.NodeName != name {
			t.Errorf("mirror pod of %s: revision %q, phase %s, node %s", name, pod.Labels[revisionLabel], pod.Status.Phase, pod.Spec.NodeName)
		}
		refs := pod.OwnerReferences
		if len(refs) != 1 || refs[0].UID != n.UID {
			t.Errorf("mirror pod of %s: owner references %+v must point at the loaded node (uid %s)", name, refs, n.UID)
		}
		_ = i
	}

	u, err := h.sim.dyn.Resource(staticPodGVR("kubeapiservers")).Get(ctx, staticPodSingleton, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status := &operatorv1.StaticPodOperatorStatus{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object["status"].(map[string]any), status); err != nil {
		t.Fatal(err)
	}
	if status.LatestAvailableRevision != f.revision || len(status.NodeStatuses) != f.masters || status.NodeStatuses[2].CurrentRevision != f.revision {
		t.Errorf("KubeAPIServer status was not loaded: %+v", status)
	}

	pool, err := h.sim.mcfg.MachineconfigurationV1().MachineConfigPools().Get(ctx, "master", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pool.Status.MachineCount != 3 || pool.Status.Configuration.Name != renderedConfigName("master", oldVersion) {
		t.Errorf("master pool status was not loaded: %+v", pool.Status)
	}

	if _, err := h.sim.kube.CoreV1().Pods("openshift-dns-operator").Get(ctx, "dns-operator-5d8f-abcde", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a ReplicaSet's pod from the must-gather was created (%v); the controllers make their own", err)
	}
	h.waitEvent("the loader's summary", func(e Event) bool { return e.Actor == "loader" && e.Reason == "Loaded" })
}

func TestLoadedDeploymentsRollOutOnTheScenarioNodes(t *testing.T) {
	h := newHarness(t, newFixture(), Options{}, false)
	// The simulator is the kubelet of the loaded nodes: the operators' pods are
	// scheduled onto the masters (their nodeSelector) and run there.
	h.eventually("every operator Deployment rolled out", func() (bool, string, error) {
		for _, o := range testOperators {
			d, err := h.sim.kube.AppsV1().Deployments(o.namespace).Get(h.ctx, o.name, metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			if !rolledOut(d) {
				return false, fmt.Sprintf("%s: %d/%d available", o.name, d.Status.AvailableReplicas, d.Status.Replicas), nil
			}
		}
		return true, "", nil
	})
	pods, err := h.sim.kube.CoreV1().Pods("openshift-dns-operator").List(h.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" {
			t.Errorf("pod %s: phase %s, IP %q", p.Name, p.Status.Phase, p.Status.PodIP)
		}
		if _, ok := h.node(p.Spec.NodeName).Labels[openshift.LabelNodeRoleMaster]; !ok {
			t.Errorf("pod %s runs on %s, not a master, despite its nodeSelector", p.Name, p.Spec.NodeName)
		}
	}
	nodes, err := h.sim.kube.CoreV1().Nodes().List(h.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 5 {
		t.Errorf("the cluster has %d nodes, want the fixture's 5 and no helper node", len(nodes.Items))
	}
}

func TestPodSpecOfFindsEveryWorkloadsTemplate(t *testing.T) {
	spec := map[string]any{"serviceAccountName": "sa"}
	tests := []struct {
		apiVersion, kind string
		object           map[string]any
		want             bool
	}{
		{"v1", "Pod", map[string]any{"spec": spec}, true},
		{"apps/v1", "Deployment", map[string]any{"spec": map[string]any{"template": map[string]any{"spec": spec}}}, true},
		{"apps/v1", "DaemonSet", map[string]any{"spec": map[string]any{"template": map[string]any{"spec": spec}}}, true},
		{"batch/v1", "CronJob", map[string]any{"spec": map[string]any{"jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": spec}}}}}, true},
		{"apps/v1", "Deployment", map[string]any{"spec": map[string]any{}}, false},
		{"v1", "ConfigMap", map[string]any{"data": map[string]any{}}, false},
		{"example.com/v1", "Pod", map[string]any{"spec": spec}, false},
	}
	for _, tt := range tests {
		u := &unstructured.Unstructured{Object: tt.object}
		u.SetAPIVersion(tt.apiVersion)
		u.SetKind(tt.kind)
		got, ok := podSpecOf(u)
		if ok != tt.want || (ok && got["serviceAccountName"] != "sa") {
			t.Errorf("podSpecOf(%s %s) = %v, %v; want found=%v", tt.apiVersion, tt.kind, got, ok, tt.want)
		}
	}
}
