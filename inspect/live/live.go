package live

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	apiserverclient "github.com/openshift/client-go/apiserver/clientset/versioned"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	machineclient "github.com/openshift/client-go/machine/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/inspect"
)

// DefaultPageSize is the LIST page size, kubectl's default chunk size.
const DefaultPageSize = 500

// Options tune a live Source.
type Options struct {
	// PageSize is the limit of each LIST request; 0 means DefaultPageSize.
	PageSize int64
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Logs bound the components' logs read through pods/log.
	Logs LogOptions
}

// Source collects snapshots from the cluster a rest.Config points at.
type Source struct {
	host     string
	opts     Options
	kube     kubernetes.Interface
	config   configclient.Interface
	operator operatorclient.Interface
	mcfg     mcfgclient.Interface
	meta     metadata.Interface
	machine  machineclient.Interface
	apisrv   apiserverclient.Interface
	// secrets is a metadata client whose every request accepts only
	// PartialObjectMetadataList: a server that cannot answer so refuses (406)
	// rather than send a Secret's data.
	secrets metadata.Interface
}

// New builds a live source. The config is copied: core resources are requested as
// protobuf, and unset client-side rate limits are raised so the concurrent LISTs
// are not throttled.
func New(cfg *rest.Config, opts Options) (*Source, error) {
	if cfg == nil {
		return nil, errors.New("live: no client configuration")
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	base := rest.CopyConfig(cfg)
	if base.QPS == 0 {
		base.QPS = 50
	}
	if base.Burst == 0 {
		base.Burst = 100
	}
	proto := rest.CopyConfig(base)
	proto.ContentType = "application/vnd.kubernetes.protobuf"
	proto.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	s := &Source{host: cfg.Host, opts: opts}
	var err error
	if s.kube, err = kubernetes.NewForConfig(proto); err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	if s.config, err = configclient.NewForConfig(base); err != nil {
		return nil, fmt.Errorf("building the config.openshift.io client: %w", err)
	}
	if s.operator, err = operatorclient.NewForConfig(base); err != nil {
		return nil, fmt.Errorf("building the operator.openshift.io client: %w", err)
	}
	if s.mcfg, err = mcfgclient.NewForConfig(base); err != nil {
		return nil, fmt.Errorf("building the machineconfiguration.openshift.io client: %w", err)
	}
	if s.meta, err = metadata.NewForConfig(base); err != nil {
		return nil, fmt.Errorf("building the metadata client: %w", err)
	}
	if s.machine, err = machineclient.NewForConfig(base); err != nil {
		return nil, fmt.Errorf("building the machine.openshift.io client: %w", err)
	}
	if s.apisrv, err = apiserverclient.NewForConfig(base); err != nil {
		return nil, fmt.Errorf("building the apiserver.openshift.io client: %w", err)
	}
	metaOnly := rest.CopyConfig(base)
	metaOnly.Wrap(func(rt http.RoundTripper) http.RoundTripper { return metadataOnly{next: rt} })
	if s.secrets, err = metadata.NewForConfig(metaOnly); err != nil {
		return nil, fmt.Errorf("building the metadata client for secrets: %w", err)
	}
	return s, nil
}

// NotOpenShiftError is returned when the cluster does not serve ClusterVersion
// (config.openshift.io/v1) or has no ClusterVersion "version". It wraps the API's
// NotFound status, so callers classify it as a cluster error.
type NotOpenShiftError struct {
	Server string
	Err    error
}

func (e *NotOpenShiftError) Error() string {
	return fmt.Sprintf("%s is not an OpenShift 4 cluster: %v; point --kubeconfig/--context at an OpenShift cluster, or inspect offline with --must-gather or --insights-archive", e.Server, e.Err)
}

// Unwrap returns the API error.
func (e *NotOpenShiftError) Unwrap() error { return e.Err }

// pageFunc lists one page and feeds its items to the builder; it returns the
// continue token and the number of items.
type pageFunc func(ctx context.Context, opts metav1.ListOptions) (cont string, n int, err error)

// job is one resource type to list.
type job struct {
	res  inspect.Resource
	ns   string
	page pageFunc
	// label and field are the LIST's selectors ("" for none).
	label, field string
}

// outcome is how one job ended.
type outcome struct {
	job   job
	err   error
	count int
}

// Collect lists every resource type concurrently, then what depends on them,
// and returns the snapshot.
func (s *Source) Collect(ctx context.Context) (*inspect.Snapshot, error) {
	b := inspect.NewBuilder(inspect.SourceLive, s.host)
	outcomes, err := s.run(ctx, b, s.jobs(b))
	if err != nil {
		return nil, err
	}
	if err := s.verdict(outcomes); err != nil {
		return nil, err
	}
	second, err := s.run(ctx, b, s.dependentJobs(b))
	if err != nil {
		return nil, err
	}
	if err := s.verdict(append(outcomes, second...)); err != nil {
		return nil, err
	}
	if !s.opts.Logs.Disabled {
		if err := s.collectLogs(ctx, b); err != nil {
			return nil, err
		}
	}
	b.SetCollectedAt(s.opts.Now(), "clock")
	snap := b.Finish()
	if snap.ClusterVersion == nil && snapshotState(snap, inspect.ResClusterVersions.Key()) == inspect.Collected {
		gr := schema.GroupResource{Group: inspect.ResClusterVersions.Group, Resource: inspect.ResClusterVersions.Resource}
		return nil, &NotOpenShiftError{Server: s.host, Err: apierrors.NewNotFound(gr, "version")}
	}
	return snap, nil
}

// run lists the jobs concurrently, recording each one's provenance.
func (s *Source) run(ctx context.Context, b *inspect.Builder, jobs []job) ([]outcome, error) {
	outcomes := make([]outcome, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex
	for i, j := range jobs {
		g.Go(func() error {
			n, requests, err := s.listAll(gctx, j)
			mu.Lock()
			outcomes[i] = outcome{job: j, err: err, count: n}
			mu.Unlock()
			b.Record(s.status(j, n, requests, err))
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return outcomes, nil
}

func snapshotState(s *inspect.Snapshot, key string) inspect.CollectionState {
	for _, r := range s.Resources {
		if r.Resource == key {
			return r.State
		}
	}
	return ""
}

// verdict turns the outcomes into Collect's error: not OpenShift, unreachable, or
// nothing readable at all. Anything less is recorded per resource.
func (s *Source) verdict(outcomes []outcome) error {
	var firstTransport, firstForbidden error
	transport, forbidden := 0, 0
	for _, o := range outcomes {
		switch {
		case o.err == nil:
		case o.job.res == inspect.ResClusterVersions && apierrors.IsNotFound(o.err):
			return &NotOpenShiftError{Server: s.host, Err: o.err}
		case apierrors.IsForbidden(o.err) || apierrors.IsUnauthorized(o.err):
			forbidden++
			if firstForbidden == nil {
				firstForbidden = o.err
			}
		default:
			var status apierrors.APIStatus
			if !errors.As(o.err, &status) {
				transport++
				if firstTransport == nil {
					firstTransport = o.err
				}
			}
		}
	}
	if len(outcomes) > 0 && transport == len(outcomes) {
		return fmt.Errorf("cannot reach the cluster at %s: %w", s.host, firstTransport)
	}
	if len(outcomes) > 0 && forbidden == len(outcomes) {
		return fmt.Errorf("permission denied for every resource recover reads (%w); run as a user with the cluster-reader role ('oc adm policy add-cluster-role-to-user cluster-reader <user>')", firstForbidden)
	}
	return nil
}

// listAll pages through one resource type.
func (s *Source) listAll(ctx context.Context, j job) (n, requests int, err error) {
	opts := metav1.ListOptions{Limit: s.opts.PageSize, LabelSelector: j.label, FieldSelector: j.field}
	for retries := 0; ; {
		cont, got, err := j.page(ctx, opts)
		requests++
		n += got
		// A transient failure (an overloaded or restarting API server, a cut
		// connection) is retried with backoff; a page adds its objects only when
		// it succeeds, so nothing is counted twice.
		if err != nil && retries < transientRetries && transient(err) {
			select {
			case <-time.After(250 * time.Millisecond << retries):
				retries++
				continue
			case <-ctx.Done():
				return n, requests, err
			}
		}
		if err != nil {
			return n, requests, err
		}
		if cont == "" {
			return n, requests, nil
		}
		opts.Continue = cont
	}
}

// status records how one job went.
func (s *Source) status(j job, n, requests int, err error) inspect.ResourceStatus {
	rs := inspect.ResourceStatus{
		Resource: j.res.Key(), Namespace: j.ns, State: inspect.Collected,
		From: []string{listPath(j)}, CollectedAt: s.opts.Now(), Count: n, Requests: requests,
	}
	switch {
	case err == nil:
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		rs.State, rs.Reason = inspect.Forbidden, apiMessage(err)
	case apierrors.IsNotFound(err):
		rs.State, rs.Reason = inspect.NotFound, "the cluster does not serve "+j.res.Key()
		if j.ns != "" {
			rs.Reason = "not found in namespace " + j.ns + " (or the resource type is not served)"
		}
	default:
		rs.State, rs.Reason = inspect.Error, apiMessage(err)
		if n > 0 {
			rs.Reason += fmt.Sprintf(" (after %d objects were read)", n)
		}
	}
	return rs
}

func apiMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}

// listPath returns the LIST request of a job, selectors included, for provenance.
func listPath(j job) string {
	q := url.Values{}
	if j.label != "" {
		q.Set("labelSelector", j.label)
	}
	if j.field != "" {
		q.Set("fieldSelector", j.field)
	}
	if len(q) == 0 {
		return apiPath(j.res, j.ns)
	}
	return apiPath(j.res, j.ns) + "?" + q.Encode()
}

// apiPath returns the LIST path of a resource, for provenance.
func apiPath(r inspect.Resource, ns string) string {
	p := "/apis/" + r.Group + "/" + r.Version
	if r.Group == "" {
		p = "/api/" + r.Version
	}
	if ns != "" {
		p += "/namespaces/" + url.PathEscape(ns)
	}
	return p + "/" + r.Resource
}

// transientRetries is how many times one page is retried after a transient error.
const transientRetries = 4

// transient reports whether a LIST failed in a way worth retrying. client-go
// retries only 429/5xx with Retry-After and resets of GETs by itself.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsTimeout(err) || apierrors.IsUnexpectedServerError(err) ||
		utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err)
}
