package incluster

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/plan/planconfigmap"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The plan is kept in ConfigMaps as plan/planconfigmap encodes it (gzip'd and
// split when large, or as is under plan.json); this file reads them.
const (
	// DefaultPlanConfigMap is the plan's ConfigMap unless --plan-configmap says.
	DefaultPlanConfigMap = "recover-plan"
	// DefaultNamespace is where a run inside the cluster keeps its plan and
	// journal when neither the pod nor --namespace says.
	DefaultNamespace = "openshift-recover"
)

// DefaultJournal is the journal of a plan kept in ConfigMap planConfigMap
// unless --journal says.
func DefaultJournal(planConfigMap string) string { return planConfigMap + "-journal" }

// LoadPlan reads the plan kept in ConfigMap planName (and its parts) in
// namespace, assembles and verifies it (planconfigmap.Assemble) and parses it
// as plan.Load parses a file: it returns the plan, its digest (the plan
// document's) and its reference (Ref). A ConfigMap that keeps why there is no
// plan is a *planconfigmap.NoPlanError; errors about the ConfigMaps' content
// classify as bad input.
func LoadPlan(ctx context.Context, client kubernetes.Interface, namespace, planName string) (*planfile.Plan, string, string, error) {
	ref := Ref(namespace, planName)
	cms := client.CoreV1().ConfigMaps(namespace)
	get := func(name string) (*corev1.ConfigMap, error) {
		var cm *corev1.ConfigMap
		err := retry.Do(ctx, func() (err error) {
			cm, err = cms.Get(ctx, name, metav1.GetOptions{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("reading the plan's ConfigMap %s/%s: %w", namespace, name, err)
		}
		return cm, nil
	}
	head, err := get(planName)
	if err != nil {
		return nil, "", ref, err
	}
	data, err := planconfigmap.Assemble(head, get)
	var format *planconfigmap.FormatError
	if errors.As(err, &format) {
		err = fmt.Errorf("%w: recreate them with 'recover apply --plan FILE --print-plan-configmap --namespace %s --plan-configmap %s'", err, namespace, planName)
	}
	if err != nil {
		return nil, "", ref, err
	}
	p, digest, err := planfile.Parse(data, ref)
	return p, digest, ref, err
}
