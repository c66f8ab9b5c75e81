package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Lease identity and annotations.
const (
	// Namespace is the CVO's: the lease sits beside what it guards.
	Namespace = openshift.CVONamespace
	Name      = "recover-apply"
	// RunIDAnnotation and JournalAnnotation tell a later run which run holds the
	// lease and where its journal is.
	RunIDAnnotation   = "recover.openshift.io/run-id"
	JournalAnnotation = "recover.openshift.io/journal"
	// DefaultDuration is how long a lease lasts without renewal.
	DefaultDuration = 60 * time.Second
)

// Options say who takes the lock and on what terms.
type Options struct {
	// Holder is the lease's holderIdentity (user@host, pid).
	Holder string
	// RunID identifies the run; Journal is its journal's path.
	RunID   string
	Journal string
	// Duration is the lease duration (DefaultDuration when zero); the lease is
	// renewed every third of it.
	Duration time.Duration
	// BreakLock takes the lease even from a live holder.
	BreakLock bool
	// TakeOverRunID lets a resume take the lease its own dead predecessor left:
	// the lease is taken when it carries this run ID.
	TakeOverRunID string
	// WaitExpiry waits, when another run holds the lease, until the lease
	// expires (its holder stopped renewing it: the holder is gone) and takes it
	// then; a holder that renewed it meanwhile is alive and still refuses. A run
	// that cannot prove its predecessor dead (a Job's next pod) waits at most one
	// lease duration this way.
	WaitExpiry bool
	// Waiting, when set, is told once before WaitExpiry waits: who holds the
	// lease and until when at most it waits (the lease's expiry), so that a
	// waiting run says so instead of looking hung (issue 34).
	Waiting func(held *HeldError, until time.Time)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// HeldError says another run holds the lock.
type HeldError struct {
	Holder  string
	RunID   string
	Journal string
	Since   time.Time
	Renewed time.Time
	Expires time.Time
}

func (e *HeldError) Error() string {
	msg := fmt.Sprintf("another recover apply holds the lock (lease %s/%s): holder %q since %s, last renewed %s",
		Namespace, Name, e.Holder, e.Since.UTC().Format(time.RFC3339), e.Renewed.UTC().Format(time.RFC3339))
	if e.Journal != "" {
		msg += ", journal " + e.Journal
	}
	return msg + fmt.Sprintf("; wait for it to finish, or, if that run is dead, wait until the lease expires at %s or pass --break-lock", e.Expires.UTC().Format(time.RFC3339))
}

// Lock is a held lease.
type Lock struct {
	client kubernetes.Interface
	opts   Options

	mu      sync.Mutex
	lease   *coordinationv1.Lease
	lost    chan struct{}
	lostErr error
	stop    chan struct{}
	done    chan struct{}
	// TookOver names the holder the lease was taken from ("" when it was free).
	TookOver string
}

// ErrLost is the cause reported when the lease is lost during a run.
var ErrLost = errors.New("the apply lock was lost")

// expiryMargin is how long after a held lease's expiry WaitExpiry reads it again.
const expiryMargin = time.Second

// Acquire takes the lease and starts renewing it. It returns a *HeldError when
// another run holds it (with WaitExpiry: still holds it after its lease expired).
func Acquire(ctx context.Context, client kubernetes.Interface, opts Options) (*Lock, error) {
	if opts.Duration <= 0 {
		opts.Duration = DefaultDuration
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	lk, err := acquire(ctx, client, opts)
	var held *HeldError
	if !opts.WaitExpiry || !errors.As(err, &held) {
		return lk, err
	}
	if opts.Waiting != nil {
		opts.Waiting(held, held.Expires.Add(expiryMargin))
	}
	t := time.NewTimer(held.Expires.Sub(opts.Now()) + expiryMargin)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, err
	case <-t.C:
	}
	return acquire(ctx, client, opts)
}

func acquire(ctx context.Context, client kubernetes.Interface, opts Options) (*Lock, error) {
	leases := client.CoordinationV1().Leases(Namespace)
	now := metav1.NewMicroTime(opts.Now())
	desired := func(l *coordinationv1.Lease) {
		l.Name, l.Namespace = Name, Namespace
		if l.Annotations == nil {
			l.Annotations = map[string]string{}
		}
		l.Annotations[RunIDAnnotation] = opts.RunID
		l.Annotations[JournalAnnotation] = opts.Journal
		l.Spec.HolderIdentity = ptr.To(opts.Holder)
		l.Spec.LeaseDurationSeconds = ptr.To(int32(opts.Duration / time.Second))
		l.Spec.AcquireTime = &now
		l.Spec.RenewTime = &now
		transitions := ptr.Deref(l.Spec.LeaseTransitions, 0)
		l.Spec.LeaseTransitions = ptr.To(transitions + 1)
	}
	lk := &Lock{client: client, opts: opts, lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	existing, err := leases.Get(ctx, Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		l := &coordinationv1.Lease{}
		desired(l)
		created, err := leases.Create(ctx, l, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			// Another run created it between our read and our create, or this run
			// did, in an attempt whose answer was lost (a retried create).
			if cur, gerr := leases.Get(ctx, Name, metav1.GetOptions{}); gerr == nil {
				if !ours(cur, opts) {
					return nil, heldError(cur, opts.Duration)
				}
				created, err = cur, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("creating lease %s/%s: %w", Namespace, Name, err)
		}
		lk.lease = created
	case err != nil:
		return nil, fmt.Errorf("reading lease %s/%s: %w", Namespace, Name, err)
	default:
		holder := ptr.Deref(existing.Spec.HolderIdentity, "")
		free := holder == "" || expired(existing, opts.Now(), opts.Duration)
		ownRun := ours(existing, opts) || (opts.TakeOverRunID != "" && existing.Annotations[RunIDAnnotation] == opts.TakeOverRunID)
		if !free && !ownRun && !opts.BreakLock {
			return nil, heldError(existing, opts.Duration)
		}
		if holder != "" {
			lk.TookOver = holder
		}
		l := existing.DeepCopy()
		desired(l)
		updated, err := leases.Update(ctx, l, metav1.UpdateOptions{})
		if apierrors.IsConflict(err) {
			// Someone else took it first, or this run did in an attempt whose
			// answer was lost.
			if cur, gerr := leases.Get(ctx, Name, metav1.GetOptions{}); gerr == nil {
				if !ours(cur, opts) {
					return nil, heldError(cur, opts.Duration)
				}
				updated, err = cur, nil
			}
		}
		if err != nil {
			return nil, fmt.Errorf("taking lease %s/%s: %w", Namespace, Name, err)
		}
		lk.lease = updated
	}
	go lk.renew()
	return lk, nil
}

// ours reports whether l was taken by this very run (same run ID), so that a
// retried Acquire whose earlier attempt reached the server recognises its own lease.
func ours(l *coordinationv1.Lease, opts Options) bool {
	return opts.RunID != "" && l.Annotations[RunIDAnnotation] == opts.RunID &&
		ptr.Deref(l.Spec.HolderIdentity, "") == opts.Holder
}

func expired(l *coordinationv1.Lease, now time.Time, def time.Duration) bool {
	return !now.Before(expiry(l, def))
}

func expiry(l *coordinationv1.Lease, def time.Duration) time.Time {
	d := def
	if l.Spec.LeaseDurationSeconds != nil {
		d = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	renewed := l.CreationTimestamp.Time
	if l.Spec.RenewTime != nil {
		renewed = l.Spec.RenewTime.Time
	}
	return renewed.Add(d)
}

func heldError(l *coordinationv1.Lease, def time.Duration) *HeldError {
	e := &HeldError{Holder: ptr.Deref(l.Spec.HolderIdentity, ""), RunID: l.Annotations[RunIDAnnotation], Journal: l.Annotations[JournalAnnotation], Expires: expiry(l, def)}
	if l.Spec.AcquireTime != nil {
		e.Since = l.Spec.AcquireTime.Time
	}
	if l.Spec.RenewTime != nil {
		e.Renewed = l.Spec.RenewTime.Time
	}
	return e
}

// Lost is closed when the lease could not be renewed before it expired, or another
// run took it. Err then says why.
func (l *Lock) Lost() <-chan struct{} { return l.lost }

// Err returns why the lock was lost, or nil.
func (l *Lock) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostErr
}

// Since returns when this run acquired the lease.
func (l *Lock) Since() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lease.Spec.AcquireTime == nil {
		return time.Time{}
	}
	return l.lease.Spec.AcquireTime.Time
}

func (l *Lock) renew() {
	defer close(l.done)
	interval := l.opts.Duration / 3
	t := time.NewTicker(interval)
	defer t.Stop()
	leases := l.client.CoordinationV1().Leases(Namespace)
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), interval)
		err := l.renewOnce(ctx, leases.Get, leases.Update)
		cancel()
		if err == nil {
			continue
		}
		l.mu.Lock()
		deadline := expiry(l.lease, l.opts.Duration)
		l.mu.Unlock()
		var taken *HeldError
		if errors.As(err, &taken) || !l.opts.Now().Before(deadline) {
			l.mu.Lock()
			l.lostErr = fmt.Errorf("%w: %v", ErrLost, err)
			l.mu.Unlock()
			close(l.lost)
			return
		}
	}
}

type (
	getFunc    func(context.Context, string, metav1.GetOptions) (*coordinationv1.Lease, error)
	updateFunc func(context.Context, *coordinationv1.Lease, metav1.UpdateOptions) (*coordinationv1.Lease, error)
)

func (l *Lock) renewOnce(ctx context.Context, get getFunc, update updateFunc) error {
	cur, err := get(ctx, Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if ptr.Deref(cur.Spec.HolderIdentity, "") != l.opts.Holder || cur.Annotations[RunIDAnnotation] != l.opts.RunID {
		return heldError(cur, l.opts.Duration)
	}
	next := cur.DeepCopy()
	now := metav1.NewMicroTime(l.opts.Now())
	next.Spec.RenewTime = &now
	updated, err := update(ctx, next, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.lease = updated
	l.mu.Unlock()
	return nil
}

// Release stops renewing and deletes the lease if this run still holds it.
func (l *Lock) Release(ctx context.Context) error {
	select {
	case <-l.stop:
		return nil
	default:
		close(l.stop)
	}
	<-l.done
	leases := l.client.CoordinationV1().Leases(Namespace)
	cur, err := leases.Get(ctx, Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("releasing lease %s/%s: %w", Namespace, Name, err)
	}
	if ptr.Deref(cur.Spec.HolderIdentity, "") != l.opts.Holder || cur.Annotations[RunIDAnnotation] != l.opts.RunID {
		return nil
	}
	err = leases.Delete(ctx, Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cur.UID, ResourceVersion: &cur.ResourceVersion}})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("releasing lease %s/%s: %w", Namespace, Name, err)
	}
	return nil
}
