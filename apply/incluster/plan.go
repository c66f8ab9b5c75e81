package incluster

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/plan"
)

// The plan's ConfigMaps. A plan embeds every manifest it applies (a 4.4 update
// plan: 539 steps, 3.9 MB of JSON, 0.65 MB gzip'd), more than the 1 MiB of data
// the API server lets a ConfigMap hold, so it is kept gzip'd under PlanGzipKey
// and split into parts: NAME holds part 0 and the annotations, NAME-part-1 ...
// the others. A small plan may instead be kept as is under PlanKey (oc create
// configmap NAME --from-file=plan.json). Either way the assembled bytes are the
// plan file's bytes, so its digest is the file's.
const (
	PlanKey     = "plan.json"
	PlanGzipKey = "plan.json.gz"
	// PlanLabel names the plan a ConfigMap holds (a part or the head).
	PlanLabel = "recover.openshift.io/plan"
	// PlanDigestAnnotation is the plan's digest (sha256:<hex> of the plan
	// file's bytes), on every part; PlanPartsAnnotation, on NAME, how many parts
	// there are; PlanPartAnnotation, on a part, its index.
	PlanDigestAnnotation = "recover.openshift.io/plan-digest"
	PlanPartsAnnotation  = "recover.openshift.io/plan-parts"
	PlanPartAnnotation   = "recover.openshift.io/plan-part"

	// DefaultPlanConfigMap is the plan's ConfigMap unless --plan-configmap says.
	DefaultPlanConfigMap = "recover-plan"
	// DefaultNamespace is where a run inside the cluster keeps its plan and
	// journal when neither the pod nor --namespace says.
	DefaultNamespace = "openshift-recover"

	// planPartBytes is the most gzip'd bytes one ConfigMap holds; maxPlanParts
	// bounds what a reader assembles (48 MiB gzip'd).
	planPartBytes = 768 << 10
	maxPlanParts  = 64
)

// PartName is the name of part i (from 1) of the plan ConfigMap name.
func PartName(name string, i int) string { return name + "-part-" + strconv.Itoa(i) }

// DefaultJournal is the journal of a plan kept in ConfigMap planConfigMap
// unless --journal says.
func DefaultJournal(planConfigMap string) string { return planConfigMap + "-journal" }

// PlanConfigMaps returns the ConfigMaps that keep the plan document data (a
// plan file's bytes) as planName in namespace: gzip'd (deterministically: the
// same plan gives the same objects) and split into parts. The plan is checked
// as apply checks it first.
func PlanConfigMaps(data []byte, namespace, planName string) ([]*corev1.ConfigMap, error) {
	return planConfigMaps(data, namespace, planName, planPartBytes)
}

func planConfigMaps(data []byte, namespace, planName string, partBytes int) ([]*corev1.ConfigMap, error) {
	if _, _, err := plan.Parse(data, Ref(namespace, planName)); err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	w, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	var parts [][]byte
	for b := gz.Bytes(); len(b) > 0; {
		n := min(len(b), partBytes)
		parts = append(parts, b[:n])
		b = b[n:]
	}
	if len(parts) > maxPlanParts {
		return nil, fmt.Errorf("plan of %d bytes needs %d ConfigMaps, more than %d", len(data), len(parts), maxPlanParts)
	}
	digest := plan.Digest(data)
	var out []*corev1.ConfigMap
	for i, p := range parts {
		cm := &corev1.ConfigMap{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: planName, Namespace: namespace,
				Labels:      map[string]string{PlanLabel: planName},
				Annotations: map[string]string{PlanDigestAnnotation: digest}},
			BinaryData: map[string][]byte{PlanGzipKey: p},
		}
		if i == 0 {
			cm.Annotations[PlanPartsAnnotation] = strconv.Itoa(len(parts))
		} else {
			cm.Name = PartName(planName, i)
			cm.Annotations[PlanPartAnnotation] = strconv.Itoa(i)
		}
		out = append(out, cm)
	}
	return out, nil
}

// LoadPlan reads the plan kept in ConfigMap planName (and its parts) in
// namespace, checks that the parts assemble into the plan whose digest they
// record, and parses it as plan.Load parses a file: it returns the plan, its
// digest (the plan file's) and its reference (Ref). Errors about the ConfigMaps'
// content classify as bad input.
func LoadPlan(ctx context.Context, client kubernetes.Interface, namespace, planName string) (*plan.Plan, string, string, error) {
	ref := Ref(namespace, planName)
	data, err := readPlan(ctx, client, namespace, planName)
	if err != nil {
		return nil, "", ref, err
	}
	p, digest, err := plan.Parse(data, ref)
	return p, digest, ref, err
}

// badPlan is a problem with the plan's ConfigMaps' content.
type badPlan struct{ msg string }

func (e *badPlan) Error() string  { return e.msg }
func (e *badPlan) BadInput() bool { return true }

func badPlanf(format string, args ...any) error { return &badPlan{msg: fmt.Sprintf(format, args...)} }

func readPlan(ctx context.Context, client kubernetes.Interface, namespace, planName string) ([]byte, error) {
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
		return nil, err
	}
	fix := fmt.Sprintf("recreate them with 'recover apply --plan FILE --print-plan-configmap --namespace %s --plan-configmap %s'", namespace, planName)
	digest := head.Annotations[PlanDigestAnnotation]
	var data []byte
	if plain, ok := head.Data[PlanKey]; ok {
		data = []byte(plain)
	} else {
		first, ok := head.BinaryData[PlanGzipKey]
		if !ok {
			return nil, badPlanf("ConfigMap %s/%s holds no plan (neither data %s nor binaryData %s): %s", namespace, planName, PlanKey, PlanGzipKey, fix)
		}
		n, err := strconv.Atoi(head.Annotations[PlanPartsAnnotation])
		if err != nil || n < 1 || n > maxPlanParts || digest == "" {
			return nil, badPlanf("ConfigMap %s/%s: annotations %s=%q and %s=%q do not describe a plan of 1 to %d parts: %s", namespace, planName, PlanPartsAnnotation, head.Annotations[PlanPartsAnnotation], PlanDigestAnnotation, digest, maxPlanParts, fix)
		}
		gz := append([]byte(nil), first...)
		for i := 1; i < n; i++ {
			part, err := get(PartName(planName, i))
			if err != nil {
				return nil, err
			}
			if part.Annotations[PlanDigestAnnotation] != digest || part.Annotations[PlanPartAnnotation] != strconv.Itoa(i) {
				return nil, badPlanf("ConfigMap %s/%s is not part %d of plan %s (%s=%q, %s=%q): %s", namespace, part.Name, i, digest, PlanDigestAnnotation, part.Annotations[PlanDigestAnnotation], PlanPartAnnotation, part.Annotations[PlanPartAnnotation], fix)
			}
			gz = append(gz, part.BinaryData[PlanGzipKey]...)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			return nil, badPlanf("the plan in ConfigMaps %s/%s is not gzip'd data: %v: %s", namespace, planName, err, fix)
		}
		data, err = io.ReadAll(io.LimitReader(zr, plan.MaxBytes+1))
		if err != nil {
			return nil, badPlanf("the plan in ConfigMaps %s/%s cannot be decompressed: %v: %s", namespace, planName, err, fix)
		}
		if len(data) > plan.MaxBytes {
			return nil, badPlanf("the plan in ConfigMaps %s/%s is larger than %d bytes uncompressed", namespace, planName, plan.MaxBytes)
		}
	}
	if digest != "" && plan.Digest(data) != digest {
		return nil, badPlanf("the plan in ConfigMaps %s/%s has digest %s, not the %s they record (a part is missing, damaged or from another plan): %s", namespace, planName, plan.Digest(data), digest, fix)
	}
	return data, nil
}
