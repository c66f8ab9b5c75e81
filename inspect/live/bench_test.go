package live

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// syntheticNode is a node shaped like a real one (labels, MCO annotations,
// conditions, 30 cached images): a few kB of JSON, like production nodes.
func syntheticNode(i int) *corev1.Node {
	name := fmt.Sprintf("worker-%05d", i)
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{"node-role.kubernetes.io/worker": "", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
			"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64", "node.openshift.io/os_id": "rhcos", "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3)},
		Annotations: map[string]string{"machineconfiguration.openshift.io/currentConfig": "rendered-worker-36d4519b5402262e370b728f72cd98a9",
			"machineconfiguration.openshift.io/desiredConfig": "rendered-worker-36d4519b5402262e370b728f72cd98a9", "machineconfiguration.openshift.io/state": "Done",
			"machineconfiguration.openshift.io/reason": "", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}}}
	if i < 3 {
		n.Name = fmt.Sprintf("master-%d", i)
		n.Labels = map[string]string{"node-role.kubernetes.io/master": ""}
	}
	return n
}

func syntheticNodeStatus(n *corev1.Node) {
	now := metav1.NewTime(time.Date(2020, 6, 2, 11, 0, 0, 0, time.UTC))
	n.Status = corev1.NodeStatus{
		Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("250")},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("15500m"), corev1.ResourceMemory: resource.MustParse("62Gi"), corev1.ResourcePods: resource.MustParse("250")},
		Addresses:   []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeHostName, Address: n.Name}},
		NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.17.1", KubeProxyVersion: "v1.17.1", OSImage: "Red Hat Enterprise Linux CoreOS 44.81.202005062110-0 (Ootpa)",
			ContainerRuntimeVersion: "cri-o://1.17.4-12.dev.rhaos4.4.git3d1f1bd.el8", KernelVersion: "4.18.0-147.8.1.el8_1.x86_64", OperatingSystem: "linux", Architecture: "amd64",
			MachineID: "0123456789abcdef0123456789abcdef", SystemUUID: "01234567-89ab-cdef-0123-456789abcdef", BootID: "fedcba98-7654-3210-fedc-ba9876543210"},
	}
	for _, c := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeReady} {
		st := corev1.ConditionFalse
		if c == corev1.NodeReady {
			st = corev1.ConditionTrue
		}
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: c, Status: st, LastHeartbeatTime: now, LastTransitionTime: now, Reason: "Kubelet" + string(c), Message: "kubelet reports " + string(c)})
	}
	for j := 0; j < 30; j++ {
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{SizeBytes: 400_000_000, Names: []string{
			fmt.Sprintf("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:%064x", j),
			fmt.Sprintf("quay.io/openshift-release-dev/ocp-v4.0-art-dev:component-%02d", j)}})
	}
}

// seedSynthetic creates a cluster: ClusterVersion, 35 ClusterOperators, nodes, and
// three static-pod operators (kube-apiserver, kube-controller-manager,
// kube-scheduler) with mirror and installer pods on three masters.
func seedSynthetic(b *testing.B, cfg *rest.Config, nodes int) {
	b.Helper()
	ctx := context.Background()
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{}
	kube := kubernetes.NewForConfigOrDie(cfg)
	cc := configclient.NewForConfigOrDie(cfg)
	oc := operatorclient.NewForConfigOrDie(cfg)
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	_, err := cc.ConfigV1().ClusterVersions().Create(ctx, &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version"}, Spec: configv1.ClusterVersionSpec{ClusterID: "5c2d3e0a-9b1f-4f6e-8d8a-1f2b3c4d5e6f"}}, metav1.CreateOptions{})
	must(err)
	for i := 0; i < 35; i++ {
		co, err := cc.ConfigV1().ClusterOperators().Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("operator-%02d", i)}}, metav1.CreateOptions{})
		must(err)
		t := metav1.Now()
		co.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: "4.4.4"}}
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, LastTransitionTime: t}}
		_, err = cc.ConfigV1().ClusterOperators().UpdateStatus(ctx, co, metav1.UpdateOptions{})
		must(err)
	}
	work := make(chan int)
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				n, err := kube.CoreV1().Nodes().Create(ctx, syntheticNode(i), metav1.CreateOptions{})
				if err == nil {
					syntheticNodeStatus(n)
					_, err = kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
				}
				if err != nil {
					failed.Store(err)
				}
			}
		}()
	}
	for i := 0; i < nodes; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	for _, c := range inspect.StaticPodComponents[1:] { // kube-apiserver, kube-controller-manager, kube-scheduler
		_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.Namespace}}, metav1.CreateOptions{})
		must(err)
		for m := 0; m < 3; m++ {
			node := fmt.Sprintf("master-%d", m)
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: c.PodPrefix + "-" + node, Namespace: c.Namespace,
				Labels: map[string]string{"revision": "7"}, Annotations: map[string]string{"kubernetes.io/config.mirror": "x"}},
				Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: c.Container, Image: "quay.io/x/hyperkube@sha256:1"}}}}
			_, err := kube.CoreV1().Pods(c.Namespace).Create(ctx, pod, metav1.CreateOptions{})
			must(err)
		}
		managed := operatorv1.StaticPodOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}
		status := operatorv1.StaticPodOperatorStatus{OperatorStatus: operatorv1.OperatorStatus{LatestAvailableRevision: 7}}
		for m := 0; m < 3; m++ {
			status.NodeStatuses = append(status.NodeStatuses, operatorv1.NodeStatus{NodeName: fmt.Sprintf("master-%d", m)})
		}
		switch c.Resource.Resource {
		case "kubeapiservers":
			o, err := oc.OperatorV1().KubeAPIServers().Create(ctx, &operatorv1.KubeAPIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: operatorv1.KubeAPIServerSpec{StaticPodOperatorSpec: managed}}, metav1.CreateOptions{})
			must(err)
			o.Status.StaticPodOperatorStatus = status
			_, err = oc.OperatorV1().KubeAPIServers().UpdateStatus(ctx, o, metav1.UpdateOptions{})
			must(err)
		case "kubecontrollermanagers":
			o, err := oc.OperatorV1().KubeControllerManagers().Create(ctx, &operatorv1.KubeControllerManager{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: operatorv1.KubeControllerManagerSpec{StaticPodOperatorSpec: managed}}, metav1.CreateOptions{})
			must(err)
			o.Status.StaticPodOperatorStatus = status
			_, err = oc.OperatorV1().KubeControllerManagers().UpdateStatus(ctx, o, metav1.UpdateOptions{})
			must(err)
		case "kubeschedulers":
			o, err := oc.OperatorV1().KubeSchedulers().Create(ctx, &operatorv1.KubeScheduler{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: operatorv1.KubeSchedulerSpec{StaticPodOperatorSpec: managed}}, metav1.CreateOptions{})
			must(err)
			o.Status.StaticPodOperatorStatus = status
			_, err = oc.OperatorV1().KubeSchedulers().UpdateStatus(ctx, o, metav1.UpdateOptions{})
			must(err)
		}
	}
}

// kubectlTarget is one `kubectl get` of a resource type: in a namespace ("" for
// all or cluster-scoped), with a field selector (a get by name).
type kubectlTarget struct {
	gvr   schema.GroupVersionResource
	ns    string
	field string
}

func gvrOf(r inspect.Resource) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// baseTargets are the resources of formatVersion 1.0.
func baseTargets() []kubectlTarget {
	var targets []kubectlTarget
	for _, r := range inspect.ClusterResources {
		targets = append(targets, kubectlTarget{gvr: gvrOf(r)})
	}
	for _, c := range inspect.StaticPodComponents {
		targets = append(targets, kubectlTarget{gvr: gvrOf(inspect.ResPods), ns: c.Namespace})
	}
	return append(targets, kubectlTarget{gvr: gvrOf(inspect.ResDeployments)})
}

// wedgeTargets add what `kubectl get` would fetch for the wedge facts:
// pdb -A, csr, machines -n openshift-machine-api, the two admin-gate ConfigMaps,
// apirequestcounts, the webhook and policy kinds, endpointslices -A, secrets of
// the signer namespaces (whole, as kubectl gets them), cloudcredentials, and
// pods -A.
func wedgeTargets() []kubectlTarget {
	targets := baseTargets()
	for _, w := range inspect.WedgeResources() {
		t := kubectlTarget{gvr: gvrOf(w.Resource), ns: w.Namespace}
		switch w.Namespace {
		case openshift.AdminGatesNamespace:
			t.field = "metadata.name=" + openshift.AdminGatesConfigMap
		case openshift.AdminAcksNamespace:
			t.field = "metadata.name=" + openshift.AdminAcksConfigMap
		}
		targets = append(targets, t)
	}
	return targets
}

// kubectlGet does what `kubectl get <every resource> -o json` does once discovery is
// cached: for each resource type in turn, LIST as JSON in chunks of 500
// (--chunk-size default), decode into unstructured objects, and print them as JSON.
func kubectlGet(ctx context.Context, dyn dynamic.Interface, targets []kubectlTarget) error {
	enc := json.NewEncoder(io.Discard)
	for _, t := range targets {
		opts := metav1.ListOptions{Limit: 500, FieldSelector: t.field}
		for {
			var ri dynamic.ResourceInterface = dyn.Resource(t.gvr)
			if t.ns != "" {
				ri = dyn.Resource(t.gvr).Namespace(t.ns)
			}
			l, err := ri.List(ctx, opts)
			if err != nil {
				return err
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
			if l.GetContinue() == "" {
				break
			}
			opts.Continue = l.GetContinue()
		}
	}
	return nil
}

// BenchmarkLiveInspect inspects a synthetic cluster (500 nodes, 35
// ClusterOperators, 3 static-pod operators with their pods) on the real apiserver,
// beside a kubectl-equivalent sequential JSON LIST of the same resources.
func BenchmarkLiveInspect(b *testing.B) {
	kubetest.Require(b, env)
	fresh, err := env.Fresh()
	if err != nil {
		b.Fatal(err)
	}
	defer fresh.Stop()
	seedSynthetic(b, fresh.Config, 500)
	b.Run("recover", func(b *testing.B) {
		cfg, count := countingConfig(fresh.Config)
		src, err := New(cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s, err := src.Collect(context.Background())
			if err != nil || len(s.Nodes) != 500 {
				b.Fatalf("collect: %v (%d nodes)", err, len(s.Nodes))
			}
		}
		b.ReportMetric(float64(count.Load())/float64(b.N), "requests/op")
	})
	b.Run("kubectl-get-json", func(b *testing.B) {
		cfg, count := countingConfig(fresh.Config)
		cfg.QPS, cfg.Burst = 50, 100
		dyn := dynamic.NewForConfigOrDie(cfg)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := kubectlGet(context.Background(), dyn, baseTargets()); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(count.Load())/float64(b.N), "requests/op")
	})
}

// BenchmarkSnapshot5000Nodes measures the memory of a live snapshot of 5,000
// nodes: allocated bytes per collection and the peak live heap while collecting.
func BenchmarkSnapshot5000Nodes(b *testing.B) {
	kubetest.Require(b, env)
	fresh, err := env.Fresh()
	if err != nil {
		b.Fatal(err)
	}
	defer fresh.Stop()
	seedSynthetic(b, fresh.Config, 5000)
	src, err := New(fresh.Config, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		stop := make(chan struct{})
		done := make(chan uint64)
		go samplePeakHeap(stop, done)
		s, err := src.Collect(context.Background())
		close(stop)
		if p := <-done; p > peak {
			peak = p
		}
		if err != nil || len(s.Nodes) != 5000 {
			b.Fatalf("collect: %v (%d nodes)", err, len(s.Nodes))
		}
		runtime.KeepAlive(s)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// samplePeakHeap samples the live heap every millisecond until stop closes.
func samplePeakHeap(stop <-chan struct{}, done chan<- uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak {
			peak = v
		}
		select {
		case <-stop:
			done <- peak
			return
		case <-tick.C:
		}
	}
}
