package applytest

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Prepare creates what exists before sc's plan runs: the namespace with a
// label of its own (which the plan's merge must keep) and the object the plan
// deletes. It is idempotent.
func (c *Cluster) Prepare(ctx context.Context, sc *Scenario) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sc.Namespace, Labels: map[string]string{"kept": "yes"}}}
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); ignoreExists(err) != nil {
		return err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sc.Obsolete.GetName(), Namespace: sc.Namespace}, Data: map[string]string{"old": "yes"}}
	_, err := c.Kube.CoreV1().ConfigMaps(sc.Namespace).Create(ctx, cm, metav1.CreateOptions{})
	return ignoreExists(err)
}
