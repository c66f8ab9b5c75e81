package verdict

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// PlanKey is the key of the plan ConfigMap that holds the plan document, the
// bytes PlanBytes writes. The in-cluster apply reads the plan from there.
const PlanKey = "plan.json"

// PlanConfigMapName is the plan ConfigMap of a wave: one per wave, so a new
// wave never runs a plan an earlier one made for a cluster that has changed
// since.
func PlanConfigMapName(wave string) string {
	if wave == "" {
		return "recover-plan"
	}
	return "recover-plan-" + wave
}

// Store keeps one cluster's verdict in the ConfigMap Namespace/Name.
type Store struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
}

// Save writes v, creating the ConfigMap (and its namespace, when missing) or
// replacing its data (the last writer wins: inspect writes a new verdict, an
// apply run its progress).
func (s Store) Save(ctx context.Context, v *Verdict) error {
	want, err := ToConfigMap(v, s.Namespace, s.Name)
	if err != nil {
		return err
	}
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cms.Get(ctx, s.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = cms.Create(ctx, want, metav1.CreateOptions{})
			if apierrors.IsNotFound(err) {
				// The namespace the verdict is kept in is missing: make it.
				if err := s.createNamespace(ctx); err != nil {
					return err
				}
				_, err = cms.Create(ctx, want, metav1.CreateOptions{})
			}
			return err
		}
		if err != nil {
			return err
		}
		cur.Data = want.Data
		if cur.Labels == nil {
			cur.Labels = map[string]string{}
		}
		for k, v := range want.Labels {
			cur.Labels[k] = v
		}
		_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return s.wrap("writing", err)
	}
	return nil
}

func (s Store) createNamespace(ctx context.Context) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.Namespace, Labels: map[string]string{"app.kubernetes.io/name": "recover"}}}
	if _, err := s.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s does not exist and could not be created (%w); create it ('kubectl create namespace %s') or name another with --verdict-namespace", s.Namespace, err, s.Namespace)
	}
	return nil
}

// Load reads the verdict; a missing ConfigMap is an error that says so
// (apierrors.IsNotFound holds for it).
func (s Store) Load(ctx context.Context) (*Verdict, error) {
	cm, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
	if err != nil {
		return nil, s.wrap("reading", err)
	}
	return FromConfigMap(cm)
}

func (s Store) wrap(doing string, err error) error {
	return fmt.Errorf("%s the verdict configmap %s/%s: %w", doing, s.Namespace, s.Name, err)
}

// PlanReasonKey holds, in the plan ConfigMap, why there is no plan when there
// is none (the verdict's answer and reason): the ConfigMap exists either way, so
// a fleet template that waits for it is never held by a cluster with nothing to
// apply.
const PlanReasonKey = "reason"

// WaveLabel marks what a fleet wave leaves on a cluster with the wave's name.
const WaveLabel = "recover.openshift.io/wave"

// SavePlan stores plan (PlanBytes; nil when the verdict has none, with reason
// saying why) in the wave's plan ConfigMap (PlanConfigMapName) of the verdict's
// namespace unless it exists: a ConfigMap already there stays, since an apply
// run may have started on its plan. It returns the digest of the plan the
// ConfigMap holds afterwards ("" for none).
func (s Store) SavePlan(ctx context.Context, wave string, plan []byte, reason string) (string, error) {
	name := PlanConfigMapName(wave)
	data := map[string]string{PlanReasonKey: reason}
	if plan != nil {
		data = map[string]string{PlanKey: string(plan)}
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: name, Labels: map[string]string{"app.kubernetes.io/name": "recover", "app.kubernetes.io/component": "plan"}},
		Data:       data,
	}
	if wave != "" {
		cm.Labels[WaveLabel] = wave
	}
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	cur, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		cur, err = cms.Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return "", fmt.Errorf("writing the plan configmap %s/%s: %w", s.Namespace, name, err)
	}
	doc, ok := cur.Data[PlanKey]
	if !ok {
		return "", nil
	}
	return Digest([]byte(doc)), nil
}
