package incluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/fleet/verdictstore"
	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planconfigmap"
	"github.com/openshift-recover/recover/plan/planfile"
)

// create creates the ConfigMaps in the API server.
func create(t *testing.T, c kubernetes.Interface, cms []*corev1.ConfigMap) {
	t.Helper()
	for _, cm := range cms {
		if _, err := c.CoreV1().ConfigMaps(cm.Namespace).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", cm.Name, err)
		}
	}
}

// planFile writes the plan b builds and returns its path and bytes.
func planFile(t *testing.T, b *applytest.Builder) (string, []byte) {
	t.Helper()
	path := b.Write(t, t.TempDir())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// TestPlanConfigMapsAssembleIntoThePlanFile keeps plans in ConfigMaps, reads
// them back through the real API server and checks that the plan and its digest
// are the plan file's: a plan split into many parts (parts of 1 KiB), one in a
// single gzip'd ConfigMap, and one kept as is under plan.json (oc create
// configmap --from-file); and that the same plan always gives the same objects.
func TestPlanConfigMapsAssembleIntoThePlanFile(t *testing.T) {
	c, ns := client(t)
	b, _ := applytest.FullPlan("cm")
	path, data := planFile(t, b)
	want, wantDigest, err := planfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	split, err := planconfigmap.EncodeInParts(data, ns, "split", 1024)
	if err != nil {
		t.Fatal(err)
	}
	if len(split) < 3 {
		t.Fatalf("%d ConfigMaps for a plan of %d bytes in parts of 1 KiB", len(split), len(data))
	}
	again, _ := planconfigmap.EncodeInParts(data, ns, "split", 1024)
	if !reflect.DeepEqual(split, again) {
		t.Errorf("the same plan gave other ConfigMaps")
	}
	create(t, c, split)
	single, err := planconfigmap.Encode(data, ns, "single")
	if err != nil || len(single) != 1 {
		t.Fatalf("%d ConfigMaps for a small plan: %v", len(single), err)
	}
	create(t, c, single)
	create(t, c, []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: ns}, Data: map[string]string{planconfigmap.Key: string(data)}}})
	for _, name := range []string{"split", "single", "plain"} {
		got, digest, ref, err := incluster.LoadPlan(context.Background(), c, ns, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if digest != wantDigest || ref != "configmap:"+ns+"/"+name || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: digest %s ref %s, want the file's %s", name, digest, ref, wantDigest)
		}
	}
}

// TestPlanConfigMapsRefuseADamagedPlan: a missing part, a part of another
// plan, a part whose bytes changed and a ConfigMap without a plan are each
// refused as bad input with a one-line error naming how to recreate them.
func TestPlanConfigMapsRefuseADamagedPlan(t *testing.T) {
	c, ns := client(t)
	b, _ := applytest.FullPlan("dmg")
	_, data := planFile(t, b)
	other, _ := applytest.FullPlan("other")
	_, otherData := planFile(t, other)
	for _, tc := range []struct {
		name   string
		damage func(cms, others []*corev1.ConfigMap) []*corev1.ConfigMap
		want   string
	}{
		{"missing-part", func(cms, _ []*corev1.ConfigMap) []*corev1.ConfigMap { return append(cms[:1:1], cms[2:]...) }, "not found"},
		{"foreign-part", func(cms, others []*corev1.ConfigMap) []*corev1.ConfigMap {
			o := others[1].DeepCopy()
			o.Name = cms[1].Name
			return append([]*corev1.ConfigMap{cms[0], o}, cms[2:]...)
		}, "is not part 1"},
		{"changed-bytes", func(cms, _ []*corev1.ConfigMap) []*corev1.ConfigMap {
			last := cms[len(cms)-1].DeepCopy()
			last.BinaryData[planconfigmap.GzipKey] = last.BinaryData[planconfigmap.GzipKey][:len(last.BinaryData[planconfigmap.GzipKey])/2]
			return append(cms[:len(cms)-1:len(cms)-1], last)
		}, "decompressed"},
		{"no-plan", func(cms, _ []*corev1.ConfigMap) []*corev1.ConfigMap {
			return []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: cms[0].Name, Namespace: cms[0].Namespace}, Data: map[string]string{"x": "y"}}}
		}, "holds no plan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cms, err := planconfigmap.EncodeInParts(data, ns, tc.name, 1024)
			if err != nil {
				t.Fatal(err)
			}
			others, _ := planconfigmap.EncodeInParts(otherData, ns, tc.name, 1024)
			create(t, c, tc.damage(cms, others))
			_, _, _, err = incluster.LoadPlan(context.Background(), c, ns, tc.name)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("want one line mentioning %q, got %v", tc.want, err)
			}
			if tc.name != "missing-part" && !strings.Contains(err.Error(), "recreate them with 'recover apply --plan FILE --print-plan-configmap") {
				t.Errorf("%v does not say how to recreate the ConfigMaps", err)
			}
			var bad interface{ BadInput() bool }
			if tc.name != "missing-part" && (!errors.As(err, &bad) || !bad.BadInput()) {
				t.Errorf("%v does not classify as bad input", err)
			}
		})
	}
}

// TestPlanConfigMapWithoutAPlanSaysWhy: a ConfigMap that keeps why there is
// no plan (recover inspect --save-plan wrote it) reads as
// *planconfigmap.NoPlanError with that reason: nothing to apply, not bad
// input.
func TestPlanConfigMapWithoutAPlanSaysWhy(t *testing.T) {
	c, ns := client(t)
	create(t, c, []*corev1.ConfigMap{planconfigmap.NoPlan(ns, "nothing", "no plan: the verdict's answer is none")})
	_, _, _, err := incluster.LoadPlan(context.Background(), c, ns, "nothing")
	var none *planconfigmap.NoPlanError
	if !errors.As(err, &none) || none.Reason != "no plan: the verdict's answer is none" || none.Name != "nothing" || none.Namespace != ns {
		t.Fatalf("got %v, want a NoPlanError with the reason", err)
	}
	var bad interface{ BadInput() bool }
	if errors.As(err, &bad) {
		t.Errorf("%v classifies as bad input", err)
	}
}

// TestARealReleasePlanFitsItsConfigMaps keeps a plan that applies the
// manifests of the real 4.4 release payload (shared real data) in ConfigMaps and
// reads it back: its JSON passes the 1 MiB a ConfigMap holds, gzip'd it fits,
// and each ConfigMap stays under that limit; recover inspect --save-plan's
// store keeps it as well.
func TestARealReleasePlanFitsItsConfigMaps(t *testing.T) {
	dir := shareddata.RealData(t, "payload-release-4.4")
	c, ns := client(t)
	pl, err := payload.LoadDir(dir, payload.Options{Version: "4.4.4"})
	if err != nil {
		t.Fatal(err)
	}
	b := applytest.NewPlan().DisableCVO()
	for _, m := range pl.Included() {
		if strings.Contains(string(m.JSON), "{{") {
			// Grafana dashboards and Prometheus rules carry {{ }} of their own,
			// which apply's manifest check (apply/resource.Decode) takes for an
			// unrendered CVO template: 14 of 516 manifests left out.
			continue
		}
		if m.Delete {
			b.Delete(m.Object, nil)
		} else {
			b.Apply(m.Object, nil)
		}
	}
	b.RestoreCVO()
	path, data := planFile(t, b)
	_, wantDigest, err := planfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cms, err := planconfigmap.Encode(data, ns, "real")
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms {
		raw, _ := json.Marshal(cm)
		if len(raw) > 1<<20 {
			t.Errorf("ConfigMap %s is %d bytes encoded", cm.Name, len(raw))
		}
	}
	create(t, c, cms)
	p, digest, _, err := incluster.LoadPlan(context.Background(), c, ns, "real")
	if err != nil || digest != wantDigest || len(p.Steps) != len(b.Plan().Steps) {
		t.Fatalf("read back: %v, digest %s (want %s)", err, digest, wantDigest)
	}
	t.Logf("%d steps, plan %d bytes, %d ConfigMap(s)", len(p.Steps), len(data), len(cms))

	// recover inspect --save-plan keeps a plan this large the same way, and
	// apply --in-cluster reads it back whole.
	var doc bytes.Buffer
	if err := planfile.Encode(&doc, b.Plan()); err != nil {
		t.Fatal(err)
	}
	wantDigest = planfile.Digest(doc.Bytes())
	store := verdictstore.Store{Client: c, Namespace: ns, Name: verdict.DefaultName}
	saved, err := store.SavePlan(context.Background(), "big", b.Plan(), "")
	if err != nil || saved != wantDigest {
		t.Fatalf("SavePlan: digest %s (want the document's %s), %v", saved, wantDigest, err)
	}
	p, digest, _, err = incluster.LoadPlan(context.Background(), c, ns, verdict.PlanConfigMapName("big"))
	if err != nil || digest != wantDigest || len(p.Steps) != len(b.Plan().Steps) {
		t.Fatalf("the saved plan read back: %v, digest %s (want %s)", err, digest, wantDigest)
	}
}
