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

// Save writes v, creating the ConfigMap or replacing its data (the last
// writer wins: inspect writes a new verdict, an apply run its progress).
func (s Store) Save(ctx context.Context, v *Verdict) error {
	want, err := ToConfigMap(v, s.Namespace, s.Name)
	if err != nil {
		return err
	}
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cms.Get(ctx, s.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			if _, err = cms.Create(ctx, want, metav1.CreateOptions{}); apierrors.IsNotFound(err) {
				return fmt.Errorf("namespace %s does not exist: create it ('kubectl create namespace %s') or name another with --verdict-namespace: %w", s.Namespace, s.Namespace, err)
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

// SavePlan stores plan (PlanBytes) in the ConfigMap name of the verdict's
// namespace unless it exists: a plan already there stays, since an apply run
// may have started on it. It returns the digest of the plan the ConfigMap
// holds afterwards.
func (s Store) SavePlan(ctx context.Context, name string, plan []byte) (string, error) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: name, Labels: map[string]string{"app.kubernetes.io/name": "recover", "app.kubernetes.io/component": "plan"}},
		Data:       map[string]string{PlanKey: string(plan)},
	}
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if err == nil {
		return Digest(plan), nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("writing the plan configmap %s/%s: %w", s.Namespace, name, err)
	}
	cur, err := cms.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("reading the plan configmap %s/%s: %w", s.Namespace, name, err)
	}
	doc, ok := cur.Data[PlanKey]
	if !ok {
		return "", fmt.Errorf("configmap %s/%s holds no plan (no %s key); delete it and inspect again", s.Namespace, name, PlanKey)
	}
	return Digest([]byte(doc)), nil
}
