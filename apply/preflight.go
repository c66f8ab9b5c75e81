package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/openshift-recover/recover/internal/openshift"

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
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan/planfile"
)

var clusterVersionsGVR = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}

// PreflightError lists every reason preflight refused to start.
type PreflightError struct {
	Problems []string
}

func (e *PreflightError) Error() string {
	return "preflight refused to start: " + strings.Join(e.Problems, "; ")
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

// checkAccess asks the API server, with SelfSubjectAccessReviews in parallel,
// which of the needed permissions the user lacks.
func (r *run) checkAccess(ctx context.Context, needed []Access) ([]string, error) {
	type answer struct {
		a       Access
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
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: a.Namespace, Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name},
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

	needed, mapProblems := r.e.RequiredAccess(ctx, r.p, r.opts)
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
func manifestInjectsProxy(m *planfile.Manifest) bool {
	var doc struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	return json.Unmarshal(m.Object, &doc) == nil && doc.Metadata.Annotations[resource.InjectProxyAnnotation] != ""
}
