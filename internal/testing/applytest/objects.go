package applytest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/plan/planfile"
)

// Object parses a YAML document into an object; it panics on bad YAML (test input).
func Object(doc string) *unstructured.Unstructured {
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		panic(fmt.Sprintf("applytest: bad YAML: %v\n%s", err, doc))
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		panic(fmt.Sprintf("applytest: not an object: %v\n%s", err, doc))
	}
	return u
}

// Labels on operator Deployments that FakeOperators reacts to: when the Deployment
// has rolled out, the named ClusterOperator reports the version.
const (
	OperatorLabel     = "applytest.recover.openshift.io/clusteroperator"
	VersionAnnotation = "applytest.recover.openshift.io/version"
)

// Scenario is the set of objects of one full test plan, named with a suffix so
// several runs can share one control plane.
type Scenario struct {
	Suffix    string
	Namespace string
	// Objects are the manifests in plan order (for state comparisons).
	Objects []*unstructured.Unstructured
	// Obsolete is the object the plan deletes; the test creates it first.
	Obsolete *unstructured.Unstructured
	// Operator is the ClusterOperator the plan waits for.
	Operator string
}

// FullPlan builds a plan that exercises every action and every gate kind:
// disable-cvo, a namespace, a CRD and one of its objects, a create-only ConfigMap,
// a Secret, a ClusterOperator manifest and its operator Deployment, the
// ClusterOperator gate, a delete, pause and unpause of the master pool, the
// kube-apiserver static pods, set-desired-update and restore-cvo.
func FullPlan(sfx string) (*Builder, *Scenario) {
	ns := "recover-e2e-" + sfx
	group := sfx + ".example.com"
	operator := "widget-" + sfx
	sc := &Scenario{Suffix: sfx, Namespace: ns, Operator: operator}
	objs := []string{
		fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q,"labels":{"openshift.io/run-level":"0"}}}`, ns),
		fmt.Sprintf(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.%[1]s}
spec:
  group: %[1]s
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`, group),
		fmt.Sprintf(`{"apiVersion":"%s/v1","kind":"Widget","metadata":{"name":"default","namespace":%q},"spec":{"size":3}}`, group, ns),
		fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"seed","namespace":%q,"annotations":{"release.openshift.io/create-only":"true"}},"data":{"seed":"initial"}}`, ns),
		fmt.Sprintf(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"token","namespace":%q},"type":"Opaque","data":{"token":"c3VwZXItc2VjcmV0LXZhbHVl"}}`, ns),
		fmt.Sprintf(`{"apiVersion":"config.openshift.io/v1","kind":"ClusterOperator","metadata":{"name":%q},"spec":{},"status":{"versions":[{"name":"operator","version":%q}]}}`, operator, TargetVersion),
		fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: widget-operator
  namespace: %[1]s
  labels: {%[2]s: %[3]s}
  annotations: {%[4]s: %[5]q}
spec:
  selector: {matchLabels: {app: widget-operator}}
  template:
    metadata: {labels: {app: widget-operator}}
    spec:
      containers:
      - name: operator
        image: quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0000000000000000000000000000000000000000000000000000000000000444
        env: [{name: RELEASE_VERSION, value: %[5]q}]
`, ns, OperatorLabel, operator, VersionAnnotation, TargetVersion),
	}
	for _, o := range objs {
		sc.Objects = append(sc.Objects, Object(o))
	}
	sc.Obsolete = Object(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"obsolete","namespace":%q,"annotations":{"release.openshift.io/delete":"true"}},"data":{"old":"yes"}}`, ns))

	b := NewPlan().DisableCVO().
		Apply(sc.Objects[0], nil).
		Apply(sc.Objects[1], &planfile.Gate{Kind: planfile.GateCRDEstablished, Object: &planfile.ObjectRef{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets." + group}}).
		Apply(sc.Objects[2], nil).
		Apply(sc.Objects[3], nil).
		Apply(sc.Objects[4], nil).
		Apply(sc.Objects[5], nil).
		Apply(sc.Objects[6], &planfile.Gate{Kind: planfile.GateWorkloadRollout, Object: &planfile.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: "widget-operator"}}).
		Wait("clusteroperator-"+operator, &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: operator, Versions: []planfile.OperandVersion{{Name: "operator", Version: TargetVersion}}}).
		Delete(sc.Obsolete, &planfile.Gate{Kind: planfile.GateDeleted, Object: &planfile.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "obsolete"}}).
		PausePool("master").
		UnpausePool("master").
		Wait("kube-apiserver", KubeAPIServerGate()).
		SetDesiredUpdate().
		RestoreCVO()
	return b, sc
}

// KubeAPIServerGate is the static-pods gate for the kube-apiserver.
func KubeAPIServerGate() *planfile.Gate {
	return &planfile.Gate{Kind: planfile.GateStaticPods, Description: "kube-apiserver at the latest revision on every master",
		StaticPods: &planfile.StaticPodsGate{Resource: "kubeapiservers", Namespace: "openshift-kube-apiserver", PodPrefix: "kube-apiserver"}}
}
