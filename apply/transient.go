package apply

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// transientRetries is how many times a request that failed with a transient API
// error is tried again before the failure counts (docs/reliability.md).
const transientRetries = 4

// transient reports whether err is an API failure worth retrying: the server was
// overloaded or unavailable, or the connection was cut. client-go retries only
// some of these by itself (429 and 5xx with Retry-After; resets of GETs).
func transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsTimeout(err) || apierrors.IsUnexpectedServerError(err) ||
		utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) || utilnet.IsConnectionRefused(err)
}

// transientBackoff is the wait before retry n (0-based): 250ms, doubling.
func transientBackoff(n int) time.Duration { return 250 * time.Millisecond << n }

// sleepCtx waits d, or less when ctx ends (it then returns false).
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryTransient calls f until it succeeds, fails otherwise than transiently, or
// has been retried transientRetries times. f must be safe to repeat (a read, an
// access review, a dry run).
func retryTransient(ctx context.Context, f func() error) error {
	for n := 0; ; n++ {
		err := f()
		if err == nil || n >= transientRetries || !transient(err) || !sleepCtx(ctx, transientBackoff(n)) {
			return err
		}
	}
}
