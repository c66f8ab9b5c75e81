package gate

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The resources the gates watch.
var (
	clusterOperators  = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}
	clusterVersions   = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}
	crds              = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	pools             = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}
	deployments       = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	pods              = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nodes             = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	operatorResources = "operator.openshift.io"
)

// KindMapper maps an apiVersion and kind to its resource and scope: the
// cluster's discovery (a Checker's), or a catalog that needs no cluster (a hub
// that generates a role for a cluster it cannot reach).
type KindMapper func(apiVersion, kind string) (gvr schema.GroupVersionResource, namespaced bool, err error)

// Resources returns the resources a gate reads (for the RBAC preflight checks
// and a role grants), with the namespace each is read in ("" for a
// cluster-scoped resource or every namespace). It reads nothing: the kinds a
// workload-rollout, deleted or restored gate names are mapped by mapKind.
func Resources(g *planfile.Gate, mapKind KindMapper) ([]schema.GroupVersionResource, []string, error) {
	s, err := specOf(g, nil, mapKind)
	if err != nil {
		return nil, nil, err
	}
	var gvrs []schema.GroupVersionResource
	var nss []string
	for _, src := range s.sources {
		gvrs = append(gvrs, src.gvr)
		nss = append(nss, src.namespace)
	}
	return gvrs, nss, nil
}

// mapKind maps a kind through the cluster's discovery.
func (c *Checker) mapKind(apiVersion, kind string) (schema.GroupVersionResource, bool, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	m, err := c.mapper.Mapping(gv.WithKind(kind))
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	return m.Resource, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// objectSource is the source of the one object a gate names, mapped by mapKind.
func objectSource(g *planfile.Gate, mapKind KindMapper) (source, error) {
	gvr, namespaced, err := mapKind(g.Object.APIVersion, g.Object.Kind)
	if err != nil {
		return source{}, fmt.Errorf("%s gate: %w", g.Kind, err)
	}
	src := source{gvr: gvr, name: g.Object.Name}
	if namespaced {
		src.namespace = g.Object.Namespace
	}
	return src, nil
}

// spec builds the gate's sources and evaluation; cvo-scaled-down reads the CVO
// Deployment's pod selector first.
func (c *Checker) spec(ctx context.Context, g *planfile.Gate, r *Restore) (*spec, error) {
	s, err := specOf(g, r, c.mapKind)
	if err != nil {
		return nil, err
	}
	if g.Kind == planfile.GateCVOScaledDown {
		sel := openshift.CVOPodSelector
		var d *unstructured.Unstructured
		err := retry.Do(ctx, func() (err error) {
			d, err = c.dynamic.Resource(deployments).Namespace(openshift.CVONamespace).Get(ctx, openshift.CVODeployment, metav1.GetOptions{})
			return err
		})
		switch {
		case err == nil:
			var dep appsv1.Deployment
			if runtime.DefaultUnstructuredConverter.FromUnstructured(d.Object, &dep) == nil && dep.Spec.Selector != nil {
				if ls, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector); err == nil && !ls.Empty() {
					sel = ls.String()
				}
			}
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading the CVO deployment: %w", err)
		}
		s.sources[1].selector = sel
	}
	return s, nil
}

// specOf builds the gate's sources and evaluation without reading the cluster;
// mapKind maps the kind a gate names.
func specOf(g *planfile.Gate, r *Restore, mapKind KindMapper) (*spec, error) {
	if g == nil {
		return nil, fmt.Errorf("no gate")
	}
	switch g.Kind {
	case planfile.GateClusterOperator:
		if g.ClusterOperator == "" {
			return nil, fmt.Errorf("cluster-operator gate needs clusterOperator")
		}
		s := &spec{
			sources: []source{{gvr: clusterOperators, name: g.ClusterOperator}},
			eval: func(o [][]*unstructured.Unstructured, waited time.Duration) Progress {
				return evalClusterOperator(g, first(o[0]), waited)
			},
		}
		if g.ClusterOperator == openshift.MachineConfigOperator {
			// machine-config reports its version once the pools it waits
			// for have rolled, node by node: its timeout scales with them.
			s.sources = append(s.sources, source{gvr: pools})
			s.timeout = func(o [][]*unstructured.Unstructured) time.Duration { return machineConfigTimeout(o[1]) }
		}
		return s, nil
	case planfile.GateCRDEstablished:
		if g.Object == nil || g.Object.Name == "" {
			return nil, fmt.Errorf("crd-established gate needs object.name")
		}
		return &spec{
			sources: []source{{gvr: crds, name: g.Object.Name}},
			eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
				return evalKstatus("CustomResourceDefinition "+g.Object.Name, first(o[0]))
			},
		}, nil
	case planfile.GateWorkloadRollout, planfile.GateDeleted:
		if g.Object == nil || g.Object.Name == "" || g.Object.Kind == "" {
			return nil, fmt.Errorf("%s gate needs object with apiVersion, kind and name", g.Kind)
		}
		src, err := objectSource(g, mapKind)
		if err != nil {
			return nil, err
		}
		what := g.Object.String()
		if g.Kind == planfile.GateDeleted {
			return &spec{sources: []source{src}, eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
				return evalDeleted(what, first(o[0]))
			}}, nil
		}
		return &spec{sources: []source{src}, eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
			return evalKstatus(what, first(o[0]))
		}}, nil
	case planfile.GateStaticPods:
		sp := g.StaticPods
		if sp == nil || sp.Resource == "" || sp.Namespace == "" || sp.PodPrefix == "" {
			return nil, fmt.Errorf("static-pods gate needs staticPods.resource, namespace and podPrefix")
		}
		var sel labels.Selector
		if sp.NodeSelector != "" {
			s, err := labels.Parse(sp.NodeSelector)
			if err != nil {
				return nil, fmt.Errorf("static-pods gate: node selector %q: %w", sp.NodeSelector, err)
			}
			sel = s
		}
		return &spec{
			sources: []source{
				{gvr: schema.GroupVersionResource{Group: operatorResources, Version: "v1", Resource: sp.Resource}, name: "cluster"},
				{gvr: pods, namespace: sp.Namespace},
				{gvr: nodes, selector: sp.NodeSelector},
			},
			eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
				return evalStaticPods(sp, sel, first(o[0]), o[1], o[2])
			},
		}, nil
	case planfile.GatePoolUpdated:
		if g.Pool == "" {
			return nil, fmt.Errorf("pool-updated gate needs pool")
		}
		return &spec{
			sources: []source{{gvr: pools, name: g.Pool}},
			eval:    func(o [][]*unstructured.Unstructured, _ time.Duration) Progress { return evalPool(g.Pool, first(o[0])) },
		}, nil
	case planfile.GateCVOScaledDown:
		return &spec{
			sources: []source{
				{gvr: deployments, namespace: openshift.CVONamespace, name: openshift.CVODeployment},
				{gvr: pods, namespace: openshift.CVONamespace, selector: openshift.CVOPodSelector},
			},
			eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
				return evalCVOScaledDown(first(o[0]), o[1])
			},
		}, nil
	case planfile.GateCVORunning:
		return &spec{
			sources: []source{
				{gvr: deployments, namespace: openshift.CVONamespace, name: openshift.CVODeployment},
				{gvr: clusterVersions, name: openshift.ClusterVersionName},
			},
			eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
				return evalCVORunning(first(o[0]), first(o[1]), g.RefusalExpected != "")
			},
		}, nil
	case planfile.GateNodesSettled:
		return nodeSpec(g, inspect.NodeSettled, "settled (drain applied, machine-config daemon Done, desired configuration running)")
	case planfile.GateNodesReady:
		return nodeSpec(g, inspect.NodeReady, "Ready")
	case planfile.GateConditionCleared:
		return conditionSpec(g)
	case planfile.GateRestored:
		return restoredSpec(g, r, mapKind)
	case planfile.GateCSRIssued:
		return csrSpec(g)
	case planfile.GateReleaseAccepted:
		return releaseAcceptedSpec(g)
	}
	return nil, fmt.Errorf("unknown gate kind %q", g.Kind)
}

func first(objs []*unstructured.Unstructured) *unstructured.Unstructured {
	if len(objs) == 0 {
		return nil
	}
	return objs[0]
}

// evalClusterOperator asks inspect.OperatorWaitFor, the one rule for "may the
// CVO move past this ClusterOperator", after waiting waited: met when the CVO
// would be done; otherwise whether the CVO would still be waiting (CVOWaits),
// slow, or failing, with its reason.
func evalClusterOperator(g *planfile.Gate, u *unstructured.Unstructured, waited time.Duration) Progress {
	want := make([]configv1.OperandVersion, 0, len(g.Versions))
	for _, v := range g.Versions {
		want = append(want, configv1.OperandVersion{Name: v.Name, Version: v.Version})
	}
	var reduced *inspect.ClusterOperator
	if u != nil {
		var co configv1.ClusterOperator
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &co); err != nil {
			return Progress{Message: "cannot read ClusterOperator " + g.ClusterOperator + ": " + err.Error()}
		}
		r := inspect.ClusterOperatorFromAPI(&co)
		reduced = &r
	}
	w := inspect.OperatorWaitFor(reduced, g.ClusterOperator, want, waited)
	if w.OK {
		if len(g.Versions) == 0 {
			return Progress{Met: true, Message: fmt.Sprintf("ClusterOperator %s is Available, not Progressing, not Degraded", g.ClusterOperator)}
		}
		var vs []string
		for _, v := range g.Versions {
			vs = append(vs, v.Name+" "+v.Version)
		}
		return Progress{Met: true, Message: fmt.Sprintf("ClusterOperator %s reports %s, Available, not Degraded", g.ClusterOperator, strings.Join(vs, ", "))}
	}
	p := Progress{Pending: w.Pending, Reason: w.Reason, CVOWaits: w.Outcome == inspect.OperatorWaiting, Slow: w.Slow}
	switch {
	case reduced == nil:
		p.Message = "ClusterOperator " + g.ClusterOperator + " does not exist yet"
		p.Pending = []string{"clusteroperator/" + g.ClusterOperator + " missing: " + w.String()}
	default:
		p.Message = "ClusterOperator " + g.ClusterOperator + ": " + w.String()
	}
	switch {
	case w.Slow:
		p.Message += fmt.Sprintf(" (waiting over %s, longer than expected; the CVO would keep waiting too)", inspect.SlowAfter(g.ClusterOperator))
	case w.Outcome == inspect.OperatorFailing:
		p.Message += " (the CVO would report this as failing: " + w.Reason + ")"
	}
	return p
}

// perNodeRollout is how long machine-config's gate allows for one node of a pool
// to drain, reboot and come back, when it scales its timeout.
const perNodeRollout = 15 * time.Minute

// machineConfigTimeout is the default timeout of machine-config's gate: the
// CVO's 90-minute "slow" threshold, or longer for pools that roll more nodes than
// that allows: per pool that gates the update (inspect GatesUpdate), its
// machines in batches of maxUnavailable (default 1), perNodeRollout each.
func machineConfigTimeout(poolObjs []*unstructured.Unstructured) time.Duration {
	longest := inspect.MachineConfigSlowAfter
	for _, u := range poolObjs {
		var mcp mcfgv1.MachineConfigPool
		if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &mcp) != nil {
			continue
		}
		pool := inspect.MachineConfigPoolFromAPI(&mcp)
		if !pool.GatesUpdate() {
			continue
		}
		batch := 1
		if mu := mcp.Spec.MaxUnavailable; mu != nil {
			if n, err := intstr.GetScaledValueFromIntOrPercent(mu, int(pool.MachineCount), false); err == nil && n > 1 {
				batch = n
			}
		}
		batches := (int(pool.MachineCount) + batch - 1) / batch
		longest = max(longest, time.Duration(batches)*perNodeRollout)
	}
	return longest
}

// evalKstatus uses kstatus for CRDs and workloads.
func evalKstatus(what string, u *unstructured.Unstructured) Progress {
	if u == nil {
		return Progress{Message: what + " does not exist yet", Pending: []string{what + " missing"}}
	}
	res, err := kstatus.Compute(u)
	if err != nil {
		return Progress{Message: what + ": " + err.Error()}
	}
	switch res.Status {
	case kstatus.CurrentStatus:
		return Progress{Met: true, Message: what + " is current: " + res.Message}
	case kstatus.FailedStatus:
		return Progress{Failed: true, Message: what + " failed: " + res.Message, Pending: []string{res.Message}}
	}
	return Progress{Message: what + " is " + string(res.Status) + ": " + res.Message, Pending: []string{res.Message}}
}

func evalDeleted(what string, u *unstructured.Unstructured) Progress {
	if u == nil {
		return Progress{Met: true, Message: what + " is gone"}
	}
	if u.GetDeletionTimestamp() != nil {
		return Progress{Message: what + " is being deleted (finalizers: " + strings.Join(u.GetFinalizers(), ", ") + ")", Pending: []string{what + " terminating"}}
	}
	return Progress{Message: what + " still exists", Pending: []string{what + " exists"}}
}

// evalStaticPods verifies every selected node's mirror pod, as
// inspect.StaticPodsAt decides it: it exists, runs, is ready and carries
// revision == latestAvailableRevision (at least MinRevision, when set); the
// operator's nodeStatuses must agree. A node whose mirror pod disagrees with
// nodeStatuses is named (incident 2: the operator believed a node was at N+1
// while it ran N).
func evalStaticPods(sp *planfile.StaticPodsGate, sel labels.Selector, cr *unstructured.Unstructured, podObjs, nodeObjs []*unstructured.Unstructured) Progress {
	if cr == nil {
		return Progress{Message: sp.Resource + "/cluster does not exist", Pending: []string{sp.Resource + "/cluster missing"}}
	}
	var status operatorv1.StaticPodOperatorStatus
	if st, ok := cr.Object["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(st, &status); err != nil {
			return Progress{Message: "cannot read " + sp.Resource + "/cluster status: " + err.Error()}
		}
	}
	component := staticPodComponent(sp)
	op := &inspect.StaticPodOperator{Resource: sp.Resource, Component: component.Component, Namespace: sp.Namespace, Present: true,
		LatestAvailableRevision: status.LatestAvailableRevision, NodeStatuses: status.NodeStatuses}
	for _, u := range podObjs {
		var p corev1.Pod
		if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p) != nil {
			continue
		}
		if mirror, _ := inspect.StaticPodFromAPI(component, &p); mirror != nil {
			op.MirrorPods = append(op.MirrorPods, *mirror)
		}
	}
	var names []string
	for _, u := range nodeObjs {
		l := u.GetLabels()
		if sel != nil {
			if !sel.Matches(labels.Set(l)) {
				continue
			}
		} else {
			cp := false
			for _, k := range openshift.ControlPlaneLabels {
				if _, ok := l[k]; ok {
					cp = true
				}
			}
			if !cp {
				continue
			}
		}
		names = append(names, u.GetName())
	}
	sort.Strings(names)
	if len(names) == 0 {
		return Progress{Message: "no node matches the static-pods gate's node selector", Pending: []string{"no nodes"}}
	}
	v := inspect.StaticPodsAt(op, names, sp.MinRevision)
	latest := op.LatestAvailableRevision
	if v.OK {
		return Progress{Met: true, Message: fmt.Sprintf("%s runs revision %d on %s (mirror pods and nodeStatuses agree)", sp.PodPrefix, latest, strings.Join(names, ", "))}
	}
	pending := make([]string, len(v.Pending))
	perNode := true
	for i, item := range v.Pending {
		node, rest, _ := strings.Cut(item, ": ")
		if !slices.Contains(names, node) {
			perNode = false
		}
		if rest == "no mirror pod" {
			// Name the pod the gate looked for.
			item = fmt.Sprintf("%s: mirror pod %s-%s not found", node, sp.PodPrefix, node)
		}
		pending[i] = item
	}
	if !perNode {
		return Progress{Message: sp.PodPrefix + ": " + strings.Join(pending, "; "), Pending: pending}
	}
	return Progress{Message: fmt.Sprintf("%s: %d of %d nodes not at revision %d: %s", sp.PodPrefix, len(pending), len(names), latest, strings.Join(pending, "; ")), Pending: pending}
}

// staticPodComponent is inspect's description of the gate's operand (its
// operand container), located where the gate says.
func staticPodComponent(sp *planfile.StaticPodsGate) *inspect.StaticPodComponent {
	c := inspect.StaticPodComponent{Container: sp.PodPrefix}
	if known := inspect.StaticPodComponentFor(sp.Resource); known != nil {
		c = *known
	}
	c.Namespace, c.PodPrefix = sp.Namespace, sp.PodPrefix
	if c.Component == "" {
		c.Component = sp.PodPrefix
	}
	return &c
}

// evalPool: every machine updated, none degraded, the pool's status observed its
// spec, and Updated (when reported) is True, as inspect.PoolRolledOut decides it.
func evalPool(name string, u *unstructured.Unstructured) Progress {
	if u == nil {
		return Progress{Message: "MachineConfigPool " + name + " does not exist", Pending: []string{"pool missing"}}
	}
	var mcp mcfgv1.MachineConfigPool
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &mcp); err != nil {
		return Progress{Message: "cannot read MachineConfigPool " + name + ": " + err.Error()}
	}
	pool := inspect.MachineConfigPoolFromAPI(&mcp)
	if v := inspect.PoolRolledOut(pool); !v.OK {
		return Progress{Message: "MachineConfigPool " + name + ": " + v.String(), Pending: v.Pending}
	}
	return Progress{Met: true, Message: fmt.Sprintf("MachineConfigPool %s: all %d machines updated", name, pool.MachineCount)}
}

// evalCVOScaledDown: the CVO Deployment asks for 0 replicas and no CVO pod is left.
func evalCVOScaledDown(d *unstructured.Unstructured, podObjs []*unstructured.Unstructured) Progress {
	var pending []string
	if d != nil {
		if r, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); !found || r != 0 {
			pending = append(pending, fmt.Sprintf("deployment asks for %d replicas", r))
		}
	}
	var left []string
	for _, p := range podObjs {
		left = append(left, p.GetName())
	}
	sort.Strings(left)
	if len(left) > 0 {
		pending = append(pending, fmt.Sprintf("%d CVO pod(s) left: %s", len(left), strings.Join(left, ", ")))
	}
	if len(pending) == 0 {
		return Progress{Met: true, Message: "no cluster-version-operator pod is running"}
	}
	return Progress{Message: "cluster-version-operator: " + strings.Join(pending, "; "), Pending: pending}
}

// evalCVORunning: the CVO Deployment is available, and ClusterVersion shows the CVO
// acting on the desired update (status observed the spec, desired image matches).
// When the plan expects the CVO to refuse the update (refusalExpected), a refusal
// is reported, not waited on.
func evalCVORunning(d, cvObj *unstructured.Unstructured, refusalExpected bool) Progress {
	var pending []string
	refused := ""
	if d == nil {
		pending = append(pending, "deployment missing")
	} else {
		res, err := kstatus.Compute(d)
		avail, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
		switch {
		case err != nil:
			pending = append(pending, err.Error())
		case res.Status != kstatus.CurrentStatus:
			pending = append(pending, "deployment "+string(res.Status)+": "+res.Message)
		case avail < 1:
			pending = append(pending, "no available replica")
		}
	}
	if cvObj == nil {
		pending = append(pending, "ClusterVersion version missing")
	} else {
		var cv configv1.ClusterVersion
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cvObj.Object, &cv); err != nil {
			pending = append(pending, "cannot read ClusterVersion: "+err.Error())
		} else {
			if cv.Status.ObservedGeneration < cv.Generation {
				pending = append(pending, fmt.Sprintf("ClusterVersion status not observed yet (generation %d, observed %d)", cv.Generation, cv.Status.ObservedGeneration))
			}
			if du := cv.Spec.DesiredUpdate; du != nil && du.Image != "" && cv.Status.Desired.Image != du.Image {
				msg := fmt.Sprintf("ClusterVersion status.desired is %s, not the desired update %s", orNone(cv.Status.Desired.Version), du.Version)
				// The CVO says why it has not taken the release (a failed
				// precondition, a payload it cannot retrieve or verify): quote
				// it, so a wait that will not end explains itself.
				if c := inspect.ReleaseNotAccepted(cv.Status.Conditions); c != nil {
					msg += fmt.Sprintf(" (ReleaseAccepted=False, %s: %s)", c.Reason, c.Message)
				}
				if refusalExpected {
					refused = msg
				} else {
					pending = append(pending, msg)
				}
			}
		}
	}
	switch {
	case len(pending) == 0 && refused != "":
		return Progress{Met: true, Message: "cluster-version-operator is running; as the plan expected, it does not take the desired update yet: " + refused}
	case len(pending) == 0:
		return Progress{Met: true, Message: "cluster-version-operator is running and acting on the desired update"}
	}
	return Progress{Message: "cluster-version-operator: " + strings.Join(pending, "; "), Pending: pending}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
