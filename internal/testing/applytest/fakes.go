package applytest

import (
	"context"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RunFakes plays, until ctx ends, the controllers the gates wait for: a CVO that,
// while its Deployment is available, reports ClusterVersion's desired update as
// status.desired (with a Partial history entry) and observes the spec; and
// operators that, once a Deployment labelled OperatorLabel has rolled out, make the
// named ClusterOperator report the Deployment's VersionAnnotation, Available and
// not Degraded; and an MCO that observes every pool's spec. It is a test fixture
// and polls.
func (c *Cluster) RunFakes(ctx context.Context) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c.fakeCVO(ctx)
		c.fakeOperators(ctx)
		c.fakeMCO(ctx)
	}
}

func (c *Cluster) fakeCVO(ctx context.Context) {
	d, err := c.Kube.AppsV1().Deployments("openshift-cluster-version").Get(ctx, "cluster-version-operator", metav1.GetOptions{})
	if err != nil || d.Status.AvailableReplicas < 1 {
		return
	}
	cvs := c.OSConfig.ConfigV1().ClusterVersions()
	cv, err := cvs.Get(ctx, "version", metav1.GetOptions{})
	if err != nil {
		return
	}
	changed := false
	if du := cv.Spec.DesiredUpdate; du != nil && du.Image != "" && cv.Status.Desired.Image != du.Image {
		cv.Status.Desired = configv1.Release{Version: du.Version, Image: du.Image}
		cv.Status.History = append([]configv1.UpdateHistory{{State: configv1.PartialUpdate, Version: du.Version, Image: du.Image, StartedTime: metav1.Now()}}, cv.Status.History...)
		changed = true
	}
	if cv.Status.ObservedGeneration != cv.Generation {
		cv.Status.ObservedGeneration = cv.Generation
		changed = true
	}
	if changed {
		_, _ = cvs.UpdateStatus(ctx, cv, metav1.UpdateOptions{})
	}
}

func (c *Cluster) fakeOperators(ctx context.Context) {
	list, err := c.Kube.AppsV1().Deployments("").List(ctx, metav1.ListOptions{LabelSelector: OperatorLabel})
	if err != nil {
		return
	}
	for _, d := range list.Items {
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		if d.Status.ObservedGeneration != d.Generation || d.Status.UpdatedReplicas != want || d.Status.AvailableReplicas != want {
			continue
		}
		name, version := d.Labels[OperatorLabel], d.Annotations[VersionAnnotation]
		cos := c.OSConfig.ConfigV1().ClusterOperators()
		co, err := cos.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || err != nil {
			continue
		}
		if len(co.Status.Versions) == 1 && co.Status.Versions[0].Version == version {
			continue
		}
		now := metav1.Now()
		co.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: version}}
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{
			{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, LastTransitionTime: now, Reason: "AsExpected"},
			{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, LastTransitionTime: now, Reason: "AsExpected"},
			{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, LastTransitionTime: now, Reason: "AsExpected"},
		}
		_, _ = cos.UpdateStatus(ctx, co, metav1.UpdateOptions{})
	}
}

// fakeMCO observes every MachineConfigPool's spec (its machines stay updated).
func (c *Cluster) fakeMCO(ctx context.Context) {
	pools := c.MCFG.MachineconfigurationV1().MachineConfigPools()
	list, err := pools.List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	for i := range list.Items {
		p := &list.Items[i]
		if p.Status.ObservedGeneration != p.Generation {
			p.Status.ObservedGeneration = p.Generation
			_, _ = pools.UpdateStatus(ctx, p, metav1.UpdateOptions{})
		}
	}
}
