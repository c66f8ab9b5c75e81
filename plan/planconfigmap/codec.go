package planconfigmap

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/plan/planfile"
)

// The keys, label and annotations of a plan's ConfigMaps.
const (
	// Key holds a plan kept as is; GzipKey (binaryData) a part of a plan
	// kept gzip'd; ReasonKey why there is no plan, instead of one.
	Key       = "plan.json"
	GzipKey   = "plan.json.gz"
	ReasonKey = "reason"
	// Label names the plan a ConfigMap holds (the head or a part).
	Label = "recover.openshift.io/plan"
	// DigestAnnotation is the plan's digest (plan.Digest of the document's
	// bytes), on every part; PartsAnnotation, on NAME, how many parts there
	// are; PartAnnotation, on a part, its index.
	DigestAnnotation = "recover.openshift.io/plan-digest"
	PartsAnnotation  = "recover.openshift.io/plan-parts"
	PartAnnotation   = "recover.openshift.io/plan-part"

	// PartBytes is the most gzip'd bytes one ConfigMap holds (the API server
	// takes 1 MiB of data); MaxParts bounds what Encode writes and Assemble
	// reads (48 MiB gzip'd).
	PartBytes = 768 << 10
	MaxParts  = 64
)

// PartName is the name of part i (from 1) of the plan kept as name.
func PartName(name string, i int) string { return name + "-part-" + strconv.Itoa(i) }

// Encode returns the ConfigMaps that keep data (a plan document's bytes) as
// name in namespace: gzip'd (deterministically: the same bytes give the same
// objects) and split into parts of at most PartBytes, the head first. The
// document is checked first as apply checks it (plan.Parse): a plan apply
// would refuse is never stored.
func Encode(data []byte, namespace, name string) ([]*corev1.ConfigMap, error) {
	return EncodeInParts(data, namespace, name, PartBytes)
}

// EncodeInParts is Encode with parts of at most partBytes (tests split small
// plans to exercise the assembly).
func EncodeInParts(data []byte, namespace, name string, partBytes int) ([]*corev1.ConfigMap, error) {
	if _, _, err := planfile.Parse(data, "configmap:"+namespace+"/"+name); err != nil {
		return nil, err
	}
	if partBytes < 1 {
		return nil, fmt.Errorf("plan parts of %d bytes", partBytes)
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
	if len(parts) > MaxParts {
		return nil, &FormatError{msg: fmt.Sprintf("a plan of %d bytes needs %d ConfigMaps, more than %d", len(data), len(parts), MaxParts)}
	}
	digest := planfile.Digest(data)
	out := make([]*corev1.ConfigMap, 0, len(parts))
	for i, p := range parts {
		cm := newConfigMap(namespace, name)
		cm.Annotations = map[string]string{DigestAnnotation: digest}
		cm.BinaryData = map[string][]byte{GzipKey: p}
		if i == 0 {
			cm.Annotations[PartsAnnotation] = strconv.Itoa(len(parts))
		} else {
			cm.Name = PartName(name, i)
			cm.Annotations[PartAnnotation] = strconv.Itoa(i)
		}
		out = append(out, cm)
	}
	return out, nil
}

// NoPlan returns the ConfigMap name that keeps, instead of a plan, why there is
// none (ReasonKey): it exists either way, so what waits for it (a fleet
// template) is never held by a cluster with nothing to apply.
func NoPlan(namespace, name, reason string) *corev1.ConfigMap {
	cm := newConfigMap(namespace, name)
	cm.Data = map[string]string{ReasonKey: reason}
	return cm
}

func newConfigMap(namespace, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{Label: name}},
	}
}

// Digest is the digest of the plan head keeps, as Assemble would verify it:
// the recorded one for a plan kept in parts, the bytes' for one kept as is, ""
// when head keeps no plan.
func Digest(head *corev1.ConfigMap) string {
	if plain, ok := head.Data[Key]; ok {
		return planfile.Digest([]byte(plain))
	}
	if _, ok := head.BinaryData[GzipKey]; ok {
		return head.Annotations[DigestAnnotation]
	}
	return ""
}

// NoPlanError says the ConfigMap keeps why there is no plan (NoPlan) instead
// of a plan: there is nothing to apply.
type NoPlanError struct {
	Namespace, Name string
	Reason          string
}

func (e *NoPlanError) Error() string {
	return fmt.Sprintf("ConfigMap %s/%s holds no plan: %s", e.Namespace, e.Name, e.Reason)
}

// FormatError is a plan's ConfigMaps whose content is not a plan Encode wrote
// (a missing or foreign part, damaged bytes, a digest that does not match). It
// is bad input.
type FormatError struct{ msg string }

func (e *FormatError) Error() string { return e.msg }

// BadInput reports true: the ConfigMaps do not keep a whole plan.
func (e *FormatError) BadInput() bool { return true }

func formatErrorf(format string, args ...any) error {
	return &FormatError{msg: fmt.Sprintf(format, args...)}
}

// Assemble returns the plan document's bytes that head keeps, with the parts
// part reads (by name: PartName), and checks them against the digest they
// record; it decompresses at most plan.MaxBytes. A head that keeps why there
// is no plan is a *NoPlanError; content that is not a whole plan a
// *FormatError; part's errors are returned as they are. The bytes are not
// parsed (plan.Parse does that).
func Assemble(head *corev1.ConfigMap, part func(name string) (*corev1.ConfigMap, error)) ([]byte, error) {
	where := head.Namespace + "/" + head.Name
	digest := head.Annotations[DigestAnnotation]
	var data []byte
	if plain, ok := head.Data[Key]; ok {
		data = []byte(plain)
	} else {
		first, ok := head.BinaryData[GzipKey]
		if !ok {
			if reason, ok := head.Data[ReasonKey]; ok {
				return nil, &NoPlanError{Namespace: head.Namespace, Name: head.Name, Reason: reason}
			}
			return nil, formatErrorf("ConfigMap %s holds no plan (neither data %s nor binaryData %s)", where, Key, GzipKey)
		}
		n, err := strconv.Atoi(head.Annotations[PartsAnnotation])
		if err != nil || n < 1 || n > MaxParts || digest == "" {
			return nil, formatErrorf("ConfigMap %s: annotations %s=%q and %s=%q do not describe a plan of 1 to %d parts", where, PartsAnnotation, head.Annotations[PartsAnnotation], DigestAnnotation, digest, MaxParts)
		}
		gz := append([]byte(nil), first...)
		for i := 1; i < n; i++ {
			p, err := part(PartName(head.Name, i))
			if err != nil {
				return nil, err
			}
			if p.Annotations[DigestAnnotation] != digest || p.Annotations[PartAnnotation] != strconv.Itoa(i) {
				return nil, formatErrorf("ConfigMap %s/%s is not part %d of plan %s (%s=%q, %s=%q)", p.Namespace, p.Name, i, digest, DigestAnnotation, p.Annotations[DigestAnnotation], PartAnnotation, p.Annotations[PartAnnotation])
			}
			gz = append(gz, p.BinaryData[GzipKey]...)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			return nil, formatErrorf("the plan in ConfigMaps %s is not gzip'd data: %v", where, err)
		}
		data, err = io.ReadAll(io.LimitReader(zr, planfile.MaxBytes+1))
		if err != nil {
			return nil, formatErrorf("the plan in ConfigMaps %s cannot be decompressed: %v", where, err)
		}
		if len(data) > planfile.MaxBytes {
			return nil, formatErrorf("the plan in ConfigMaps %s is larger than %d bytes uncompressed", where, planfile.MaxBytes)
		}
	}
	if digest != "" && planfile.Digest(data) != digest {
		return nil, formatErrorf("the plan in ConfigMaps %s has digest %s, not the %s they record (a part is missing, damaged or from another plan)", where, planfile.Digest(data), digest)
	}
	return data, nil
}
