package gate

import (
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The property below ties the planner's skip rule (plan.OperatorAtTarget) to the
// engine's gates: over generated ClusterOperator, operator Deployment,
// static-pod operator, mirror pod and node states, seen once as a snapshot (what
// the planner reads) and once as the apiserver's objects (what the gates read):
//
//   - whenever the planner skips a component, the gates its steps would have
//     carried (cluster-operator; static-pods for a static-pod operator) pass;
//   - whenever those gates pass and the snapshot holds the planner's extra
//     evidence (the operator Deployment runs the target and has rolled out; every
//     mirror pod runs the operator's operand image), the planner skips.

const (
	agreeTarget  = "4.15.3"
	agreeOld     = "4.14.9"
	agreeOperand = "1.28.5"
	agreeImage   = "quay.io/openshift/operand@sha256:new"
	agreeOldImg  = "quay.io/openshift/operand@sha256:old"
)

// agreeCase is one generated state.
type agreeCase struct {
	co       string // ClusterOperator (and, for a static-pod operator, component)
	declared []planfile.OperandVersion

	coPresent  bool
	versions   map[string]string // reported versions ("" entry: not reported)
	available  string            // "True", "False", "Unknown", "" (missing)
	degraded   string
	depVersion string // the operator Deployment's RELEASE_VERSION ("" no Deployment)
	depRolled  bool

	// static-pod operator
	static    *inspect.StaticPodComponent
	opPresent bool
	latest    int32
	nodes     []agreeNode
}

type agreeNode struct {
	name     string
	role     string // "master", "control-plane", "worker"
	claimed  int32  // nodeStatuses currentRevision; -1 not listed
	mirror   bool
	revision int32
	image    string
	phase    string
	ready    bool
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.Intn(len(xs))] }

// genAgree draws one state; most draws are near "at target" so both answers occur.
func genAgree(r *rand.Rand) agreeCase {
	c := agreeCase{co: pick(r, "kube-apiserver", "kube-scheduler", "dns"), versions: map[string]string{}}
	c.declared = []planfile.OperandVersion{{Name: "operator", Version: agreeTarget}}
	if sp := inspect.StaticPodComponentFor(c.co); sp != nil {
		c.static = sp
		c.declared = append(c.declared, planfile.OperandVersion{Name: sp.Component, Version: agreeOperand})
	} else {
		c.declared = append(c.declared, planfile.OperandVersion{Name: "coredns", Version: agreeTarget})
	}
	c.coPresent = r.Intn(20) > 0
	for _, d := range c.declared {
		c.versions[d.Name] = pick(r, d.Version, d.Version, d.Version, d.Version, "0.0.1-old", "")
	}
	c.available = pick(r, "True", "True", "True", "True", "False", "Unknown", "")
	c.degraded = pick(r, "False", "False", "False", "True", "Unknown", "")
	c.depVersion = pick(r, agreeTarget, agreeTarget, agreeTarget, agreeOld, "")
	c.depRolled = r.Intn(8) > 0
	if c.static == nil {
		return c
	}
	c.opPresent = r.Intn(20) > 0
	c.latest = pick[int32](r, 3, 3, 3, 3, 0)
	for i := range 1 + r.Intn(3) {
		n := agreeNode{name: fmt.Sprintf("master-%d", i), role: pick(r, "master", "master", "control-plane"), claimed: 3,
			mirror: r.Intn(12) > 0, revision: 3, image: agreeImage, phase: "Running", ready: true}
		if r.Intn(5) == 0 {
			n.claimed = pick[int32](r, 2, -1)
		}
		if r.Intn(5) == 0 {
			n.revision = pick[int32](r, 2, 0)
		}
		if r.Intn(6) == 0 {
			n.image = agreeOldImg
		}
		if r.Intn(6) == 0 {
			n.phase, n.ready = pick(r, "Pending", "Running"), false
		}
		c.nodes = append(c.nodes, n)
	}
	if r.Intn(3) == 0 {
		c.nodes = append(c.nodes, agreeNode{name: "worker-0", role: "worker", claimed: -1})
	}
	return c
}

func (c agreeCase) String() string {
	out := fmt.Sprintf("co present=%v versions=%v Available=%q Degraded=%q; operator Deployment %q rolled out=%v",
		c.coPresent, c.versions, c.available, c.degraded, c.depVersion, c.depRolled)
	if c.static != nil {
		out += fmt.Sprintf("; %s/cluster present=%v latest=%d", c.static.Resource.Resource, c.opPresent, c.latest)
		for _, n := range c.nodes {
			out += fmt.Sprintf("; %s(%s) claimed=%d mirror=%v rev=%d image=%s %s ready=%v", n.name, n.role, n.claimed, n.mirror, n.revision, strings.TrimPrefix(n.image, "quay.io/openshift/operand@sha256:"), n.phase, n.ready)
		}
	}
	return out
}

// evidence is the planner's extra evidence: what it verifies beyond the gates.
func (c agreeCase) evidence() bool {
	if c.depVersion != agreeTarget || !c.depRolled {
		return false
	}
	if c.static != nil {
		for _, n := range c.nodes {
			if n.mirror && n.image != agreeImage {
				return false
			}
		}
	}
	return true
}

func condition(t configv1.ClusterStatusConditionType, status string) []configv1.ClusterOperatorStatusCondition {
	if status == "" {
		return nil
	}
	return []configv1.ClusterOperatorStatusCondition{{Type: t, Status: configv1.ConditionStatus(status)}}
}

func (c agreeCase) clusterOperator() *configv1.ClusterOperator {
	if !c.coPresent {
		return nil
	}
	co := &configv1.ClusterOperator{TypeMeta: metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "ClusterOperator"}, ObjectMeta: metav1.ObjectMeta{Name: c.co}}
	for _, d := range c.declared {
		if v := c.versions[d.Name]; v != "" {
			co.Status.Versions = append(co.Status.Versions, configv1.OperandVersion{Name: d.Name, Version: v})
		}
	}
	co.Status.Conditions = append(condition(configv1.OperatorAvailable, c.available), condition(configv1.OperatorDegraded, c.degraded)...)
	return co
}

// snapshot is the state as the planner reads it.
func (c agreeCase) snapshot() *inspect.Snapshot {
	s := &inspect.Snapshot{}
	if co := c.clusterOperator(); co != nil {
		s.ClusterOperators = append(s.ClusterOperators, inspect.ClusterOperator{Name: co.Name, Versions: co.Status.Versions, Conditions: co.Status.Conditions})
	}
	if c.depVersion != "" {
		ns, name := "openshift-"+c.co+"-operator", c.co+"-operator"
		env := map[string]string{"RELEASE_VERSION": c.depVersion}
		if c.static != nil {
			ns, name = c.static.OperatorNamespace, c.static.OperatorDeployment
			env["IMAGE"], env["OPERAND_IMAGE_VERSION"] = agreeImage, agreeOperand
		}
		one := int32(1)
		d := inspect.Deployment{Namespace: ns, Name: name, Replicas: &one, ReadyReplicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1, Generation: 2, ObservedGeneration: 2,
			Containers: []inspect.Container{{Name: "operator", Image: "quay.io/openshift/operator", Env: env}}}
		if !c.depRolled {
			d.ObservedGeneration, d.UpdatedReplicas = 1, 0
		}
		s.OperatorDeployments = append(s.OperatorDeployments, d)
	}
	for _, n := range c.nodes {
		s.Nodes = append(s.Nodes, inspect.Node{Name: n.name, Roles: []string{n.role}, Ready: "True"})
	}
	if c.static != nil && c.opPresent {
		op := inspect.StaticPodOperator{Resource: c.static.Resource.Resource, Component: c.static.Component, ClusterOperator: c.static.ClusterOperator,
			Namespace: c.static.Namespace, Present: true, LatestAvailableRevision: c.latest}
		for _, n := range c.nodes {
			if n.claimed >= 0 {
				op.NodeStatuses = append(op.NodeStatuses, operatorv1.NodeStatus{NodeName: n.name, CurrentRevision: n.claimed})
			}
			if n.mirror {
				op.MirrorPods = append(op.MirrorPods, inspect.StaticPod{Name: c.static.PodPrefix + "-" + n.name, Node: n.name, Revision: n.revision, Image: n.image, Phase: n.phase, Ready: n.ready})
			}
		}
		s.StaticPodOperators = append(s.StaticPodOperators, op)
	}
	return s
}

func toUnstructured(t *testing.T, o any) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// gates evaluates the gates the component's steps would carry on the state as
// the apiserver serves it; it returns whether all passed and what is pending.
func (c agreeCase) gates(t *testing.T) (bool, string) {
	var co *unstructured.Unstructured
	if o := c.clusterOperator(); o != nil {
		co = toUnstructured(t, o)
	}
	p := evalClusterOperator(&planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: c.co, Versions: c.declared}, co, 0)
	if !p.Met {
		return false, "cluster-operator gate: " + p.Message
	}
	if c.static == nil {
		return true, ""
	}
	var cr *unstructured.Unstructured
	var pods, nodes []*unstructured.Unstructured
	if c.opPresent {
		var st operatorv1.StaticPodOperatorStatus
		st.LatestAvailableRevision = c.latest
		for _, n := range c.nodes {
			if n.claimed >= 0 {
				st.NodeStatuses = append(st.NodeStatuses, operatorv1.NodeStatus{NodeName: n.name, CurrentRevision: n.claimed})
			}
		}
		cr = &unstructured.Unstructured{Object: nil}
		cr.Object = map[string]any{"apiVersion": "operator.openshift.io/v1", "kind": "X", "metadata": map[string]any{"name": openshift.SingletonName}}
		cr.Object["status"] = toUnstructured(t, &st).Object
	}
	for _, n := range c.nodes {
		nodes = append(nodes, toUnstructured(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: map[string]string{openshift.LabelNodeRolePrefix + n.role: ""}}}))
		if !n.mirror {
			continue
		}
		ready := corev1.ConditionFalse
		if n.ready {
			ready = corev1.ConditionTrue
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: c.static.PodPrefix + "-" + n.name, Namespace: c.static.Namespace,
			Annotations: map[string]string{"kubernetes.io/config.mirror": "x"}},
			Spec:   corev1.PodSpec{NodeName: n.name, Containers: []corev1.Container{{Name: c.static.Container, Image: n.image}}},
			Status: corev1.PodStatus{Phase: corev1.PodPhase(n.phase), Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}}}
		if n.revision > 0 {
			pod.Labels = map[string]string{"revision": fmt.Sprint(n.revision)}
		}
		pods = append(pods, toUnstructured(t, pod))
	}
	sp := plan.StaticPodsGateFor(c.static, 0)
	if p := evalStaticPods(sp, nil, cr, pods, nodes); !p.Met {
		return false, "static-pods gate: " + p.Message
	}
	return true, ""
}

// TestPlannerSkipAgreesWithGates is the property; the seed is fixed so a failure
// reproduces, and every divergence class is counted so a regression names itself.
func TestPlannerSkipAgreesWithGates(t *testing.T) {
	const iterations = 5000
	r := rand.New(rand.NewSource(15))
	var skipped, met, failures int
	classes := map[string]int{}
	for i := range iterations {
		c := genAgree(r)
		skip, why := plan.OperatorAtTarget(c.snapshot(), c.co, c.declared)
		ok, pending := c.gates(t)
		if skip {
			skipped++
		}
		if ok {
			met++
		}
		var msg string
		switch {
		case skip && !ok:
			msg = "the planner skips it but the gate would not pass: " + pending
		case ok && c.evidence() && !skip:
			msg = "the gates pass with the planner's evidence but the planner does not skip it: " + why
		}
		if msg == "" {
			continue
		}
		classes[divergenceClass(msg)]++
		if failures++; failures <= 5 {
			t.Errorf("iteration %d, clusteroperator/%s: %s\nstate: %s", i, c.co, msg, c)
		}
	}
	if failures > 5 {
		t.Errorf("%d of %d states diverge (first 5 shown); by class: %v", failures, iterations, classes)
	}
	// The generator must reach both answers, or the property says nothing.
	if skipped < iterations/50 || met < iterations/50 || skipped == iterations {
		t.Errorf("generator too narrow: %d skipped, %d gates met of %d", skipped, met, iterations)
	}
	t.Logf("%d states: %d skipped, %d with every gate met", iterations, skipped, met)
}

// divergenceClass names a divergence by its gate and what the gate waits for,
// without the per-state numbers and names.
func divergenceClass(msg string) string {
	msg = regexp.MustCompile(`[0-9]+|master-[0-9]|(kube-scheduler|kube-apiserver|dns)\b`).ReplaceAllString(msg, "#")
	if len(msg) > 140 {
		msg = msg[:140]
	}
	return msg
}
