package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/openshift-recover/recover/internal/openshift"
	"sort"
	"strings"
	"sync"

	configv1 "github.com/openshift/api/config/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/lock"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan"
)

var clusterVersionsGVR = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}

// PreflightError lists every reason preflight refused to start.
type PreflightError struct {
	Problems []string
}

func (e *PreflightError) Error() string {
	return "preflight refused to start: " + strings.Join(e.Problems, "; ")
}

// access is one permission the run needs.
type access struct {
	verb, group, resource, subresource, namespace, name string
}

func (a access) String() string {
	r := a.resource
	if a.group != "" {
		r += "." + a.group
	}
	if a.subresource != "" {
		r += "/" + a.subresource
	}
	if a.name != "" {
		r += " " + a.name
	}
	if a.namespace != "" {
		return fmt.Sprintf("%s %s in namespace %s", a.verb, r, a.namespace)
	}
	return fmt.Sprintf("%s %s (cluster-wide)", a.verb, r)
}

// readClusterVersion reads ClusterVersion/version: its absence means the cluster is
// not OpenShift.
func (r *run) readClusterVersion(ctx context.Context) (*configv1.ClusterVersion, error) {
	var u *unstructured.Unstructured
	err := retry.Do(ctx, func() (err error) {
		u, err = r.e.dyn.Resource(clusterVersionsGVR).Get(ctx, openshift.ClusterVersionName, metav1.GetOptions{})
		return err
	})
	if err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return nil, fmt.Errorf("ClusterVersion version not found at %s: this is not an OpenShift cluster (check --kubeconfig and --context): %w", r.e.server, err)
		}
		return nil, fmt.Errorf("reading ClusterVersion version: %w", err)
	}
	var cv configv1.ClusterVersion
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &cv); err != nil {
		return nil, fmt.Errorf("decoding ClusterVersion version: %w", err)
	}
	return &cv, nil
}

// currentVersions are the versions a backup may come from: the last completed
// update and the desired one.
func currentVersions(cv *configv1.ClusterVersion) []string {
	var vs []string
	for _, h := range cv.Status.History {
		if h.State == configv1.CompletedUpdate {
			vs = append(vs, h.Version)
			break
		}
	}
	if d := cv.Status.Desired.Version; d != "" && (len(vs) == 0 || vs[0] != d) {
		vs = append(vs, d)
	}
	return vs
}

// requiredAccess derives every permission the plan's steps and gates need, mapping
// manifests to resources through the REST mapper (or, for kinds whose CRD the plan
// itself creates, through that CRD).
func (r *run) requiredAccess(ctx context.Context) ([]access, []string) {
	var problems []string
	set := map[access]bool{}
	add := func(group, res, ns string, verbs ...string) {
		for _, v := range verbs {
			set[access{verb: v, group: group, resource: res, namespace: ns}] = true
		}
	}
	planCRDs := crdsInPlan(r.p)
	mapKind := func(apiVersion, kind string) (schema.GroupVersionResource, bool, error) {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return schema.GroupVersionResource{}, false, err
		}
		var m *meta.RESTMapping
		err = retry.Do(ctx, func() (err error) {
			if m, err = r.e.mapper.Mapping(gv.WithKind(kind)); retry.Transient(err) {
				r.e.mapper.Reset() // discovery caches the failure
			}
			return err
		})
		if err == nil {
			return m.Resource, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
		}
		if c, ok := planCRDs[schema.GroupKind{Group: gv.Group, Kind: kind}]; ok {
			return gv.WithResource(c.plural), c.namespaced, nil
		}
		return schema.GroupVersionResource{}, false, err
	}
	if !r.opts.DryRun {
		add("coordination.k8s.io", "leases", lock.Namespace, "get", "create", "update", "delete")
	}
	add("config.openshift.io", "clusterversions", "", "get")
	for i := range r.p.Steps {
		s := &r.p.Steps[i]
		switch s.Action {
		case plan.ActionDisableCVO, plan.ActionRestoreCVO:
			add("apps", "deployments", openshift.CVONamespace, "get", "patch")
		case plan.ActionPausePool, plan.ActionUnpausePool:
			add("machineconfiguration.openshift.io", "machineconfigpools", "", "get", "patch")
			if s.Change != nil && (s.Change.Object.Kind != "MachineConfigPool") {
				problems = append(problems, fmt.Sprintf("step %s: unpause-pool changes %s, not a MachineConfigPool", s.ID, s.Change.Object.Kind))
			}
		case plan.ActionSetDesiredUpdate:
			add("config.openshift.io", "clusterversions", "", "get", "update")
		case plan.ActionRelaxPDB, plan.ActionForceRedeployment, plan.ActionAcknowledgeGate, plan.ActionRemoveOverrides, plan.ActionAnnotateUpgradeableTo, plan.ActionRevert:
			ch := s.Change
			if s.Action == plan.ActionRevert {
				t, err := r.revertTarget(s)
				if err != nil {
					problems = append(problems, err.Error())
					continue
				}
				ch = t.Change
			}
			if ch == nil {
				continue
			}
			gvr, namespaced, err := mapKind(ch.Object.APIVersion, ch.Object.Kind)
			if err != nil {
				problems = append(problems, fmt.Sprintf("step %s: %v", s.ID, err))
				continue
			}
			ns := ""
			if namespaced {
				ns = ch.Object.Namespace
			}
			add(gvr.Group, gvr.Resource, ns, "get", "patch")
		case plan.ActionApproveCSR:
			add("certificates.k8s.io", "certificatesigningrequests", "", "get")
			set[access{verb: "update", group: "certificates.k8s.io", resource: "certificatesigningrequests", subresource: "approval"}] = true
			if s.CSR != nil && s.CSR.SignerName != "" {
				// The approval admission plugin checks approve on the signer.
				set[access{verb: "approve", group: "certificates.k8s.io", resource: "signers", name: s.CSR.SignerName}] = true
			}
			// The vouching check reads the live Nodes and Machines.
			add("", "nodes", "", "list")
			if gvr, _, err := mapKind("machine.openshift.io/v1beta1", "Machine"); err == nil {
				add(gvr.Group, gvr.Resource, openshift.MachineAPINamespace, "list")
			}
		case plan.ActionApply, plan.ActionDelete:
			m := s.Manifest
			gvr, namespaced, err := mapKind(m.APIVersion, m.Kind)
			if err != nil {
				problems = append(problems, fmt.Sprintf("step %s: %v", s.ID, err))
				continue
			}
			ns := ""
			if namespaced {
				ns = m.Namespace
			}
			if s.Action == plan.ActionApply && manifestInjectsProxy(m) {
				add("config.openshift.io", "proxies", "", "get")
			}
			if s.Action == plan.ActionApply && openshift.IsCVODeployment(m.APIVersion, m.Kind, m.Namespace, m.Name) {
				// The CVO's Deployment points at Infrastructure's internal API
				// endpoint (resource.ReadInternalAPI).
				add("config.openshift.io", "infrastructures", "", "get")
			}
			if s.Action == plan.ActionApply && openshift.IsClusterOperator(m.APIVersion, m.Kind) {
				// A pre-created ClusterOperator gets its relatedObjects.
				set[access{verb: "update", group: gvr.Group, resource: gvr.Resource, subresource: "status"}] = true
			}
			switch {
			case s.Action == plan.ActionDelete:
				add(gvr.Group, gvr.Resource, ns, "get", "delete")
			case s.Manifest.CreateOnly:
				add(gvr.Group, gvr.Resource, ns, "get", "create")
			default:
				add(gvr.Group, gvr.Resource, ns, "get", "create", "update")
			}
		}
		for _, g := range r.stepGates(s) {
			if (g.Kind == plan.GateWorkloadRollout || g.Kind == plan.GateDeleted || g.Kind == plan.GateRestored) && g.Object != nil {
				gvr, namespaced, err := mapKind(g.Object.APIVersion, g.Object.Kind)
				if err != nil {
					problems = append(problems, fmt.Sprintf("step %s gate: %v", s.ID, err))
					continue
				}
				ns := ""
				if namespaced {
					ns = g.Object.Namespace
				}
				add(gvr.Group, gvr.Resource, ns, "get", "list", "watch")
				continue
			}
			gvrs, nss, err := r.e.gates.Resources(g)
			if err != nil {
				problems = append(problems, fmt.Sprintf("step %s gate: %v", s.ID, err))
				continue
			}
			for j, gvr := range gvrs {
				add(gvr.Group, gvr.Resource, nss[j], "get", "list", "watch")
			}
		}
	}
	out := make([]access, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, problems
}

type planCRD struct {
	plural     string
	namespaced bool
}

func crdsInPlan(p *plan.Plan) map[schema.GroupKind]planCRD {
	out := map[schema.GroupKind]planCRD{}
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.Action != plan.ActionApply || s.Manifest == nil || s.Manifest.Kind != "CustomResourceDefinition" {
			continue
		}
		obj, err := resource.Decode(s.Manifest)
		if err != nil {
			continue
		}
		group, _, _ := unstructured.NestedString(obj.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(obj.Object, "spec", "names", "kind")
		plural, _, _ := unstructured.NestedString(obj.Object, "spec", "names", "plural")
		scope, _, _ := unstructured.NestedString(obj.Object, "spec", "scope")
		out[schema.GroupKind{Group: group, Kind: kind}] = planCRD{plural: plural, namespaced: scope == "Namespaced"}
	}
	return out
}

// checkAccess asks the API server, with SelfSubjectAccessReviews in parallel,
// which of the needed permissions the user lacks.
func (r *run) checkAccess(ctx context.Context, needed []access) ([]string, error) {
	type answer struct {
		a       access
		allowed bool
		err     error
	}
	answers := make([]answer, len(needed))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, a := range needed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: a.namespace, Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Name: a.name},
			}}
			var res *authorizationv1.SelfSubjectAccessReview
			err := retry.Do(ctx, func() (err error) {
				res, err = r.e.kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
				return err
			})
			answers[i] = answer{a: a, err: err}
			if err == nil {
				answers[i].allowed = res.Status.Allowed
			}
		}()
	}
	wg.Wait()
	var missing []string
	for _, ans := range answers {
		if ans.err != nil {
			return nil, fmt.Errorf("checking permissions (SelfSubjectAccessReview): %w", ans.err)
		}
		if !ans.allowed {
			missing = append(missing, ans.a.String())
		}
	}
	return missing, nil
}

// preflight checks, before anything changes, that the cluster is OpenShift, that
// the user has every permission the plan needs, that the plan is not stale, and
// that a backup is recorded. It reports every problem at once.
func (r *run) preflight(ctx context.Context) error {
	var problems []string
	check := func(name string, ps []string, okMsg string) {
		c := &PreflightCheck{Name: name, OK: len(ps) == 0, Message: okMsg, Problems: ps}
		if !c.OK {
			c.Message = strings.Join(ps, "; ")
		}
		r.emit(Event{Type: EventPreflight, Preflight: c, Message: c.Message})
		problems = append(problems, ps...)
	}
	r.emit(Event{Type: EventPreflight, Preflight: &PreflightCheck{Name: "plan", OK: true, Message: fmt.Sprintf("plan is valid: %d steps, %s", len(r.p.Steps), targetText(r.p))}})

	cv, err := r.readClusterVersion(ctx)
	switch {
	case err == nil:
		r.cv = cv
		r.applier = resource.NewApplier(r.e.dyn, r.e.mapper, resource.Owner(cv.UID))
		check("cluster", nil, fmt.Sprintf("OpenShift cluster %s at %s, ClusterVersion desired %s", cv.Spec.ClusterID, r.e.server, orDash(cv.Status.Desired.Version)))
	case apierrors.IsForbidden(err):
		check("cluster", []string{err.Error()}, "")
	default:
		r.emit(Event{Type: EventPreflight, Preflight: &PreflightCheck{Name: "cluster", Message: err.Error()}, Message: err.Error()})
		return &Error{Outcome: OutcomeError, Err: err}
	}

	needed, mapProblems := r.requiredAccess(ctx)
	missing, err := r.checkAccess(ctx, needed)
	if err != nil {
		return &Error{Outcome: OutcomeError, Err: err}
	}
	var rbac []string
	rbac = append(rbac, mapProblems...)
	if len(missing) > 0 {
		rbac = append(rbac, fmt.Sprintf("missing permissions (%d): %s; ask a cluster admin to grant them, or run as a cluster admin", len(missing), strings.Join(missing, ", ")))
	}
	check("rbac", rbac, fmt.Sprintf("all %d permissions the plan needs are granted", len(needed)))

	switch {
	case r.state != nil:
		check("staleness", nil, "resumed run: the plan was checked against the cluster when the run started; the in-flight step is re-checked live")
	case r.opts.AllowStale:
		r.emit(Event{Type: EventPreflight, Preflight: &PreflightCheck{Name: "staleness", OK: true, Message: "not checked: --allow-stale"}})
	case r.p.Cluster.Fingerprint == "":
		check("staleness", []string{"the plan records no cluster fingerprint, so it cannot be checked against the cluster: make a new plan with 'recover plan', or pass --allow-stale"}, "")
	case r.opts.Fingerprint == nil:
		check("staleness", []string{"no live fingerprint is available to check the plan against: pass --allow-stale to apply anyway"}, "")
	default:
		live, err := r.opts.Fingerprint(ctx)
		switch {
		case err != nil:
			check("staleness", []string{"computing the live cluster fingerprint: " + err.Error()}, "")
		case live != r.p.Cluster.Fingerprint:
			check("staleness", []string{fmt.Sprintf("the cluster changed since the plan was made (plan fingerprint %s, live %s): make a new plan with 'recover plan', or pass --allow-stale", r.p.Cluster.Fingerprint, live)}, "")
		default:
			check("staleness", nil, "the cluster still matches the plan's fingerprint "+live)
		}
	}

	switch {
	case r.opts.BackupRecordFile != "":
		var versions []string
		if r.cv != nil {
			versions = currentVersions(r.cv)
		}
		b, ps, err := LoadBackupRecord(r.opts.BackupRecordFile, versions)
		if err != nil {
			return err
		}
		if len(ps) == 0 {
			r.backup = b
		}
		msg := ""
		if b != nil {
			msg = fmt.Sprintf("etcd backup %s (revision %d, %s): %s", b.Path, b.EtcdRevision, b.ClusterVersion, b.Verified)
		}
		check("backup", ps, msg)
	case r.opts.IHaveABackup:
		r.backup = &journal.Backup{Acknowledged: true, Verified: "acknowledged with --i-have-a-backup; not verified"}
		check("backup", nil, "backup acknowledged with --i-have-a-backup (not verified)")
	case r.backup != nil:
		check("backup", nil, "backup recorded in the journal")
	case r.opts.DryRun:
		check("backup", nil, "dry run: no backup needed")
	default:
		check("backup", []string{"no etcd backup recorded: take one (cluster-backup.sh on a control-plane node) and pass --backup-record FILE (path, sha256, etcdRevision, clusterVersion), or pass --i-have-a-backup"}, "")
	}
	if len(problems) > 0 {
		return &PreflightError{Problems: problems}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// manifestInjectsProxy reports whether applying m needs the cluster proxy
// (resource.InjectProxyAnnotation), so preflight checks it may be read.
func manifestInjectsProxy(m *plan.Manifest) bool {
	var doc struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	return json.Unmarshal(m.Object, &doc) == nil && doc.Metadata.Annotations[resource.InjectProxyAnnotation] != ""
}
