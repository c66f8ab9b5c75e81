package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// The test fixture: a small OpenShift cluster at release "4.4.3" (Kubernetes
// 1.17.1) with three masters and two workers, and the releases it may move to.
// Images are fake but by digest, as the real ones are.
const (
	oldVersion = "4.4.3"
	newVersion = "4.4.4"
	oldKube    = "1.17.1"
	newKube    = "1.17.2"
)

func releaseImage(version string) string {
	return fmt.Sprintf("quay.io/openshift-release-dev/ocp-release@sha256:%064x", fnvHash(version))
}

func componentImage(component, version string) string {
	return fmt.Sprintf("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:%064x", fnvHash(component+"/"+version))
}

// testOperator is one operator of the fixture's payloads.
type testOperator struct {
	runLevel  int
	component string // payload component (file prefix)
	namespace string // operator namespace
	name      string // Deployment name
	co        string // ClusterOperator
	operand   string // extra operand version name (kube-apiserver), "" for none
}

// testOperators are the fixture's operators, at the run levels the 4.4 payload
// puts them: levels 50 and 70 hold two components each, so that the CVO's order
// has parallel groups (single-component levels merge into one serial group).
var testOperators = []testOperator{
	{20, "kube-apiserver-operator", "openshift-kube-apiserver-operator", "kube-apiserver-operator", "kube-apiserver", "kube-apiserver"},
	{50, "cluster-authentication-operator", "openshift-authentication-operator", "authentication-operator", "authentication", ""},
	{50, "cluster-monitoring-operator", "openshift-monitoring", "cluster-monitoring-operator", "monitoring", ""},
	{70, "cluster-network-operator", "openshift-network-operator", "network-operator", "network", ""},
	{70, "dns-operator", "openshift-dns-operator", "dns-operator", "dns", ""},
	{80, "machine-config-operator", "openshift-machine-config-operator", "machine-config-operator", "machine-config", ""},
}

func (o testOperator) versions(version, kube string) []configv1.OperandVersion {
	vs := []configv1.OperandVersion{{Name: "operator", Version: version}}
	if o.operand != "" {
		vs = append(vs, configv1.OperandVersion{Name: o.operand, Version: kube})
	}
	return vs
}

func (o testOperator) deployment(version string) *appsv1.Deployment {
	labels := map[string]string{"app": o.name}
	env := []corev1.EnvVar{{Name: releaseVersionEnv, Value: version}}
	if o.co == "kube-apiserver" {
		env = append(env, corev1.EnvVar{Name: operandImageEnv, Value: componentImage("hyperkube", version)})
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: o.name, Namespace: o.namespace, Annotations: map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					// Named, as the real operators' are: must-gathers do not carry
					// service accounts, so the loader makes the ones it needs.
					ServiceAccountName: o.name,
					NodeSelector:       map[string]string{openshift.LabelNodeRoleMaster: ""},
					Tolerations:        []corev1.Toleration{{Key: openshift.LabelNodeRoleMaster, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
					Containers: []corev1.Container{{
						Name:  "operator",
						Image: componentImage(o.component, version),
						Env:   env,
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("50Mi"),
						}},
					}},
				},
			},
		},
	}
}

// includeAnnotation puts a manifest in the default cluster profile.
var includeAnnotation = map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"}

// writeRelease writes the fixture's payload for version in `oc adm release
// extract` layout under dir and returns its directory.
func writeRelease(t *testing.T, dir, version, kube string) string {
	t.Helper()
	root := filepath.Join(dir, version)
	put := func(sub, file string, obj any) {
		t.Helper()
		var data []byte
		switch o := obj.(type) {
		case string:
			data = []byte(o)
		default:
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{Object: m}
			unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
			if u.GetKind() != "" {
				ann := u.GetAnnotations()
				if ann == nil {
					ann = map[string]string{}
				}
				for k, v := range includeAnnotation {
					ann[k] = v
				}
				u.SetAnnotations(ann)
			}
			if data, err = yaml.Marshal(u.Object); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(root, sub, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("release-manifests", "release-metadata", fmt.Sprintf(`{"kind": "cincinnati-metadata-v0", "version": %q}`, version))
	put("release-manifests", "image-references", fmt.Sprintf("apiVersion: image.openshift.io/v1\nkind: ImageStream\nmetadata:\n  name: %s\nspec:\n  tags:\n  - name: hyperkube\n    from:\n      kind: DockerImage\n      name: %s\n", version, componentImage("hyperkube", version)))
	// The CVO's own Deployment is a template, as in real payloads.
	put("manifests", "0000_00_cluster-version-operator_03_deployment.yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cluster-version-operator
  namespace: openshift-cluster-version
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
spec:
  selector:
    matchLabels:
      k8s-app: cluster-version-operator
  strategy:
    type: Recreate
  template:
    metadata:
      labels:
        k8s-app: cluster-version-operator
    spec:
      containers:
      - name: cluster-version-operator
        image: '{{.ReleaseImage}}'
        args: ["start", "--release-image={{.ReleaseImage}}"]
      nodeSelector:
        node-role.kubernetes.io/master: ""
      tolerations:
      - key: node-role.kubernetes.io/master
        operator: Exists
        effect: NoSchedule
`)
	for _, o := range testOperators {
		prefix := fmt.Sprintf("0000_%02d_%s_", o.runLevel, o.component)
		put("release-manifests", prefix+"00_namespace.yaml", &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: o.namespace}})
		put("release-manifests", prefix+"01_config.yaml", &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: o.name + "-config", Namespace: o.namespace}, Data: map[string]string{"version": version}})
		put("release-manifests", prefix+"02_serviceaccount.yaml", &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: metav1.ObjectMeta{Name: o.name, Namespace: o.namespace}})
		put("release-manifests", prefix+"06_deployment.yaml", o.deployment(version))
		put("release-manifests", prefix+"07_clusteroperator.yaml", &configv1.ClusterOperator{
			TypeMeta:   metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "ClusterOperator"},
			ObjectMeta: metav1.ObjectMeta{Name: o.co},
			Status:     configv1.ClusterOperatorStatus{Versions: o.versions(version, kube)},
		})
	}
	return root
}

// fixture is a cluster to write in must-gather layout.
type fixture struct {
	masters, workers int
	version, kube    string
	revision         int32 // the kube-apiserver static pods' revision
	cvoReplicas      int32
	history          []configv1.UpdateHistory
	desiredUpdate    *configv1.Update
	timing           Timing
	// extra objects to write, by must-gather path, and scenario.yaml fields.
	extra         map[string]any
	scenarioExtra map[string]any
}

func newFixture() *fixture {
	return &fixture{masters: 3, workers: 2, version: oldVersion, kube: oldKube, revision: 7, cvoReplicas: 0,
		timing: Timing{
			Operator:          metav1.Duration{Duration: 100 * time.Millisecond},
			StaticPodNode:     metav1.Duration{Duration: 100 * time.Millisecond},
			MachineConfigNode: metav1.Duration{Duration: 200 * time.Millisecond},
			CVOInterval:       metav1.Duration{Duration: 300 * time.Millisecond},
			CVOPoll:           metav1.Duration{Duration: 50 * time.Millisecond},
		}}
}

func (f *fixture) masterNames() []string {
	var out []string
	for i := range f.masters {
		out = append(out, fmt.Sprintf("master-%d", i))
	}
	return out
}

// write writes the fixture as a scenario directory and returns it.
func (f *fixture) write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mg := filepath.Join(dir, "must-gather")
	put := func(rel string, obj any) {
		t.Helper()
		data, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(mg, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list := func(kind string, items ...any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": kind, "items": items}
	}
	started := metav1.NewTime(time.Date(2020, 5, 24, 16, 2, 51, 0, time.UTC))
	now := metav1.NewTime(time.Date(2020, 5, 24, 17, 0, 0, 0, time.UTC))

	// Nodes, with the machine-config annotations and kubelet of the version.
	rendered := map[string]string{"master": renderedConfigName("master", f.version), "worker": renderedConfigName("worker", f.version)}
	node := func(name, role string, i int) *corev1.Node {
		n := &corev1.Node{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"node-role.kubernetes.io/" + role: "", "kubernetes.io/hostname": name},
				Annotations: map[string]string{currentConfigAnnotation: rendered[role], desiredConfigAnnotation: rendered[role], stateAnnotation: stateDone},
				UID:         types.UID(fmt.Sprintf("0d7c5a38-0000-0000-0000-%012d", i)), ResourceVersion: "12345"},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: started}},
				NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v" + f.kube, KubeProxyVersion: "v" + f.kube, OperatingSystem: "linux", Architecture: "amd64"},
				Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.0.%d", 10+i)}},
			},
		}
		if role == "master" {
			n.Spec.Taints = []corev1.Taint{{Key: openshift.LabelNodeRoleMaster, Effect: corev1.TaintEffectNoSchedule}}
		}
		return n
	}
	for i, name := range f.masterNames() {
		put("cluster-scoped-resources/core/nodes/"+name+".yaml", node(name, "master", i))
	}
	for i := range f.workers {
		name := fmt.Sprintf("worker-%d", i)
		put("cluster-scoped-resources/core/nodes/"+name+".yaml", node(name, "worker", f.masters+i))
	}

	// Pools and their rendered configs.
	for _, pool := range []string{"master", "worker"} {
		count := int32(f.masters)
		if pool == "worker" {
			count = int32(f.workers)
		}
		labels := map[string]string{}
		if pool == "master" {
			labels[requiredForUpgradeLabel] = ""
		}
		put("cluster-scoped-resources/machineconfiguration.openshift.io/machineconfigpools/"+pool+".yaml", &mcfgv1.MachineConfigPool{
			TypeMeta:   metav1.TypeMeta{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfigPool"},
			ObjectMeta: metav1.ObjectMeta{Name: pool, Labels: labels},
			Spec: mcfgv1.MachineConfigPoolSpec{
				NodeSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/" + pool: ""}},
				Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: rendered[pool]}},
			},
			Status: mcfgv1.MachineConfigPoolStatus{
				Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: rendered[pool]}},
				MachineCount:  count, UpdatedMachineCount: count, ReadyMachineCount: count,
				Conditions: []mcfgv1.MachineConfigPoolCondition{{Type: mcfgv1.MachineConfigPoolUpdated, Status: corev1.ConditionTrue, LastTransitionTime: started}},
			},
		})
		put("cluster-scoped-resources/machineconfiguration.openshift.io/machineconfigs/"+rendered[pool]+".yaml", &mcfgv1.MachineConfig{
			TypeMeta:   metav1.TypeMeta{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfig"},
			ObjectMeta: metav1.ObjectMeta{Name: rendered[pool], Annotations: map[string]string{releaseImageAnnotation: f.version}},
			Spec:       mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: []byte(`{"ignition":{"version":"3.1.0"}}`)}},
		})
	}

	// ClusterVersion.
	history := f.history
	if history == nil {
		history = []configv1.UpdateHistory{{State: configv1.CompletedUpdate, Version: f.version, Image: releaseImage(f.version), StartedTime: started, CompletionTime: &now}}
	}
	put("cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml", &configv1.ClusterVersion{
		TypeMeta:   metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "ClusterVersion"},
		ObjectMeta: metav1.ObjectMeta{Name: openshift.ClusterVersionName, UID: "9b1f0000-0000-0000-0000-000000000001"},
		Spec:       configv1.ClusterVersionSpec{ClusterID: "5c2d3e0a-9b1f-4f6e-8d8a-1f2b3c4d5e6f", Channel: "stable-4.4", DesiredUpdate: f.desiredUpdate},
		Status: configv1.ClusterVersionStatus{
			Desired: configv1.Release{Version: history[0].Version, Image: history[0].Image},
			History: history,
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Message: "Done applying " + f.version, LastTransitionTime: now},
				{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Message: "Cluster version is " + f.version, LastTransitionTime: now},
			},
			VersionHash: "h110xMINmng=",
		},
	})

	// Operators: their ClusterOperators, namespaces and Deployments.
	for _, o := range testOperators {
		put("cluster-scoped-resources/config.openshift.io/clusteroperators/"+o.co+".yaml", &configv1.ClusterOperator{
			TypeMeta:   metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "ClusterOperator"},
			ObjectMeta: metav1.ObjectMeta{Name: o.co},
			Status: configv1.ClusterOperatorStatus{
				Versions: o.versions(f.version, f.kube),
				Conditions: []configv1.ClusterOperatorStatusCondition{
					{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: now},
					{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Reason: "AsExpected", LastTransitionTime: now},
					{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, Reason: "AsExpected", LastTransitionTime: now},
				},
			},
		})
		put("namespaces/"+o.namespace+"/"+o.namespace+".yaml", &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: o.namespace}})
		put("namespaces/"+o.namespace+"/apps/deployments.yaml", map[string]any{"apiVersion": "apps/v1", "kind": "DeploymentList", "items": []any{o.deployment(f.version)}})
	}

	// The CVO Deployment.
	cvoDep := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: openshift.CVODeployment, Namespace: openshift.CVONamespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(f.cvoReplicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": openshift.CVODeployment}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k8s-app": openshift.CVODeployment}},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{openshift.LabelNodeRoleMaster: ""},
					Tolerations:  []corev1.Toleration{{Key: openshift.LabelNodeRoleMaster, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
					Containers:   []corev1.Container{{Name: openshift.CVODeployment, Image: releaseImage(f.version)}},
				},
			},
		},
	}
	put("namespaces/"+openshift.CVONamespace+"/apps/deployments.yaml", list("List", cvoDep))

	// The kube-apiserver's static pods and operator resource.
	var mirrors []any
	var statuses []operatorv1.NodeStatus
	for i, name := range f.masterNames() {
		mirrors = append(mirrors, &corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: "kube-apiserver-" + name, Namespace: "openshift-kube-apiserver",
				Labels:      map[string]string{"app": "openshift-kube-apiserver", "apiserver": "true", revisionLabel: fmt.Sprint(f.revision)},
				Annotations: map[string]string{mirrorPodAnnotation: "abc", configHashAnnotation: "abc"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name,
					UID: types.UID(fmt.Sprintf("0d7c5a38-0000-0000-0000-%012d", i)), Controller: ptr.To(true)}},
			},
			Spec: corev1.PodSpec{NodeName: name, HostNetwork: true, PriorityClassName: "system-node-critical",
				Containers: []corev1.Container{{Name: "kube-apiserver", Image: componentImage("hyperkube", f.version)}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
		statuses = append(statuses, operatorv1.NodeStatus{NodeName: name, CurrentRevision: f.revision})
	}
	put("namespaces/openshift-kube-apiserver/openshift-kube-apiserver.yaml", &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "openshift-kube-apiserver"}})
	put("namespaces/openshift-kube-apiserver/core/pods.yaml", list("PodList", mirrors...))
	put("cluster-scoped-resources/operator.openshift.io/kubeapiservers/cluster.yaml", &operatorv1.KubeAPIServer{
		TypeMeta:   metav1.TypeMeta{APIVersion: "operator.openshift.io/v1", Kind: "KubeAPIServer"},
		ObjectMeta: metav1.ObjectMeta{Name: staticPodSingleton},
		Spec:       operatorv1.KubeAPIServerSpec{StaticPodOperatorSpec: operatorv1.StaticPodOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}},
		Status:     operatorv1.KubeAPIServerStatus{StaticPodOperatorStatus: operatorv1.StaticPodOperatorStatus{OperatorStatus: operatorv1.OperatorStatus{LatestAvailableRevision: f.revision}, NodeStatuses: statuses}},
	})

	// A pod a ReplicaSet owns: the loader must leave it to the controllers.
	put("namespaces/openshift-dns-operator/core/pods.yaml", list("PodList", &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "dns-operator-5d8f-abcde", Namespace: "openshift-dns-operator",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "dns-operator-5d8f", UID: "1", Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: "master-0", Containers: []corev1.Container{{Name: "dns-operator", Image: "x"}}},
	}))

	for rel, obj := range f.extra {
		put(rel, obj)
	}

	// The payloads, and the scenario file.
	writeRelease(t, filepath.Join(dir, "releases"), oldVersion, oldKube)
	writeRelease(t, filepath.Join(dir, "releases"), newVersion, newKube)
	scn := map[string]any{
		"apiVersion": ScenarioAPIVersion, "kind": ScenarioKind,
		"description": "test fixture",
		"releases": []map[string]any{
			{"version": oldVersion, "image": releaseImage(oldVersion), "payload": "releases/" + oldVersion},
			{"version": newVersion, "image": releaseImage(newVersion), "payload": "releases/" + newVersion},
		},
		"timing": f.timing,
	}
	for k, v := range f.scenarioExtra {
		scn[k] = v
	}
	data, err := yaml.Marshal(scn)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ScenarioFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
