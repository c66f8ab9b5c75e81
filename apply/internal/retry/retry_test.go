package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var cm = schema.GroupResource{Resource: "configmaps"}

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"canceled", context.Canceled, false},
		{"deadline", fmt.Errorf("get: %w", context.DeadlineExceeded), false},
		{"not found", apierrors.NewNotFound(cm, "x"), false},
		{"forbidden", apierrors.NewForbidden(cm, "x", errors.New("no")), false},
		{"conflict", apierrors.NewConflict(cm, "x", errors.New("rv")), false},
		{"internal", apierrors.NewInternalError(errors.New("etcd")), true},
		{"unavailable", apierrors.NewServiceUnavailable("later"), true},
		{"too many", apierrors.NewTooManyRequests("slow down", 1), true},
		{"server timeout", apierrors.NewServerTimeout(cm, "get", 1), true},
		{"timeout", apierrors.NewTimeoutError("slow", 1), true},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{"eof", io.ErrUnexpectedEOF, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Transient(tc.err); got != tc.want {
				t.Errorf("Transient(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestDoStopsOnSuccessOnPermanentErrorsAndAfterRetries(t *testing.T) {
	unavailable := apierrors.NewServiceUnavailable("later")
	notFound := apierrors.NewNotFound(cm, "x")
	for _, tc := range []struct {
		name      string
		errs      []error // returned in turn; the last one repeats
		wantCalls int
		wantErr   error
	}{
		{"first call succeeds", []error{nil}, 1, nil},
		{"transient then success", []error{unavailable, nil}, 2, nil},
		{"permanent error is not retried", []error{notFound}, 1, notFound},
		{"transient forever gives up", []error{unavailable}, Retries + 1, unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			// The "gives up" case waits the real backoffs (about 4 s).
			err := Do(context.Background(), func() error {
				i := min(calls, len(tc.errs)-1)
				calls++
				return tc.errs[i]
			})
			if calls != tc.wantCalls || !errors.Is(err, tc.wantErr) && err != tc.wantErr {
				t.Errorf("calls=%d err=%v, want calls=%d err=%v", calls, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
}

func TestDoDoesNotRetryAfterTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	err := Do(ctx, func() error { calls++; return apierrors.NewServiceUnavailable("later") })
	if calls != 1 || !apierrors.IsServiceUnavailable(err) {
		t.Fatalf("calls=%d err=%v, want one call and the unavailable error", calls, err)
	}
}
