package applytest

import (
	"context"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// RunFakes plays, until ctx ends, the controllers the gates wait for: a CVO that,
// while its Deployment is available, reports ClusterVersion's desired update as
// status.desired (with a Partial history entry) and observes the spec; and
// operators that, once a Deployment labelled OperatorLabel has rolled out, make the
// named ClusterOperator report the Deployment's VersionAnnotation, Available and
// not Degraded; and an MCO that observes every pool's spec. It is a test fixture.
//
// It reconciles when one of the objects it reads changes (a watch on each of
// their kinds), as a controller does, and once a second besides in case a watch
// broke. It used to poll every 50 ms: with twenty operators that was about 340
// GETs a second for the whole of apply's package run, most of kube-apiserver's
// CPU on a 2-core machine (measured with its /metrics while the suite ran).
func (c *Cluster) RunFakes(ctx context.Context) {
	kick := make(chan struct{}, 1)
	for _, w := range []func(context.Context, metav1.ListOptions) (watch.Interface, error){
		c.Kube.AppsV1().Deployments("").Watch,
		c.OSConfig.ConfigV1().ClusterVersions().Watch,
		c.OSConfig.ConfigV1().ClusterOperators().Watch,
		c.MCFG.MachineconfigurationV1().MachineConfigPools().Watch,
	} {
		go kickOnChange(ctx, w, kick)
	}
	resync := time.NewTicker(time.Second)
	defer resync.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
		case <-resync.C:
		}
		c.fakeCVO(ctx)
		c.fakeOperators(ctx)
		c.fakeMCO(ctx)
	}
}

// kickOnChange sends on kick (without blocking: one pending kick is enough) for
// every event of a watch, restarting the watch when it ends, until ctx ends.
func kickOnChange(ctx context.Context, start func(context.Context, metav1.ListOptions) (watch.Interface, error), kick chan<- struct{}) {
	for ctx.Err() == nil {
		w, err := start(ctx, metav1.ListOptions{})
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for range w.ResultChan() {
			select {
			case kick <- struct{}{}:
			default:
			}
		}
		w.Stop()
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
	cos := c.OSConfig.ConfigV1().ClusterOperators()
	coList, err := cos.List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	byName := map[string]*configv1.ClusterOperator{}
	for i := range coList.Items {
		byName[coList.Items[i].Name] = &coList.Items[i]
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
		co, ok := byName[name]
		if !ok {
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
