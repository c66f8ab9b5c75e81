package live

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/inspect"
)

// jobs returns one job per resource type (and per operand namespace for pods),
// each feeding the builder page by page.
func (s *Source) jobs(b *inspect.Builder) []job {
	cfg, op, mc := s.config.ConfigV1(), s.operator.OperatorV1(), s.mcfg.MachineconfigurationV1()
	jobs := []job{
		{res: inspect.ResClusterVersions, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := cfg.ClusterVersions().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.SetClusterVersion(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResClusterOperators, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := cfg.ClusterOperators().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddClusterOperator(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResFeatureGates, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := cfg.FeatureGates().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.SetFeatureGate(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResInfrastructures, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := cfg.Infrastructures().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.SetInfrastructure(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResKubeAPIServers, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := op.KubeAPIServers().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for _, x := range l.Items {
				b.SetStaticPodOperator(inspect.ResKubeAPIServers.Resource, x.ObjectMeta, x.Spec.StaticPodOperatorSpec, x.Status.StaticPodOperatorStatus)
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResKubeControllerManagers, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := op.KubeControllerManagers().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for _, x := range l.Items {
				b.SetStaticPodOperator(inspect.ResKubeControllerManagers.Resource, x.ObjectMeta, x.Spec.StaticPodOperatorSpec, x.Status.StaticPodOperatorStatus)
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResKubeSchedulers, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := op.KubeSchedulers().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for _, x := range l.Items {
				b.SetStaticPodOperator(inspect.ResKubeSchedulers.Resource, x.ObjectMeta, x.Spec.StaticPodOperatorSpec, x.Status.StaticPodOperatorStatus)
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResEtcds, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := op.Etcds().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for _, x := range l.Items {
				b.SetStaticPodOperator(inspect.ResEtcds.Resource, x.ObjectMeta, x.Spec.StaticPodOperatorSpec, x.Status.StaticPodOperatorStatus)
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResMachineConfigPools, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := mc.MachineConfigPools().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddMachineConfigPool(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResMachineConfigs, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			gvr := schema.GroupVersionResource{Group: inspect.ResMachineConfigs.Group, Version: inspect.ResMachineConfigs.Version, Resource: inspect.ResMachineConfigs.Resource}
			l, err := s.meta.Resource(gvr).List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddMachineConfig(&l.Items[i].ObjectMeta)
			}
			return l.Continue, len(l.Items), nil
		}},
		{res: inspect.ResNodes, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := s.kube.CoreV1().Nodes().List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddNode(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
		// One cluster-wide LIST: the CVO and every operator Deployment (the builder
		// keeps those in openshift-* namespaces that declare a version).
		{res: inspect.ResDeployments, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := s.kube.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddDeployment(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}},
	}
	jobs = append(jobs, s.wedgeJobs(b)...)
	for _, c := range inspect.StaticPodComponents {
		ns := c.Namespace
		jobs = append(jobs, job{res: inspect.ResPods, ns: ns, page: func(ctx context.Context, o metav1.ListOptions) (string, int, error) {
			l, err := s.kube.CoreV1().Pods(ns).List(ctx, o)
			if err != nil {
				return "", 0, err
			}
			for i := range l.Items {
				b.AddPod(&l.Items[i])
			}
			return l.Continue, len(l.Items), nil
		}})
	}
	return jobs
}
