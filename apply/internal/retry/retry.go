package retry

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Retries is how many times a request that failed with a transient API
// error is tried again before the failure counts (docs/reliability.md).
const Retries = 4

// Transient reports whether err is an API failure worth retrying: the server was
// overloaded or unavailable, or the connection was cut. client-go retries only
// some of these by itself (429 and 5xx with Retry-After; resets of GETs).
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsTimeout(err) || apierrors.IsUnexpectedServerError(err) ||
		utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) || utilnet.IsConnectionRefused(err)
}

// Backoff is the wait before retry n (0-based): 250ms, doubling.
func Backoff(n int) time.Duration { return 250 * time.Millisecond << n }

// Sleep waits d, or less when ctx ends (it then returns false).
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Do calls f until it succeeds, fails otherwise than transiently, or
// has been retried Retries times. f must be safe to repeat (a read, an
// access review, a dry run).
func Do(ctx context.Context, f func() error) error {
	for n := 0; ; n++ {
		err := f()
		if err == nil || n >= Retries || !Transient(err) || !Sleep(ctx, Backoff(n)) {
			return err
		}
	}
}
