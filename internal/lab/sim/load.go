package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// workloadControllers are the owner kinds whose pods and replica sets the API
// server's own controllers recreate from the loaded Deployments and DaemonSets; the
// must-gather's copies are left out so that they are not duplicated.
var workloadControllers = []string{"ReplicaSet", "DaemonSet", "StatefulSet", "Job", "Deployment", "ReplicationController"}

// LoadError is a must-gather object the API server refused.
type LoadError struct {
	Object objectKey
	Path   string
	Err    error
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("loading %s from %s: %v", e.Object, e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *LoadError) Unwrap() error { return e.Err }

// BadInput reports whether the API server refused the object itself (invalid or
// malformed), rather than failing to serve it.
func (e *LoadError) BadInput() bool {
	return apierrors.IsInvalid(e.Err) || apierrors.IsBadRequest(e.Err) || errors.Is(e.Err, errDecode)
}

// errDecode marks objects that could not be decoded into their Go type.
var errDecode = errors.New("cannot decode the object")

// Load creates the scenario's must-gather objects in the API server, with their
// status: namespaces first, then CRDs the must-gather carries, then cluster-scoped
// and namespaced objects, CertificateSigningRequests last; each is created and then its status written through the
// /status subresource. resourceVersion, uid, managedFields and the like are
// stripped; owner references are re-pointed at the loaded owners' new UIDs. Pods
// and replica sets that belong to a workload controller are left to the API server's
// controllers, which recreate them from the loaded Deployments and DaemonSets,
// except the pods boundWorkloads keeps on their nodes. CertificateSigningRequests
// are created as their requestor (createCSR). Objects of kinds the API server does not serve are skipped with a Skipped event.
func (s *Sim) Load(ctx context.Context) error {
	objs, err := readObjects(s.scn.Path(s.scn.MustGather))
	if err != nil {
		return err
	}
	if err := s.logs.loadMustGather(s.scn.Path(s.scn.MustGather)); err != nil {
		return &ScenarioError{Path: s.scn.Path(s.scn.MustGather), Err: fmt.Errorf("reading its logs: %w", err)}
	}
	if s.scn.PodLogs {
		for _, o := range objs {
			if u := o.Object; u.GetKind() == "Node" && u.GroupVersionKind().Group == "" {
				loopbackNode(u)
			}
		}
	}
	for _, o := range objs {
		if u := o.Object; u.GetKind() == "Node" && u.GroupVersionKind().Group == "" {
			for _, jn := range s.scn.JoiningNodes {
				if jn.Node == u.GetName() {
					return &ScenarioError{Path: o.Path, Err: fmt.Errorf("node %s is a joining node of the scenario but the must-gather holds its Node: a kubelet without its client certificate cannot register one (remove the Node or the joiningNodes entry)", jn.Node)}
				}
			}
		}
	}
	var namespaces, crds, clusterScoped, boundPods, boundSets, namespaced, csrs []sourcedObject
	nsNeeded := map[string]bool{}
	pods, sets := boundWorkloads(objs)
	for _, o := range objs {
		u := o.Object
		key := keyOf(u)
		switch {
		case u.GetKind() == "Namespace" && u.GroupVersionKind().Group == "":
			namespaces = append(namespaces, o)
		case u.GetKind() == "CustomResourceDefinition":
			crds = append(crds, o)
		case u.GetKind() == "CertificateSigningRequest" && u.GroupVersionKind().Group == "certificates.k8s.io":
			csrs = append(csrs, o)
		case pods[key]:
			nsNeeded[u.GetNamespace()] = true
			boundPods = append(boundPods, o)
		case sets[key]:
			nsNeeded[u.GetNamespace()] = true
			boundSets = append(boundSets, o)
		case ownedByWorkloadController(u):
			continue
		case u.GetNamespace() != "":
			nsNeeded[u.GetNamespace()] = true
			namespaced = append(namespaced, o)
		default:
			clusterScoped = append(clusterScoped, o)
		}
	}
	for _, o := range namespaces {
		delete(nsNeeded, o.Object.GetName())
	}
	for _, ns := range sortedKeys(nsNeeded) {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("Namespace")
		u.SetName(ns)
		namespaces = append(namespaces, sourcedObject{Object: u, Path: "(implied by its objects)"})
	}
	if err := s.loadCRDs(ctx, crds); err != nil {
		return err
	}
	if err := s.ensureCRDsFor(ctx, objs); err != nil {
		return err
	}
	l := &loader{s: s, uids: map[objectKey]types.UID{}}
	// CSRs last: a kubelet asks for its certificate after its Machine exists,
	// and the machine approver (and recover) compare their creation times,
	// which a loaded machine could otherwise push more than its 10 s of clock
	// skew apart in the wrong order.
	for _, group := range [][]sourcedObject{namespaces, clusterScoped, boundPods, boundSets, namespaced, csrs} {
		for _, o := range group {
			if err := l.create(ctx, o); err != nil {
				return err
			}
		}
	}
	if err := l.linkOwners(ctx); err != nil {
		return err
	}
	s.rec.record("loader", "Loaded", s.scn.Path(s.scn.MustGather), fmt.Sprintf("%d objects created, %d skipped", l.created, l.skipped), nil)
	return nil
}

// ownedByWorkloadController reports whether a workload controller recreates u.
func ownedByWorkloadController(u *unstructured.Unstructured) bool {
	for _, ref := range u.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller && slices.Contains(workloadControllers, ref.Kind) {
			return true
		}
	}
	return false
}

// loadCRDs creates the must-gather's CRDs the API server lacks and waits until
// they are Established.
func (s *Sim) loadCRDs(ctx context.Context, objs []sourcedObject) error {
	if len(objs) == 0 {
		return nil
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, o := range objs {
		u := cleanForCreate(o.Object)
		delete(u.Object, "status")
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
			return &LoadError{Object: keyOf(o.Object), Path: o.Path, Err: fmt.Errorf("%w: %v", errDecode, err)}
		}
		crds = append(crds, crd)
	}
	if err := kubetest.InstallCRDs(ctx, s.restConfig(), crds); err != nil {
		return fmt.Errorf("loading the must-gather's CRDs: %w", err)
	}
	s.mapper.Reset()
	return nil
}

// loader creates objects and remembers their new UIDs and owner references.
type loader struct {
	s       *Sim
	uids    map[objectKey]types.UID
	owners  []pendingOwners
	created int
	skipped int
}

// pendingOwners are the owner references of a created object, to re-point once
// every object exists.
type pendingOwners struct {
	key  objectKey
	gvr  schema.GroupVersionResource
	refs []metav1.OwnerReference
	path string
}

// create creates one object and writes its status.
func (l *loader) create(ctx context.Context, o sourcedObject) error {
	s := l.s
	key := keyOf(o.Object)
	gvk := o.Object.GroupVersionKind()
	mapping, err := s.mapper.Mapping(gvk)
	if err != nil {
		var unknown *resource.UnknownKindError
		if errors.As(err, &unknown) {
			l.skipped++
			s.rec.record("loader", "Skipped", key.String(), "the API server does not serve "+gvk.String(), nil)
			return nil
		}
		return &LoadError{Object: key, Path: o.Path, Err: err}
	}
	if isCSR(o.Object) {
		uid, err := l.loadCSR(ctx, o)
		if err != nil {
			return &LoadError{Object: key, Path: o.Path, Err: err}
		}
		l.created++
		l.uids[key] = uid
		return nil
	}
	u := cleanForCreate(o.Object)
	status, hasStatus := u.Object["status"]
	owners := u.GetOwnerReferences()
	u.SetOwnerReferences(nil)
	prepareForCreate(u)
	var client dynamic.ResourceInterface = s.dyn.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		client = s.dyn.Resource(mapping.Resource).Namespace(u.GetNamespace())
	}
	if podSpec, ok := podSpecOf(u); ok {
		if err := s.ensureServiceAccount(ctx, u.GetNamespace(), podSpec); err != nil {
			return &LoadError{Object: key, Path: o.Path, Err: err}
		}
	}
	created, err := client.Create(ctx, u, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) && (u.GetKind() == "Namespace" || u.GetKind() == "ServiceAccount") {
		// Implied by its objects, or made for a pod loaded before it.
		created, err = client.Get(ctx, u.GetName(), metav1.GetOptions{})
	}
	if err != nil {
		return &LoadError{Object: key, Path: o.Path, Err: err}
	}
	l.created++
	l.uids[key] = created.GetUID()
	if len(owners) > 0 {
		l.owners = append(l.owners, pendingOwners{key: key, gvr: mapping.Resource, refs: owners, path: o.Path})
	}
	if hasStatus && status != nil && u.GetKind() != "Namespace" {
		if first, ok := nodeStatusesWithoutRevisions(status); ok {
			// The static-pod operators' CRDs refuse a nodeStatus created with
			// a revision: add the entries first, then their revisions.
			if err := writeStatus(ctx, client, created, first); err != nil {
				return &LoadError{Object: key, Path: o.Path, Err: fmt.Errorf("writing status: %w", err)}
			}
			if created, err = client.Get(ctx, created.GetName(), metav1.GetOptions{}); err != nil {
				return &LoadError{Object: key, Path: o.Path, Err: err}
			}
		}
		if err := writeStatus(ctx, client, created, status); err != nil {
			return &LoadError{Object: key, Path: o.Path, Err: fmt.Errorf("writing status: %w", err)}
		}
	}
	return nil
}

// nodeStatusesWithoutRevisions returns a copy of a static-pod operator status whose nodeStatuses
// carry only their node names, when any entry carries more.
func nodeStatusesWithoutRevisions(status any) (map[string]any, bool) {
	m, ok := status.(map[string]any)
	if !ok {
		return nil, false
	}
	list, ok := m["nodeStatuses"].([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	out := runtime.DeepCopyJSONValue(m).(map[string]any)
	var bare []any
	for _, e := range list {
		entry, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		bare = append(bare, map[string]any{"nodeName": entry["nodeName"]})
	}
	out["nodeStatuses"] = bare
	return out, true
}

// writeStatus sets status on the created object through the /status subresource,
// retrying on conflicts (a controller may have written status in between). A
// resource without a /status subresource answers NotFound for the object just
// created; its status (if any) was stored by the create.
func writeStatus(ctx context.Context, client dynamic.ResourceInterface, created *unstructured.Unstructured, status any) error {
	obj := created
	for attempt := 0; ; attempt++ {
		obj.Object["status"] = runtime.DeepCopyJSONValue(status)
		_, err := client.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
		switch {
		case err == nil, apierrors.IsNotFound(err):
			return nil
		case !apierrors.IsConflict(err) || attempt > 10:
			return err
		}
		if obj, err = client.Get(ctx, created.GetName(), metav1.GetOptions{}); err != nil {
			return err
		}
	}
}

// linkOwners re-points owner references at the new UIDs of the loaded owners and
// drops references to owners that were not loaded (the garbage collector would
// otherwise delete the object).
func (l *loader) linkOwners(ctx context.Context) error {
	for _, p := range l.owners {
		var refs []metav1.OwnerReference
		for _, ref := range p.refs {
			gv, err := schema.ParseGroupVersion(ref.APIVersion)
			if err != nil {
				continue
			}
			ns := p.key.Namespace
			uid, ok := l.uids[objectKey{Group: gv.Group, Kind: ref.Kind, Namespace: ns, Name: ref.Name}]
			if !ok {
				uid, ok = l.uids[objectKey{Group: gv.Group, Kind: ref.Kind, Name: ref.Name}]
			}
			if !ok {
				continue
			}
			ref.UID = uid
			refs = append(refs, ref)
		}
		if len(refs) == 0 {
			continue
		}
		var client dynamic.ResourceInterface = l.s.dyn.Resource(p.gvr)
		if p.key.Namespace != "" {
			client = l.s.dyn.Resource(p.gvr).Namespace(p.key.Namespace)
		}
		err := retryConflict(ctx, func() error {
			obj, err := client.Get(ctx, p.key.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			obj.SetOwnerReferences(refs)
			_, err = client.Update(ctx, obj, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return &LoadError{Object: p.key, Path: p.path, Err: fmt.Errorf("setting owner references: %w", err)}
		}
	}
	return nil
}

// cleanForCreate returns a copy of u without the fields the API server sets itself.
func cleanForCreate(u *unstructured.Unstructured) *unstructured.Unstructured {
	c := u.DeepCopy()
	for _, f := range []string{"resourceVersion", "uid", "managedFields", "selfLink", "creationTimestamp", "generation", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	return c
}

// prepareForCreate adjusts fields a different cluster cannot take as they are.
func prepareForCreate(u *unstructured.Unstructured) {
	gvk := u.GroupVersionKind()
	if gvk.Group == "config.openshift.io" || gvk.Group == "operator.openshift.io" {
		// Their CRDs require spec (a ClusterOperator's has no fields): `oc adm
		// inspect` writes at least spec: {}, a must-gather written by hand may
		// leave it out.
		if _, ok := u.Object["spec"]; !ok {
			u.Object["spec"] = map[string]any{}
		}
		return
	}
	if gvk.Group != "" {
		return
	}
	switch gvk.Kind {
	case "Service":
		// Cluster IPs come from the must-gather cluster's service network.
		for _, f := range []string{"clusterIP", "clusterIPs"} {
			unstructured.RemoveNestedField(u.Object, "spec", f)
		}
	case "Node":
		// The simulator is these nodes' kubelet; kwok must leave them alone.
		ann := u.GetAnnotations()
		delete(ann, kubetest.FakeNodeAnnotation)
		u.SetAnnotations(ann)
		defaultNodeCapacity(u)
	}
}

// loopbackNode gives a node the InternalIP 127.0.0.1 (scenario podLogs), where
// the simulator's kubelet server listens.
func loopbackNode(u *unstructured.Unstructured) {
	addrs, _, _ := unstructured.NestedSlice(u.Object, "status", "addresses")
	found := false
	for i, a := range addrs {
		m, ok := a.(map[string]any)
		if ok && m["type"] == "InternalIP" {
			m["address"] = "127.0.0.1"
			addrs[i], found = m, true
		}
	}
	if !found {
		addrs = append([]any{map[string]any{"type": "InternalIP", "address": "127.0.0.1"}}, addrs...)
	}
	_ = unstructured.SetNestedSlice(u.Object, addrs, "status", "addresses")
}

// defaultNodeCapacity gives a node without capacity the figures of a small
// OpenShift node, so that the scheduler places the operators' pods on it.
func defaultNodeCapacity(u *unstructured.Unstructured) {
	def := map[string]any{"cpu": "8", "memory": "32Gi", "pods": "250", "ephemeral-storage": "120Gi"}
	for _, f := range []string{"capacity", "allocatable"} {
		m, _, _ := unstructured.NestedMap(u.Object, "status", f)
		if m == nil {
			m = map[string]any{}
		}
		for k, v := range def {
			if _, ok := m[k]; !ok {
				m[k] = v
			}
		}
		_ = unstructured.SetNestedMap(u.Object, m, "status", f)
	}
}

// ensureServiceAccount creates the service account a pod spec names when it is
// missing: must-gathers rarely carry service accounts, and admission refuses pods
// without one, so a loaded Deployment's ReplicaSet could never create its pod.
func (s *Sim) ensureServiceAccount(ctx context.Context, namespace string, podSpec map[string]any) error {
	name, _, _ := unstructured.NestedString(podSpec, "serviceAccountName")
	if name == "" {
		name, _, _ = unstructured.NestedString(podSpec, "serviceAccount") // the deprecated alias
	}
	if name == "" {
		name = "default"
	}
	return s.ensureServiceAccountNamed(ctx, namespace, name)
}

// podSpecOf returns the pod spec of a Pod or of a workload's pod template
// (Deployment, DaemonSet, StatefulSet, ReplicaSet, Job, CronJob).
func podSpecOf(u *unstructured.Unstructured) (map[string]any, bool) {
	var path []string
	switch gk := u.GroupVersionKind().GroupKind(); gk {
	case schema.GroupKind{Kind: "Pod"}:
		path = []string{"spec"}
	case schema.GroupKind{Group: "apps", Kind: "Deployment"}, schema.GroupKind{Group: "apps", Kind: "DaemonSet"},
		schema.GroupKind{Group: "apps", Kind: "StatefulSet"}, schema.GroupKind{Group: "apps", Kind: "ReplicaSet"},
		schema.GroupKind{Group: "batch", Kind: "Job"}:
		path = []string{"spec", "template", "spec"}
	case schema.GroupKind{Group: "batch", Kind: "CronJob"}:
		path = []string{"spec", "jobTemplate", "spec", "template", "spec"}
	default:
		return nil, false
	}
	m, ok, _ := unstructured.NestedMap(u.Object, path...)
	return m, ok
}

// ensureServiceAccountNamed creates service account ns/name when it is missing.
func (s *Sim) ensureServiceAccountNamed(ctx context.Context, ns, name string) error {
	_, err := s.kube.CoreV1().ServiceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return err
	}
	_, err = s.kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// retryConflict runs fn until it does not fail with a conflict.
func retryConflict(ctx context.Context, fn func() error) error {
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		err = fn()
		if !apierrors.IsConflict(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 10 * time.Millisecond):
		}
	}
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
