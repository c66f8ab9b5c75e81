package applytest

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// Update reads the object name with get, changes it with mutate and writes it
// with write (a typed client's Update or UpdateStatus), reading again and
// retrying on a conflict as a controller would (client-go's
// retry.RetryOnConflict). The fixture's fake controllers (RunFakes) write
// ClusterVersion, ClusterOperators and pools while tests run, so a plain
// read-modify-write of those objects fails now and then on a loaded machine
// with "the object has been modified".
//
//	applytest.Update(ctx, cvs.Get, cvs.UpdateStatus, "version", func(cv *configv1.ClusterVersion) { ... })
func Update[T any](ctx context.Context, get func(context.Context, string, metav1.GetOptions) (T, error), write func(context.Context, T, metav1.UpdateOptions) (T, error), name string, mutate func(T)) (T, error) {
	var out T
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(cur)
		out, err = write(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	return out, err
}
