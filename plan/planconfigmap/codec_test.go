package planconfigmap_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planconfigmap"
	"github.com/openshift-recover/recover/plan/planfile"
)

// document is the plan document's bytes (plan.Encode) of a plan with n apply
// steps, each a ConfigMap carrying size bytes of incompressible data.
func document(t testing.TB, n, size int) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	b := applytest.NewPlan().DisableCVO()
	for i := range n {
		raw := make([]byte, size)
		for j := range raw {
			raw[j] = byte(rng.Uint32())
		}
		cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d","namespace":"n"},"data":{"x":%q}}`, i, base64.StdEncoding.EncodeToString(raw))
		b.Apply(cm, nil)
	}
	var buf bytes.Buffer
	if err := planfile.Encode(&buf, b.RestoreCVO().Plan()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// byName serves the ConfigMaps as a cluster would: a missing one is NotFound.
func byName(cms []*corev1.ConfigMap) func(string) (*corev1.ConfigMap, error) {
	return func(name string) (*corev1.ConfigMap, error) {
		for _, cm := range cms {
			if cm.Name == name {
				return cm, nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
	}
}

// TestEncodeAssembles: a small plan, one split into many parts and a plan
// larger than a ConfigMap holds (2.7 MB of JSON, as a real release plan is)
// assemble into the document's bytes, with its digest; every ConfigMap's data
// stays under the API server's 1 MiB; the same bytes give the same objects.
func TestEncodeAssembles(t *testing.T) {
	small := document(t, 2, 64)
	large := document(t, 20, 100<<10)
	for _, tc := range []struct {
		name      string
		data      []byte
		partBytes int
		minParts  int
	}{
		{"small", small, planconfigmap.PartBytes, 1},
		{"small in parts of 256 bytes", small, 256, 3},
		{"larger than a ConfigMap", large, planconfigmap.PartBytes, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cms, err := planconfigmap.EncodeInParts(tc.data, "ns", "p", tc.partBytes)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := planconfigmap.EncodeInParts(tc.data, "ns", "p", tc.partBytes)
			if len(cms) < tc.minParts || !reflect.DeepEqual(cms, again) {
				t.Fatalf("%d ConfigMaps (want at least %d), the same again: %v", len(cms), tc.minParts, reflect.DeepEqual(cms, again))
			}
			for _, cm := range cms {
				// The API server's ConfigMap validation sums the bytes of
				// data and binaryData (corev1.MaxSecretSize, 1 MiB).
				size := 0
				for k, v := range cm.Data {
					size += len(k) + len(v)
				}
				for k, v := range cm.BinaryData {
					size += len(k) + len(v)
				}
				if size > 1<<20 || cm.Labels[planconfigmap.Label] != "p" {
					t.Errorf("ConfigMap %s: %d bytes of data, labels %v", cm.Name, size, cm.Labels)
				}
			}
			got, err := planconfigmap.Assemble(cms[0], byName(cms[1:]))
			if err != nil || !bytes.Equal(got, tc.data) {
				t.Fatalf("assembled %d bytes (%v), want the document's %d", len(got), err, len(tc.data))
			}
			if d := planconfigmap.Digest(cms[0]); d != planfile.Digest(tc.data) {
				t.Errorf("digest %s, want %s", d, planfile.Digest(tc.data))
			}
			t.Logf("%d bytes of JSON in %d ConfigMap(s)", len(tc.data), len(cms))
		})
	}
}

// TestAssembleRefuses: what is not a whole plan is a FormatError (bad input),
// a ConfigMap that says why there is no plan a NoPlanError, and a plan kept as
// is reads as it is.
func TestAssembleRefuses(t *testing.T) {
	data := document(t, 4, 512)
	other := document(t, 5, 512)
	split := func(d []byte) []*corev1.ConfigMap {
		cms, err := planconfigmap.EncodeInParts(d, "ns", "p", 256)
		if err != nil {
			t.Fatal(err)
		}
		return cms
	}
	for _, tc := range []struct {
		name   string
		cms    func() []*corev1.ConfigMap
		want   string
		noPlan bool
	}{
		{"a missing part", func() []*corev1.ConfigMap { c := split(data); return append(c[:1:1], c[2:]...) }, "not found", false},
		{"a part of another plan", func() []*corev1.ConfigMap {
			c, o := split(data), split(other)
			return append([]*corev1.ConfigMap{c[0], o[1]}, c[2:]...)
		}, "is not part 1", false},
		{"damaged bytes", func() []*corev1.ConfigMap {
			c := split(data)
			last := c[len(c)-1]
			last.BinaryData[planconfigmap.GzipKey] = last.BinaryData[planconfigmap.GzipKey][:1]
			return c
		}, "decompressed", false},
		{"no parts annotation", func() []*corev1.ConfigMap {
			c := split(data)
			delete(c[0].Annotations, planconfigmap.PartsAnnotation)
			return c
		}, "do not describe a plan", false},
		{"plain bytes not the recorded ones", func() []*corev1.ConfigMap {
			cm := planconfigmap.NoPlan("ns", "p", "")
			cm.Data = map[string]string{planconfigmap.Key: string(data)}
			cm.Annotations = map[string]string{planconfigmap.DigestAnnotation: planfile.Digest(other)}
			return []*corev1.ConfigMap{cm}
		}, "not the " + planfile.Digest(other), false},
		{"neither plan nor reason", func() []*corev1.ConfigMap {
			cm := planconfigmap.NoPlan("ns", "p", "")
			cm.Data = map[string]string{"x": "y"}
			return []*corev1.ConfigMap{cm}
		}, "holds no plan (neither", false},
		{"the reason there is none", func() []*corev1.ConfigMap {
			return []*corev1.ConfigMap{planconfigmap.NoPlan("ns", "p", "no plan: the verdict's answer is refused")}
		}, "holds no plan: no plan: the verdict's answer is refused", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cms := tc.cms()
			_, err := planconfigmap.Assemble(cms[0], byName(cms[1:]))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line mentioning %q", err, tc.want)
			}
			var none *planconfigmap.NoPlanError
			var format *planconfigmap.FormatError
			switch {
			case tc.noPlan && !errors.As(err, &none):
				t.Errorf("%v is not a NoPlanError", err)
			case !tc.noPlan && tc.name != "a missing part" && (!errors.As(err, &format) || !format.BadInput()):
				t.Errorf("%v is not bad input", err)
			}
		})
	}
	plain := planconfigmap.NoPlan("ns", "p", "")
	plain.Data = map[string]string{planconfigmap.Key: string(data)}
	if got, err := planconfigmap.Assemble(plain, byName(nil)); err != nil || !bytes.Equal(got, data) || planconfigmap.Digest(plain) != planfile.Digest(data) {
		t.Errorf("a plan kept as is: %v", err)
	}
}

// TestEncodeRefusesWhatApplyWould: bytes that are not a valid plan are never
// stored.
func TestEncodeRefusesWhatApplyWould(t *testing.T) {
	if _, err := planconfigmap.Encode([]byte(`{"formatVersion":"9.0"}`), "ns", "p"); err == nil {
		t.Fatal("an invalid plan was encoded")
	}
}

// BenchmarkEncodeAssemble measures a 2.7 MB plan's round trip.
func BenchmarkEncodeAssemble(b *testing.B) {
	data := document(b, 20, 100<<10)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		cms, err := planconfigmap.Encode(data, "ns", "p")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := planconfigmap.Assemble(cms[0], byName(cms[1:])); err != nil {
			b.Fatal(err)
		}
	}
}
