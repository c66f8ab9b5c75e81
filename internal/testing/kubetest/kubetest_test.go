package kubetest_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{Workloads: true}, &env)
}

func TestClusterVersionAndOperatorsRoundTrip(t *testing.T) {
	kubetest.Require(t, env)
	ctx := context.Background()
	client, err := configclient.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	cv := &configv1.ClusterVersion{
		ObjectMeta: metav1.ObjectMeta{Name: "version"},
		Spec:       configv1.ClusterVersionSpec{ClusterID: "6d1f7d32-6a1f-4c43-9d4c-3a4a1f0c1c1a", Channel: "stable-4.4"},
	}
	created, err := client.ConfigV1().ClusterVersions().Create(ctx, cv, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating ClusterVersion: %v", err)
	}
	started := metav1.NewTime(time.Date(2020, 5, 24, 16, 2, 51, 0, time.UTC))
	created.Status = configv1.ClusterVersionStatus{
		Desired: configv1.Release{Version: "4.4.3", Image: "quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc"},
		History: []configv1.UpdateHistory{
			{State: configv1.CompletedUpdate, Version: "4.4.3", Image: "quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc", StartedTime: started, CompletionTime: &started},
			{State: configv1.CompletedUpdate, Version: "4.3.19", Image: "quay.io/openshift-release-dev/ocp-release@sha256:0000000000000000000000000000000000000000000000000000000000000001", StartedTime: started, CompletionTime: &started},
		},
		ObservedGeneration: 1,
		VersionHash:        "h110xMINmng=",
		AvailableUpdates:   nil,
		Conditions: []configv1.ClusterOperatorStatusCondition{
			{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, LastTransitionTime: started, Message: "Done applying 4.4.3"},
		},
	}
	if _, err := client.ConfigV1().ClusterVersions().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("updating ClusterVersion status: %v", err)
	}
	got, err := client.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Desired.Version != "4.4.3" || len(got.Status.History) != 2 || got.Status.History[1].Version != "4.3.19" {
		t.Fatalf("status did not round-trip: %+v", got.Status)
	}
	if got.Spec.Channel != "stable-4.4" {
		t.Fatalf("spec did not round-trip: %+v", got.Spec)
	}

	for _, co := range []struct{ name, version string }{{"kube-apiserver", "4.3.19"}, {"machine-config", "4.4.3"}} {
		obj, err := client.ConfigV1().ClusterOperators().Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: co.name}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating ClusterOperator %s: %v", co.name, err)
		}
		obj.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: co.version}}
		obj.Status.Conditions = []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, LastTransitionTime: started}}
		if _, err := client.ConfigV1().ClusterOperators().UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("updating ClusterOperator %s status: %v", co.name, err)
		}
	}
	list, err := client.ConfigV1().ClusterOperators().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{}
	for _, co := range list.Items {
		if len(co.Status.Versions) > 0 {
			versions[co.Name] = co.Status.Versions[0].Version
		}
	}
	if versions["kube-apiserver"] != "4.3.19" || versions["machine-config"] != "4.4.3" {
		t.Fatalf("ClusterOperator versions did not round-trip: %v", versions)
	}
}

func TestStaticPodOperatorNodeStatuses(t *testing.T) {
	kubetest.Require(t, env)
	ctx := context.Background()
	client, err := operatorclient.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	kas, err := client.OperatorV1().KubeAPIServers().Create(ctx, &operatorv1.KubeAPIServer{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec:       operatorv1.KubeAPIServerSpec{StaticPodOperatorSpec: operatorv1.StaticPodOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating KubeAPIServer: %v", err)
	}
	kas.Status.LatestAvailableRevision = 9
	kas.Status.NodeStatuses = []operatorv1.NodeStatus{{NodeName: "master-0"}, {NodeName: "master-1"}}
	kas, err = client.OperatorV1().KubeAPIServers().UpdateStatus(ctx, kas, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("first status update: %v", err)
	}
	kas.Status.NodeStatuses[0].CurrentRevision = 9
	kas.Status.NodeStatuses[1].CurrentRevision = 8
	if _, err = client.OperatorV1().KubeAPIServers().UpdateStatus(ctx, kas, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("second status update: %v", err)
	}
	got, err := client.OperatorV1().KubeAPIServers().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.NodeStatuses[0].CurrentRevision != 9 || got.Status.NodeStatuses[1].CurrentRevision != 8 {
		t.Fatalf("nodeStatuses did not round-trip: %+v", got.Status.NodeStatuses)
	}
	// The CRD's own validation is live: currentRevision may only increase.
	got.Status.NodeStatuses[0].CurrentRevision = 3
	if _, err := client.OperatorV1().KubeAPIServers().UpdateStatus(ctx, got, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("lowering currentRevision: want the CRD's CEL rule to refuse it, got %v", err)
	}
}

func TestDeploymentRollsOutOnFakeNode(t *testing.T) {
	kubetest.Require(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if _, err := env.NewFakeNode(ctx, "kwok-node-0", map[string]string{"node-role.kubernetes.io/worker": ""}); err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(env.Config)
	ns := "rollout-test"
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "demo"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "demo", Image: "registry.example/demo:1"}}},
			},
		},
	}
	if _, err := kube.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments(ns).Get(ctx, "demo", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return d.Status.AvailableReplicas == 2 && d.Status.ObservedGeneration == d.Generation, nil
	})
	if err != nil {
		t.Fatalf("Deployment never became Available with 2 replicas (see logs in %s): %v", env.Dir, err)
	}
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.Spec.NodeName == "kwok-node-0" {
			running++
		}
	}
	if running != 2 {
		t.Fatalf("want 2 Running pods on kwok-node-0, got %d of %d", running, len(pods.Items))
	}
}

func TestLimitedUserIsForbidden(t *testing.T) {
	kubetest.Require(t, env)
	cfg, err := env.UserConfig(kubetest.LimitedUser)
	if err != nil {
		t.Fatal(err)
	}
	client := configclient.NewForConfigOrDie(cfg)
	_, err = client.ConfigV1().ClusterOperators().List(context.Background(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("want Forbidden for %s under RBAC, got %v", kubetest.LimitedUser, err)
	}
}

// TestKubeconfigVerifiesTheServer: the kubeconfigs the environment writes (the
// lab hands them to its users) carry kube-apiserver's CA as
// certificate-authority-data, not insecure-skip-tls-verify, and a client made
// from them verifies the server and is answered (issue 34).
func TestKubeconfigVerifiesTheServer(t *testing.T) {
	kubetest.Require(t, env)
	user, err := env.UserKubeconfig(kubetest.LimitedUser)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{env.Kubeconfig, user} {
		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Insecure || len(cfg.CAData) == 0 {
			t.Errorf("%s: insecure %v, %d bytes of CA data; want the server verified with its CA", path, cfg.Insecure, len(cfg.CAData))
		}
		if _, err := kubernetes.NewForConfigOrDie(cfg).Discovery().ServerVersion(); err != nil {
			t.Errorf("%s: the server is not verified with the kubeconfig's CA: %v", path, err)
		}
	}
}

func TestFreshIsIsolatedAndStopsCleanly(t *testing.T) {
	kubetest.Require(t, env)
	ctx := context.Background()
	fresh, err := env.Fresh()
	if err != nil {
		t.Fatal(err)
	}
	client := configclient.NewForConfigOrDie(fresh.Config)
	if _, err := client.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a fresh API server must start empty, got %v", err)
	}
	if err := fresh.Check(ctx); err != nil {
		t.Fatalf("fresh API server should be ready: %v", err)
	}
	pids := fresh.PIDs()
	if len(pids) == 0 {
		t.Fatal("fresh environment reports no processes")
	}
	fresh.Stop()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("process %d is still running after Stop", pid)
		}
	}
}

// TestFreshServersStartedTogetherAreIsolated: two fresh servers started at the
// same time get their own etcd prefixes, so a ClusterVersion created in one is
// not in the other.
func TestFreshServersStartedTogetherAreIsolated(t *testing.T) {
	kubetest.Require(t, env)
	ctx := context.Background()
	var servers [2]*kubetest.Env
	var errs [2]error
	done := make(chan int)
	for i := range servers {
		go func() { servers[i], errs[i] = env.Fresh(); done <- i }()
	}
	<-done
	<-done
	for i, s := range servers {
		if s != nil {
			t.Cleanup(s.Stop)
		}
		if errs[i] != nil {
			t.Fatalf("fresh server %d: %v", i, errs[i])
		}
	}
	cv := &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version"}, Spec: configv1.ClusterVersionSpec{ClusterID: "00000000-0000-0000-0000-000000000001"}}
	if _, err := configclient.NewForConfigOrDie(servers[0].Config).ConfigV1().ClusterVersions().Create(ctx, cv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := configclient.NewForConfigOrDie(servers[1].Config).ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the second fresh server sees the first one's ClusterVersion (err %v): they share an etcd prefix", err)
	}
}

func TestHarnessFailsLoudlyWhenServerIsNotRunning(t *testing.T) {
	ctx := context.Background()
	// A client of an API server that is not there: the harness's check says so.
	down := &kubetest.Env{Config: &rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}}
	err := down.Check(ctx)
	if !errors.Is(err, kubetest.ErrNotRunning) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("want ErrNotRunning naming the address, got %v", err)
	}
	var never *kubetest.Env
	if err := never.Check(ctx); !errors.Is(err, kubetest.ErrNotRunning) {
		t.Fatalf("want ErrNotRunning for an environment never started, got %v", err)
	}
	// Missing binaries: Start fails with the command that builds them.
	t.Setenv(kubetest.BinDirEnv, t.TempDir())
	_, err = kubetest.Start(kubetest.Options{})
	if !errors.Is(err, kubetest.ErrBinariesMissing) || !strings.Contains(err.Error(), kubetest.BuildCommand) {
		t.Fatalf("want ErrBinariesMissing naming %q, got %v", kubetest.BuildCommand, err)
	}
}
