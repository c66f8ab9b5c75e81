package resource

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func init() {
	registerTyped(appsv1.SchemeGroupVersion.WithKind("Deployment"), func(modified *bool, e *appsv1.Deployment, r appsv1.Deployment) error {
		ensureDeployment(modified, e, r)
		return nil
	})
}

// ensureDeployment (lib/resourcemerge/apps.go EnsureDeployment): replicas (1
// when the manifest leaves them out), selector, paused and minReadySeconds are
// the manifest's; revisionHistoryLimit and progressDeadlineSeconds when it sets
// them; the strategy with RollingUpdate 25%/25% defaulted; then the pod
// template. The engine keeps the CVO's own Deployment at the live replicas
// while the CVO is disabled (docs/apply.md).
func ensureDeployment(modified *bool, e *appsv1.Deployment, r appsv1.Deployment) {
	ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
	if r.Spec.Replicas == nil {
		r.Spec.Replicas = ptr.To(int32(1))
	}
	if e.Spec.Replicas == nil || *e.Spec.Replicas != *r.Spec.Replicas {
		e.Spec.Replicas = r.Spec.Replicas
		*modified = true
	}
	setSemantic(modified, &e.Spec.Selector, r.Spec.Selector)
	setValue(modified, &e.Spec.Paused, r.Spec.Paused)
	setValue(modified, &e.Spec.MinReadySeconds, r.Spec.MinReadySeconds)
	if r.Spec.RevisionHistoryLimit != nil {
		setSemantic(modified, &e.Spec.RevisionHistoryLimit, r.Spec.RevisionHistoryLimit)
	}
	if r.Spec.ProgressDeadlineSeconds != nil {
		setSemantic(modified, &e.Spec.ProgressDeadlineSeconds, r.Spec.ProgressDeadlineSeconds)
	}
	// apps.go ensureStrategyDefault.
	if s := &r.Spec.Strategy; s.Type == "" || s.Type == appsv1.RollingUpdateDeploymentStrategyType {
		s.Type = appsv1.RollingUpdateDeploymentStrategyType
		if s.RollingUpdate == nil {
			s.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		quarter := intstr.FromString("25%")
		if s.RollingUpdate.MaxUnavailable == nil {
			s.RollingUpdate.MaxUnavailable = &quarter
		}
		if s.RollingUpdate.MaxSurge == nil {
			s.RollingUpdate.MaxSurge = &quarter
		}
	}
	setSemantic(modified, &e.Spec.Strategy, r.Spec.Strategy)
	ensurePodTemplate(modified, &e.Spec.Template, r.Spec.Template)
}
