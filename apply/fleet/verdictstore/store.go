package verdictstore

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/util/retry"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/plan/planconfigmap"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Verbs are the verbs Store uses on the ConfigMaps of its namespace
// (Save, Load, SavePlan): what an identity that keeps a verdict and its plan
// needs there. (Save also creates the namespace when it is missing; a Job's
// namespace exists.)
var Verbs = []string{"get", "create", "update"}

// Store keeps one cluster's verdict in the ConfigMap Namespace/Name.
type Store struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
}

// Save writes v, creating the ConfigMap (and its namespace, when missing) or
// replacing its data. The verdict is one record per wave: a verdict without an
// apply state (inspect's) written over one of the same wave that has one (an
// apply run's) keeps the run's state and what it settled (verdict.Merge), so running
// inspect --verdict again after the apply never erases settled, applyPhase or
// applyResult (issue 34). A verdict of another wave replaces the record.
func (s Store) Save(ctx context.Context, v *verdict.Verdict) error {
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cms.Get(ctx, s.Name, metav1.GetOptions{})
		var stored *verdict.Verdict
		if err == nil {
			// A record that is not a verdict (or of a format this recover does
			// not read) is replaced, as before.
			stored, _ = verdict.FromConfigMap(cur)
		}
		want, werr := verdict.ToConfigMap(verdict.Merge(stored, v), s.Namespace, s.Name)
		if werr != nil {
			return werr
		}
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
func (s Store) Load(ctx context.Context) (*verdict.Verdict, error) {
	cm, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
	if err != nil {
		return nil, s.wrap("reading", err)
	}
	return verdict.FromConfigMap(cm)
}

func (s Store) wrap(doing string, err error) error {
	return fmt.Errorf("%s the verdict configmap %s/%s: %w", doing, s.Namespace, s.Name, err)
}

// SavePlan stores the plan (nil when the verdict has none, with reason saying
// why) in the wave's plan ConfigMap (verdict.PlanConfigMapName) of the verdict's
// namespace, as verdict.PlanConfigMaps encodes it (gzip'd and split when large:
// a plan of any size apply takes is kept whole), unless it exists: a plan
// already stored stays, since an apply run may have started on it. The parts
// are written before the head, so a head that exists has all its parts; the
// namespace is created when missing. It returns the digest of the plan the
// ConfigMaps hold afterwards ("" for none).
func (s Store) SavePlan(ctx context.Context, wave string, p *planfile.Plan, reason string) (string, error) {
	name := verdict.PlanConfigMapName(wave)
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	wrap := func(err error) error {
		return fmt.Errorf("writing the plan configmap %s/%s: %w", s.Namespace, name, err)
	}
	cur, err := cms.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		return planconfigmap.Digest(cur), nil
	case !apierrors.IsNotFound(err):
		return "", wrap(err)
	}
	objs, err := verdict.PlanConfigMaps(s.Namespace, wave, p, reason)
	if err != nil {
		return "", err
	}
	// The namespace is made when missing, as Save makes it (a run pushed
	// from a hub finds none).
	inNamespace := func(write func() error) error {
		err := write()
		if apierrors.IsNotFound(err) {
			if err := s.createNamespace(ctx); err != nil {
				return err
			}
			err = write()
		}
		return err
	}
	// A part an interrupted save left belongs to no head: it is replaced.
	for _, part := range objs[1:] {
		if err := inNamespace(func() error { return createOrReplace(ctx, cms, part) }); err != nil {
			return "", wrap(err)
		}
	}
	var head *corev1.ConfigMap
	err = inNamespace(func() (err error) {
		head, err = cms.Create(ctx, objs[0], metav1.CreateOptions{})
		return err
	})
	if apierrors.IsAlreadyExists(err) {
		head, err = cms.Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return "", wrap(err)
	}
	return planconfigmap.Digest(head), nil
}

// createOrReplace creates cm, or replaces the content of the ConfigMap of its
// name.
func createOrReplace(ctx context.Context, cms typedcorev1.ConfigMapInterface, cm *corev1.ConfigMap) error {
	_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cms.Get(ctx, cm.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Labels, cur.Annotations, cur.Data, cur.BinaryData = cm.Labels, cm.Annotations, cm.Data, cm.BinaryData
		_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}
