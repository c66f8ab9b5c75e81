package inspect

import (
	"fmt"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// fixture is a healthy 4.4.4 cluster as API objects; tests mutate it and build a
// snapshot through the Builder, as every source does.
type fixture struct {
	cv        *configv1.ClusterVersion
	cos       []*configv1.ClusterOperator
	deploys   []*appsv1.Deployment
	kas       operatorv1.StaticPodOperatorStatus
	pods      []*corev1.Pod
	nodes     []*corev1.Node
	pools     []*mcfgv1.MachineConfigPool
	mcs       []metav1.ObjectMeta
	forbidden []string
	now       time.Time
}

const (
	img443 = "quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc"
	img444 = "quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5"
	hk443  = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:e015c1aabe04a99380c0451df274a4c290a33c97d251a9a9e29f9bd17bfe72aa"
	hk444  = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:d18da6c2882b40243cec42a5e02ae0f9d490a307b23fed03d9254cd2ede3c33a"
)

var fixtureNow = time.Date(2020, 6, 2, 11, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(fixtureNow.Add(-d)) }

func healthy() *fixture {
	f := &fixture{now: fixtureNow}
	done := metav1.NewTime(fixtureNow.Add(-time.Hour))
	installDone := metav1.NewTime(fixtureNow.Add(-200 * time.Hour))
	f.cv = &configv1.ClusterVersion{
		ObjectMeta: metav1.ObjectMeta{Name: "version"},
		Spec:       configv1.ClusterVersionSpec{ClusterID: "5c2d3e0a-9b1f-4f6e-8d8a-1f2b3c4d5e6f", Channel: "stable-4.4", DesiredUpdate: &configv1.Update{Version: "4.4.4", Image: img444}},
		Status: configv1.ClusterVersionStatus{
			Desired: configv1.Release{Version: "4.4.4", Image: img444},
			History: []configv1.UpdateHistory{
				{State: configv1.CompletedUpdate, Version: "4.4.4", Image: img444, Verified: true, StartedTime: ago(2 * time.Hour), CompletionTime: &done},
				{State: configv1.CompletedUpdate, Version: "4.4.3", Image: img443, StartedTime: ago(201 * time.Hour), CompletionTime: &installDone},
			},
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Message: "Done applying 4.4.4", LastTransitionTime: done},
				{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Message: "Cluster version is 4.4.4", LastTransitionTime: done},
				{Type: "Failing", Status: configv1.ConditionFalse, LastTransitionTime: done},
			},
		},
	}
	for _, name := range []string{"kube-apiserver", "etcd", "dns", "machine-config"} {
		co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}
		co.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: "4.4.4"}}
		if name == "kube-apiserver" {
			co.Status.Versions = append(co.Status.Versions, configv1.OperandVersion{Name: "kube-apiserver", Version: "1.17.1"})
		}
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{
			{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, LastTransitionTime: done},
			{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, LastTransitionTime: done},
			{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, LastTransitionTime: done},
		}
		ns := "openshift-" + name + "-operator"
		co.Status.RelatedObjects = []configv1.ObjectReference{{Resource: "namespaces", Name: ns}}
		f.cos = append(f.cos, co)
		env := []corev1.EnvVar{{Name: "RELEASE_VERSION", Value: "4.4.4"}}
		if name == "kube-apiserver" {
			env = append(env, corev1.EnvVar{Name: "IMAGE", Value: hk444}, corev1.EnvVar{Name: "OPERAND_IMAGE_VERSION", Value: "1.17.1"})
		}
		f.deploys = append(f.deploys, deployment(ns, name+"-operator", 1, env))
	}
	f.deploys = append(f.deploys, deployment(openshift.CVONamespace, openshift.CVODeployment, 1, nil))
	f.deploys[len(f.deploys)-1].Spec.Template.Spec.Containers[0].Image = img444
	f.kas.LatestAvailableRevision = 5
	for i := 0; i < 3; i++ {
		node := fmt.Sprintf("master-%d", i)
		f.kas.NodeStatuses = append(f.kas.NodeStatuses, operatorv1.NodeStatus{NodeName: node, CurrentRevision: 5})
		f.pods = append(f.pods, mirrorPod(node, 5, hk444), installerPod(node, 5, 0, corev1.PodSucceeded, 0))
		f.nodes = append(f.nodes, node1(node, "master", "v1.17.1", "rendered-master-new"))
	}
	f.nodes = append(f.nodes, node1("worker-0", "worker", "v1.17.1", "rendered-worker-new"))
	f.pools = []*mcfgv1.MachineConfigPool{pool("master", "rendered-master-new", 3), pool("worker", "rendered-worker-new", 1)}
	f.pools[0].Labels = map[string]string{openshift.LabelRequiredForUpgradePool: ""}
	f.mcs = []metav1.ObjectMeta{
		{Name: "rendered-master-new", Annotations: map[string]string{annReleaseImageVersion: "4.4.4"}},
		{Name: "rendered-master-old", Annotations: map[string]string{annReleaseImageVersion: "4.4.3"}},
		{Name: "rendered-worker-new", Annotations: map[string]string{annReleaseImageVersion: "4.4.4"}},
		{Name: "00-master"},
	}
	return f
}

func deployment(ns, name string, replicas int32, env []corev1.EnvVar) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 2},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "operator", Image: "quay.io/example/" + name, Env: env}},
		}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas},
	}
}

func mirrorPod(node string, rev int, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-kube-apiserver", Name: "kube-apiserver-" + node,
			Labels: map[string]string{"revision": fmt.Sprint(rev), "app": "openshift-kube-apiserver"}, Annotations: map[string]string{annMirrorPod: "x"}},
		Spec:   corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "kube-apiserver", Image: image}, {Name: "cert-syncer", Image: "quay.io/example/syncer"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}

func installerPod(node string, rev, retry int, phase corev1.PodPhase, exit int32) *corev1.Pod {
	name := fmt.Sprintf("installer-%d-%s", rev, node)
	if retry > 0 {
		name = fmt.Sprintf("installer-%d-retry-%d-%s", rev, retry, node)
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-kube-apiserver", Name: name, Labels: map[string]string{"app": "installer"}},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "installer", Image: "quay.io/example/op"}}},
		Status: corev1.PodStatus{Phase: phase, ContainerStatuses: []corev1.ContainerStatus{{Name: "installer",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Reason: "Completed"}}}}},
	}
}

func node1(name, role, kubelet, config string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{labelNodeRolePrefix + role: ""},
			Annotations: map[string]string{annCurrentConfig: config, annDesiredConfig: config, annMCDState: "Done"}},
		Status: corev1.NodeStatus{
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: kubelet},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
}

func pool(name, config string, machines int32) *mcfgv1.MachineConfigPool {
	p := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.Configuration.Name = config
	p.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{labelNodeRolePrefix + name: ""}}
	p.Status.Configuration.Name = config
	p.Status.MachineCount, p.Status.UpdatedMachineCount, p.Status.ReadyMachineCount = machines, machines, machines
	return p
}

func (f *fixture) co(name string) *configv1.ClusterOperator {
	for _, co := range f.cos {
		if co.Name == name {
			return co
		}
	}
	panic("no clusteroperator " + name)
}

func (f *fixture) deploy(name string) *appsv1.Deployment {
	for _, d := range f.deploys {
		if d.Name == name {
			return d
		}
	}
	panic("no deployment " + name)
}

func (f *fixture) node(name string) *corev1.Node {
	for _, n := range f.nodes {
		if n.Name == name {
			return n
		}
	}
	panic("no node " + name)
}

func (f *fixture) pod(name string) *corev1.Pod {
	for _, p := range f.pods {
		if p.Name == name {
			return p
		}
	}
	panic("no pod " + name)
}

// snapshot builds the snapshot through the Builder, recording every resource as
// collected except those in f.forbidden.
func (f *fixture) snapshot() *Snapshot {
	b := NewBuilder(SourceLive, "https://fixture")
	b.SetCollectedAt(f.now, "clock")
	if f.cv != nil {
		b.SetClusterVersion(f.cv)
	}
	for _, co := range f.cos {
		b.AddClusterOperator(co)
	}
	for _, d := range f.deploys {
		b.AddDeployment(d)
	}
	b.SetStaticPodOperator("kubeapiservers", metav1.ObjectMeta{Name: "cluster"}, operatorv1.StaticPodOperatorSpec{}, f.kas)
	for _, p := range f.pods {
		b.AddPod(p)
	}
	for _, n := range f.nodes {
		b.AddNode(n)
	}
	for _, p := range f.pools {
		b.AddMachineConfigPool(p)
	}
	for i := range f.mcs {
		b.AddMachineConfig(&f.mcs[i])
	}
	forbidden := map[string]bool{}
	for _, k := range f.forbidden {
		forbidden[k] = true
	}
	record := func(key, ns string) {
		rs := ResourceStatus{Resource: key, Namespace: ns, State: Collected, CollectedAt: f.now}
		full := key
		if ns != "" {
			full += "/" + ns
		}
		if forbidden[full] {
			rs.State, rs.Reason = Forbidden, "forbidden by the fixture"
		}
		b.Record(rs)
	}
	for _, r := range ClusterResources {
		record(r.Key(), "")
	}
	for _, c := range StaticPodComponents {
		record(ResPods.Key(), c.Namespace)
	}
	record(ResDeployments.Key(), "")
	return b.Finish()
}
