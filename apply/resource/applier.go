package resource

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/openshift-recover/recover/internal/openshift"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/openshift-recover/recover/plan/planfile"
)

// Operation is what a change does.
type Operation string

// The operations.
const (
	// OpCreate creates an absent object.
	OpCreate Operation = "create"
	// OpUpdate updates a live object that differs.
	OpUpdate Operation = "update"
	// OpUnchanged: the live object already matches; nothing is sent.
	OpUnchanged Operation = "unchanged"
	// OpExists: a create-only object already exists and is left alone.
	OpExists Operation = "exists"
	// OpDelete deletes a live object.
	OpDelete Operation = "delete"
	// OpAbsent: the object to delete is already gone.
	OpAbsent Operation = "absent"
	// OpDeleting: the object to delete is already being deleted.
	OpDeleting Operation = "deleting"
)

// Mutates reports whether the operation changes the cluster.
func (o Operation) Mutates() bool { return o == OpCreate || o == OpUpdate || o == OpDelete }

// Done is the past tense the journal and events use for the operation's outcome.
func (o Operation) Done() string {
	switch o {
	case OpCreate:
		return "created"
	case OpUpdate:
		return "updated"
	case OpDelete:
		return "deleted"
	}
	return string(o)
}

// PrepareOptions adjust one Prepare.
type PrepareOptions struct {
	// Delete deletes the object instead of applying it.
	Delete bool
	// PreserveReplicas keeps the live spec.replicas of a workload (the engine sets
	// it for the CVO's own Deployment while the CVO is disabled).
	PreserveReplicas bool
}

// Change is a prepared change: what the live object is, what would be sent, what
// the API server's dry run returned, and the redacted diff between them.
type Change struct {
	Operation Operation
	Mapping   *meta.RESTMapping
	Namespace string
	Name      string
	// Live is the object before the change (nil when absent).
	Live *unstructured.Unstructured
	// Desired is what Commit sends (create and update).
	Desired *unstructured.Unstructured
	// DryRun is the API server's dry-run result (create and update).
	DryRun *unstructured.Unstructured
	// Diff is a unified diff from the live object to the dry-run result, with
	// Secret values hashed. Empty when nothing changes.
	Diff string

	// Path is the CVO builder whose rules made the change.
	Path Path

	manifest *unstructured.Unstructured
	facts    Facts
	opts     PrepareOptions
	// statusAfterCreate is written with the status subresource right after the
	// create (a ClusterOperator's relatedObjects).
	statusAfterCreate map[string]any
}

// Result is what Commit did.
type Result struct {
	Operation       Operation
	UID             string
	ResourceVersion string
	Object          *unstructured.Unstructured
}

// Applier applies plan manifests with the CVO's semantics.
type Applier struct {
	dynamic dynamic.Interface
	mapper  *Mapper
	// FieldManager names recover in managedFields.
	FieldManager string
	owner        *metav1.OwnerReference

	// proxy is the cluster proxy, read once, when the first manifest asks for
	// it; internalAPI likewise, for the CVO's Deployment.
	proxyMu     sync.Mutex
	proxy       *ProxyEnv
	internalAPI *string
}

// NewApplier returns an Applier. Owner is the ClusterVersion/version reference added
// to every object (nil to add none).
func NewApplier(dyn dynamic.Interface, mapper *Mapper, owner *metav1.OwnerReference) *Applier {
	return &Applier{dynamic: dyn, mapper: mapper, FieldManager: "recover", owner: owner}
}

// Decode turns a plan manifest into an object, checking that it is what the
// manifest's identity fields say and that its digest matches.
func Decode(m *planfile.Manifest) (*unstructured.Unstructured, error) {
	if m == nil {
		return nil, fmt.Errorf("the step has no manifest")
	}
	digest, err := planfile.ManifestDigest(m.Object)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", m.File, err)
	}
	if m.Digest != digest {
		return nil, fmt.Errorf("manifest %s[%d] %s/%s: digest %s does not match its object (%s): the plan was edited after it was made; make a new plan", m.File, m.Index, m.Kind, m.Name, m.Digest, digest)
	}
	// Decoded as the API machinery decodes JSON (whole numbers int64), so the
	// manifest compares with live objects as the CVO compares them.
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(m.Object); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", m.File, err)
	}
	if u.GetAPIVersion() != m.APIVersion || u.GetKind() != m.Kind || u.GetName() != m.Name || u.GetNamespace() != m.Namespace {
		return nil, fmt.Errorf("manifest %s[%d]: object is %s %s %s/%s but the plan says %s %s %s/%s", m.File, m.Index,
			u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName(), m.APIVersion, m.Kind, m.Namespace, m.Name)
	}
	// Text such as Prometheus's "{{ $labels.name }}" is data: the CVO renders
	// only its own manifests/ directory (the planner did) and applies the
	// release manifests as they are.
	return u, nil
}

// Prepare reads the live object, builds the change with the CVO's semantics, sends
// it as a server-side dry run, and diffs the result against the live object.
// It changes nothing.
func (a *Applier) Prepare(ctx context.Context, m *planfile.Manifest, opts PrepareOptions) (*Change, error) {
	obj, err := Decode(m)
	if err != nil {
		return nil, err
	}
	mapping, err := a.mapper.Mapping(obj.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	facts, err := a.facts(ctx, obj)
	if err != nil {
		return nil, err
	}
	c := &Change{
		Mapping:  mapping,
		Name:     obj.GetName(),
		manifest: obj,
		facts:    facts,
		opts:     opts,
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		if obj.GetNamespace() == "" {
			return nil, fmt.Errorf("%s %s is namespaced but its manifest names no namespace", obj.GetKind(), obj.GetName())
		}
		c.Namespace = obj.GetNamespace()
	}
	if err := planfile.DeleteAnnotationProblem(opts.Delete, obj.GetAnnotations()); err != nil {
		return nil, fmt.Errorf("%s %s: %w; make a new plan", obj.GetKind(), obj.GetName(), err)
	}
	if err := a.prepareRetrying(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// prepareRetrying runs prepare again when the object changed between the read and
// the dry run (an operator writing its own status, typically): the change is
// re-merged against the newer live object, as Commit does for the real write.
func (a *Applier) prepareRetrying(ctx context.Context, c *Change) error {
	for attempt := 0; ; attempt++ {
		err := a.prepare(ctx, c)
		if err == nil || !apierrors.IsConflict(err) || attempt >= 4 {
			return err
		}
	}
}

// facts reads what the CVO would read besides the object to build the change
// (Facts): the cluster proxy for a manifest that asks for it, the internal API
// endpoint for the CVO's own Deployment; each once per Applier.
func (a *Applier) facts(ctx context.Context, obj *unstructured.Unstructured) (Facts, error) {
	f := Facts{Owner: a.owner}
	a.proxyMu.Lock()
	defer a.proxyMu.Unlock()
	if obj.GetAnnotations()[InjectProxyAnnotation] != "" {
		if a.proxy == nil {
			p, err := ReadProxy(ctx, a.dynamic)
			if err != nil {
				return f, err
			}
			a.proxy = &p
		}
		f.Proxy = *a.proxy
	}
	if openshift.IsCVODeployment(obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace(), obj.GetName()) {
		if a.internalAPI == nil {
			u, err := ReadInternalAPI(ctx, a.dynamic)
			if err != nil {
				return f, err
			}
			a.internalAPI = &u
		}
		f.APIServerInternalURL = *a.internalAPI
	}
	return f, nil
}

func (a *Applier) client(c *Change) dynamic.ResourceInterface {
	if c.Namespace != "" {
		return a.dynamic.Resource(c.Mapping.Resource).Namespace(c.Namespace)
	}
	return a.dynamic.Resource(c.Mapping.Resource)
}

var dryRunAll = []string{metav1.DryRunAll}

func (a *Applier) prepare(ctx context.Context, c *Change) error {
	client := a.client(c)
	live, err := client.Get(ctx, c.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		live = nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", c.Ref().String(), err)
	}
	c.Live = live
	c.Desired, c.DryRun, c.Diff = nil, nil, ""

	if c.opts.Delete {
		switch {
		case live == nil:
			c.Operation = OpAbsent
		case live.GetDeletionTimestamp() != nil:
			c.Operation = OpDeleting
		default:
			c.Operation = OpDelete
			uid := live.GetUID()
			if err := client.Delete(ctx, c.Name, metav1.DeleteOptions{DryRun: dryRunAll, Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("dry-run deleting %s: %w", c.Ref().String(), err)
			}
			c.Diff = Diff(live, nil)
		}
		return nil
	}

	res, err := Merge(c.manifest, live, c.facts)
	if err != nil {
		return err
	}
	c.Path = res.Path
	switch res.Operation {
	case OpCreate:
		c.Operation = OpCreate
		c.Desired, c.statusAfterCreate = res.Object, res.StatusAfterCreate
		dry, err := client.Create(ctx, c.Desired, metav1.CreateOptions{DryRun: dryRunAll, FieldManager: a.FieldManager})
		if err != nil {
			return fmt.Errorf("dry-run creating %s: %w", c.Ref().String(), err)
		}
		c.DryRun = dry
		c.Diff = Diff(nil, dry)
		return nil
	case OpUpdate:
	default:
		// The CVO writes nothing: a create-only object that exists, an
		// existing ClusterOperator, or a merge that found nothing to change.
		c.Operation = res.Operation
		return nil
	}
	c.Desired = res.Object
	if c.opts.PreserveReplicas {
		if r, found, _ := unstructured.NestedFieldCopy(live.Object, "spec", "replicas"); found {
			_ = unstructured.SetNestedField(c.Desired.Object, r, "spec", "replicas")
		}
	}
	dry, err := client.Update(ctx, c.Desired, metav1.UpdateOptions{DryRun: dryRunAll, FieldManager: a.FieldManager})
	if err != nil {
		return fmt.Errorf("dry-run updating %s: %w", c.Ref().String(), err)
	}
	c.DryRun = dry
	if reflect.DeepEqual(contentOf(live), contentOf(dry)) {
		// The API server would store nothing new (the CVO's write would be a
		// no-op): nothing is sent.
		c.Operation = OpUnchanged
		return nil
	}
	c.Operation = OpUpdate
	c.Diff = Diff(live, dry)
	return nil
}

// Commit makes a prepared change. An update that meets a conflict is re-merged
// against the new live object and retried; a create that finds the object already
// there (a resumed run whose predecessor created it) becomes an update, or nothing
// for a create-only object.
func (a *Applier) Commit(ctx context.Context, c *Change) (*Result, error) {
	client := a.client(c)
	for attempt := 0; ; attempt++ {
		var (
			obj *unstructured.Unstructured
			err error
		)
		switch c.Operation {
		case OpUnchanged, OpExists, OpAbsent, OpDeleting:
			r := &Result{Operation: c.Operation, Object: c.Live}
			if c.Live != nil {
				r.UID, r.ResourceVersion = string(c.Live.GetUID()), c.Live.GetResourceVersion()
			}
			return r, nil
		case OpCreate:
			obj, err = client.Create(ctx, c.Desired, metav1.CreateOptions{FieldManager: a.FieldManager})
		case OpUpdate:
			obj, err = client.Update(ctx, c.Desired, metav1.UpdateOptions{FieldManager: a.FieldManager})
		case OpDelete:
			uid := c.Live.GetUID()
			propagation := metav1.DeletePropagationBackground
			err = client.Delete(ctx, c.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &propagation})
			if apierrors.IsNotFound(err) {
				return &Result{Operation: OpAbsent}, nil
			}
			if err == nil {
				return &Result{Operation: OpDelete, UID: string(uid)}, nil
			}
		default:
			return nil, fmt.Errorf("unknown operation %q", c.Operation)
		}
		if err == nil && c.Operation == OpCreate && c.statusAfterCreate != nil {
			obj, err = a.writeStatusAfterCreate(ctx, client, obj, c.statusAfterCreate)
		}
		if err == nil {
			return &Result{Operation: c.Operation, UID: string(obj.GetUID()), ResourceVersion: obj.GetResourceVersion(), Object: obj}, nil
		}
		retryable := apierrors.IsConflict(err) || (c.Operation == OpCreate && apierrors.IsAlreadyExists(err))
		if !retryable || attempt >= 4 {
			return nil, fmt.Errorf("%s %s: %w", c.Operation, c.Ref().String(), err)
		}
		if perr := a.prepareRetrying(ctx, c); perr != nil {
			return nil, perr
		}
	}
}

// writeStatusAfterCreate writes the status fields the CVO writes right after it
// pre-creates a ClusterOperator (pkg/cvo/internal/operatorstatus.go
// clusterOperatorBuilder.Do, PrecreatingMode: UpdateStatus with the manifest's
// relatedObjects); a conflict (the operator already reported) is left alone,
// as the CVO leaves it.
func (a *Applier) writeStatusAfterCreate(ctx context.Context, client dynamic.ResourceInterface, created *unstructured.Unstructured, status map[string]any) (*unstructured.Unstructured, error) {
	u := created.DeepCopy()
	st, _ := u.Object["status"].(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	for k, v := range status {
		st[k] = runtimeDeepCopy(v)
	}
	u.Object["status"] = st
	out, err := client.UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: a.FieldManager})
	if apierrors.IsConflict(err) {
		return created, nil
	}
	if err != nil {
		return nil, fmt.Errorf("writing the status of the created %s %s: %w", created.GetKind(), created.GetName(), err)
	}
	return out, nil
}

// Owner returns the owner reference for ClusterVersion/version with the given UID.
func Owner(uid types.UID) *metav1.OwnerReference {
	return &metav1.OwnerReference{APIVersion: "config.openshift.io/v1", Kind: "ClusterVersion", Name: openshift.ClusterVersionName, UID: uid}
}

func runtimeDeepCopy(v any) any {
	return (&unstructured.Unstructured{Object: map[string]any{"v": v}}).DeepCopy().Object["v"]
}

// contentOf strips what changes on every write (resourceVersion, managedFields,
// generation) and status, so two versions of an object compare by content.
func contentOf(u *unstructured.Unstructured) map[string]any {
	if u == nil {
		return nil
	}
	out := u.DeepCopy()
	delete(out.Object, "status")
	out.SetResourceVersion("")
	out.SetManagedFields(nil)
	out.SetGeneration(0)
	return out.Object
}

// Ref is the change's object; Ref().String() names it as the plan names every
// object ("Deployment ns/name").
func (c *Change) Ref() planfile.ObjectRef {
	gvk := c.Mapping.GroupVersionKind
	return planfile.ObjectRef{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Namespace: c.Namespace, Name: c.Name}
}
