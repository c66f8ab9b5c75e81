package live

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/logs"
	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/openshift"
)

// LogOptions bound the logs a live source reads through pods/log.
type LogOptions struct {
	// Disabled reads no log.
	Disabled bool
	// MaxBytes is the API's limitBytes for one container log; 0 means
	// DefaultLogBytes.
	MaxBytes int64
	// TailLines is the API's tailLines for the long-running components' logs
	// (the CVO, the machine-config daemons and controller, the approver); an
	// installer's log is read from its start. 0 means DefaultLogTailLines.
	TailLines int64
	// Timeout bounds one log request; 0 means DefaultLogTimeout.
	Timeout time.Duration
}

// The defaults of LogOptions: a CVO at V(2) writes about 100,000 lines a day.
const (
	DefaultLogBytes     = 32 << 20
	DefaultLogTailLines = 200_000
	DefaultLogTimeout   = 60 * time.Second
)

func (o LogOptions) withDefaults() LogOptions {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultLogBytes
	}
	if o.TailLines <= 0 {
		o.TailLines = DefaultLogTailLines
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultLogTimeout
	}
	return o
}

// The pods of the long-running components, by label (their manifests' own).
var logSelectors = map[string]string{
	openshift.CVONamespace:                 openshift.CVOPodSelector,
	openshift.MachineConfigDaemonNamespace: "k8s-app in (machine-config-daemon,machine-config-controller)",
	openshift.MachineApproverNamespace:     "app=machine-approver",
}

// logTarget is one container log to read.
type logTarget struct {
	ns, pod, container, node string
	previous, tail           bool
}

func (t logTarget) path() string {
	q := url.Values{"container": {t.container}}
	if t.previous {
		q.Set("previous", "true")
	}
	return "/api/v1/namespaces/" + url.PathEscape(t.ns) + "/pods/" + url.PathEscape(t.pod) + "/log?" + q.Encode()
}

// nsLogs is what one namespace's logs came to.
type nsLogs struct {
	state         inspect.CollectionState
	reason        string
	targets       []logTarget
	failed, paths []string
}

// collectLogs is the third phase: the logs of the pods that matter, read through
// pods/log (the API server proxies to the node's kubelet), bounded in bytes and
// lines, scanned line by line as they stream. Only the pods that matter are
// asked for: the CVO's; the machine-config daemons of the nodes that are not
// settled and the controller; each node's latest installer of each static-pod
// operator; the machine approver. Each namespace's outcome is recorded.
func (s *Source) collectLogs(ctx context.Context, b *inspect.Builder) error {
	o := s.opts.Logs.withDefaults()
	now := s.opts.Now()
	byNS := map[string]*nsLogs{}
	for _, ns := range logs.Namespaces() {
		byNS[ns] = &nsLogs{state: inspect.Collected}
	}
	daemons := b.DaemonLogNodes()
	for ns, sel := range logSelectors {
		r := byNS[ns]
		pods, err := s.listPods(ctx, ns, sel)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.state, r.reason = s.status(job{res: inspect.ResPods, ns: ns}, 0, 0, err).State, "listing its pods: "+apiMessage(err)
			continue
		}
		for _, p := range pods {
			for _, c := range p.Status.ContainerStatuses {
				fam := logs.FamilyOf(ns, p.Name, c.Name)
				if fam == "" || fam == inspect.LogFamilyMachineConfigDaemon && !daemons[p.Spec.NodeName] {
					continue
				}
				t := logTarget{ns: ns, pod: p.Name, container: c.Name, node: p.Spec.NodeName, tail: true}
				r.targets = append(r.targets, t)
				if c.RestartCount > 0 {
					t.previous = true
					r.targets = append(r.targets, t)
				}
			}
		}
	}
	for _, ip := range b.LatestInstallers() {
		r := byNS[ip.Namespace]
		r.targets = append(r.targets, logTarget{ns: ip.Namespace, pod: ip.Name, container: openshift.InstallerContainer, node: ip.Node})
	}

	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, ns := range logs.Namespaces() {
		r := byNS[ns]
		for _, t := range r.targets {
			g.Go(func() error {
				f, entries, err := s.readLog(gctx, t, o)
				mu.Lock()
				defer mu.Unlock()
				r.paths = append(r.paths, t.path())
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					r.failed = append(r.failed, fmt.Sprintf("%s/%s (%s)", t.pod, t.container, apiMessage(err)))
					if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
						r.state = inspect.Forbidden
					}
					return nil
				}
				b.AddLog(f, entries)
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, ns := range logs.Namespaces() {
		r := byNS[ns]
		sort.Strings(r.paths)
		sort.Strings(r.failed)
		rs := inspect.ResourceStatus{Namespace: ns, State: r.state, Reason: r.reason, CollectedAt: now, Count: len(r.paths) - len(r.failed), From: r.paths}
		switch {
		case r.state != inspect.Collected && r.reason != "":
			rs.From = []string{apiPath(inspect.ResPods, ns) + "?labelSelector=" + url.QueryEscape(logSelectors[ns])}
		case len(r.failed) > 0:
			if rs.State == inspect.Collected {
				rs.State = inspect.Error
			}
			rs.Reason = "could not read " + strings.Join(r.failed, "; ")
		case len(r.targets) == 0:
			rs.Reason = inspect.ReasonNotNeeded + "no pod of " + ns + " whose log recover reads matters now"
		}
		b.RecordLogs(rs)
	}
	return nil
}

// listPods lists a namespace's pods with a selector, page by page.
func (s *Source) listPods(ctx context.Context, ns, selector string) ([]corev1.Pod, error) {
	var out []corev1.Pod
	opts := metav1.ListOptions{LabelSelector: selector, Limit: s.opts.PageSize}
	for {
		l, err := s.kube.CoreV1().Pods(ns).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
		if l.Continue == "" {
			return out, nil
		}
		opts.Continue = l.Continue
	}
}

// readLog streams one container log through the scanner.
func (s *Source) readLog(ctx context.Context, t logTarget, o LogOptions) (inspect.LogFile, []inspect.LogEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	opts := &corev1.PodLogOptions{Container: t.container, Previous: t.previous, Timestamps: true, LimitBytes: &o.MaxBytes}
	if t.tail {
		opts.TailLines = &o.TailLines
	}
	rc, err := s.kube.CoreV1().Pods(t.ns).GetLogs(t.pod, opts).Stream(ctx)
	if err != nil {
		return inspect.LogFile{}, nil, err
	}
	defer rc.Close()
	f := inspect.LogFile{Path: t.path(), Namespace: t.ns, Pod: t.pod, Container: t.container, Previous: t.previous, Node: t.node,
		Family: logs.FamilyOf(t.ns, t.pod, t.container)}
	f, entries, err := logs.Scan(ctx, rc, f, logs.Limits{MaxBytes: o.MaxBytes})
	if err != nil {
		return f, nil, err
	}
	switch {
	case f.Bytes >= o.MaxBytes:
		f.Partial = fmt.Sprintf("the API server's limitBytes (%s) cut it", bounded.Size(o.MaxBytes))
	case t.tail && int64(f.Lines) >= o.TailLines:
		f.Partial = fmt.Sprintf("its last %d lines only (tailLines)", o.TailLines)
	}
	return f, entries, nil
}
