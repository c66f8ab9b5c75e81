package resource

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/plan"
)

func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRedactHashesSecretValues(t *testing.T) {
	s := obj(t, `{apiVersion: v1, kind: Secret, metadata: {name: s, annotations: {kubectl.kubernetes.io/last-applied-configuration: '{"data":{"k":"c2VjcmV0"}}'}}, data: {k: c2VjcmV0}, stringData: {p: plain}}`)
	r := Redact(s)
	text, _ := json.Marshal(r.Object)
	for _, leak := range []string{"c2VjcmV0", "plain", "secret"} {
		if strings.Contains(string(text), leak) {
			t.Errorf("redacted secret still contains %q: %s", leak, text)
		}
	}
	// sha256("secret"), the decoded value.
	if !strings.Contains(string(text), "redacted sha256:2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b") {
		t.Errorf("data values should be hashed after decoding: %s", text)
	}
	if s.Object["data"].(map[string]any)["k"] != "c2VjcmV0" {
		t.Errorf("Redact must not modify its input")
	}
	d := Diff(obj(t, `{apiVersion: v1, kind: Secret, metadata: {name: s}, data: {k: b2xk}}`), s)
	if strings.Contains(d, "b2xk") || strings.Contains(d, "c2VjcmV0") || !strings.Contains(d, "redacted sha256:") {
		t.Errorf("diff leaks: %s", d)
	}
	cm := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {k: visible}}`)
	if !strings.Contains(Diff(nil, cm), "visible") {
		t.Errorf("ConfigMap values are shown")
	}
}

func TestMergeFollowsTheCVO(t *testing.T) {
	a := &Applier{owner: Owner("cv-uid")}
	live := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: n, labels: {a: live, keep: me}, annotations: {x: "1"}, resourceVersion: "5"}, spec: {replicas: 3, paused: true}, status: {replicas: 3}}`)
	manifest := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: n, labels: {a: manifest}, annotations: {z: "2"}}, spec: {template: {}}}`)
	c := &Change{manifest: manifest}
	out := a.merge(c, live)
	if l := out.GetLabels(); l["a"] != "manifest" || l["keep"] != "me" {
		t.Errorf("labels must be added or overwritten, never removed: %v", l)
	}
	if an := out.GetAnnotations(); an["x"] != "1" || an["z"] != "2" {
		t.Errorf("annotations: %v", an)
	}
	if r, _, _ := unstructured.NestedInt64(out.Object, "spec", "replicas"); r != 1 {
		t.Errorf("a Deployment manifest without replicas defaults them to 1, got %d", r)
	}
	if _, found, _ := unstructured.NestedBool(out.Object, "spec", "paused"); found {
		t.Errorf("spec is taken from the manifest, not merged with live")
	}
	if out.GetResourceVersion() != "5" {
		t.Errorf("the update must carry the live resourceVersion")
	}
	refs := out.GetOwnerReferences()
	if len(refs) != 1 || refs[0].Kind != "ClusterVersion" || refs[0].Controller == nil || !*refs[0].Controller {
		t.Errorf("owner: %+v", refs)
	}
	c.opts.PreserveReplicas = true
	if r, _, _ := unstructured.NestedInt64(a.merge(c, live).Object, "spec", "replicas"); r != 3 {
		t.Errorf("PreserveReplicas keeps the live replicas, got %d", r)
	}

	// Another owner: no ClusterVersion reference; create-only: not controller.
	owned := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}`)
	owned.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: "x", UID: "other"}})
	a.ensureOwner(owned, false)
	if len(owned.GetOwnerReferences()) != 1 {
		t.Errorf("an object owned by something else gets no ClusterVersion owner: %+v", owned.GetOwnerReferences())
	}
	plain := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}`)
	a.ensureOwner(plain, true)
	if r := plain.GetOwnerReferences(); len(r) != 1 || *r[0].Controller {
		t.Errorf("create-only objects get a non-controller owner: %+v", r)
	}
}

func TestMergeLeavesAnExistingJobsSpecAlone(t *testing.T) {
	a := &Applier{owner: Owner("cv-uid")}
	live := obj(t, `{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: n, labels: {a: live}}, spec: {selector: {matchLabels: {controller-uid: u1}}, template: {metadata: {labels: {controller-uid: u1}}, spec: {containers: [{name: c, image: old}]}}}}`)
	manifest := obj(t, `{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: n, labels: {b: manifest}}, spec: {template: {spec: {containers: [{name: c, image: new}]}}}}`)
	out := a.merge(&Change{manifest: manifest}, live)
	if img, _, _ := unstructured.NestedSlice(out.Object, "spec", "template", "spec", "containers"); img[0].(map[string]any)["image"] != "old" {
		t.Errorf("an existing Job's spec is immutable and must be kept, got %v", img)
	}
	if sel, _, _ := unstructured.NestedString(out.Object, "spec", "selector", "matchLabels", "controller-uid"); sel != "u1" {
		t.Errorf("the generated selector must be kept, got %q", sel)
	}
	if l := out.GetLabels(); l["a"] != "live" || l["b"] != "manifest" {
		t.Errorf("a Job's labels are still merged: %v", l)
	}
}

func TestDecodeChecksDigestAndIdentity(t *testing.T) {
	raw := json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}}`)
	d, _ := plan.ManifestDigest(raw)
	indented := json.RawMessage("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"c\", \"namespace\": \"n\"}\n}")
	if d2, _ := plan.ManifestDigest(indented); d2 != d {
		t.Errorf("the digest must not depend on indentation")
	}
	m := &plan.Manifest{File: "f", APIVersion: "v1", Kind: "ConfigMap", Namespace: "n", Name: "c", Object: raw, Digest: d}
	if _, err := Decode(m); err != nil {
		t.Fatal(err)
	}
	edited := *m
	edited.Object = json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"},"data":{"x":"y"}}`)
	if _, err := Decode(&edited); err == nil || !strings.Contains(err.Error(), "edited") {
		t.Errorf("an edited manifest must be refused: %v", err)
	}
	wrong := *m
	wrong.Name = "other"
	if _, err := Decode(&wrong); err == nil {
		t.Errorf("identity mismatch must be refused")
	}
	tmpl := json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"},"data":{"i":"{{.ReleaseImage}}"}}`)
	td, _ := plan.ManifestDigest(tmpl)
	if _, err := Decode(&plan.Manifest{APIVersion: "v1", Kind: "ConfigMap", Namespace: "n", Name: "c", Object: tmpl, Digest: td}); err == nil || !strings.Contains(err.Error(), "template") {
		t.Errorf("unrendered templates must be refused: %v", err)
	}
}

func TestInjectProxyFollowsTheCVO(t *testing.T) {
	p := ProxyEnv{HTTPProxy: "http://p:3128", NoProxy: ".local"}
	d := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: n, annotations: {config.openshift.io/inject-proxy: "op, init"}}, spec: {template: {spec: {initContainers: [{name: init}], containers: [{name: op, env: [{name: A, value: "1"}]}, {name: other}]}}}}`)
	if err := injectProxy(d, p); err != nil {
		t.Fatal(err)
	}
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	env := containers[0].(map[string]any)["env"].([]any)
	if len(env) != 4 || env[1].(map[string]any)["name"] != "HTTP_PROXY" || env[3].(map[string]any)["value"] != ".local" {
		t.Errorf("the named container gets HTTP_PROXY, HTTPS_PROXY, NO_PROXY after its own env: %v", env)
	}
	if _, ok := containers[1].(map[string]any)["env"]; ok {
		t.Errorf("an unnamed container is left alone: %v", containers[1])
	}
	inits, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "initContainers")
	if len(inits[0].(map[string]any)["env"].([]any)) != 3 {
		t.Errorf("init containers are injected too: %v", inits)
	}

	missing := obj(t, `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: d, namespace: n, annotations: {config.openshift.io/inject-proxy: ghost}}, spec: {template: {spec: {containers: [{name: op}]}}}}`)
	if err := injectProxy(missing, p); err == nil || !strings.Contains(err.Error(), `"ghost"`) {
		t.Errorf("naming a container the pod does not have is an error, got %v", err)
	}
	noProxy := obj(t, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, annotations: {config.openshift.io/inject-proxy: op}}, spec: {template: {spec: {containers: [{name: op}]}}}}`)
	if err := injectProxy(noProxy, ProxyEnv{}); err != nil || strings.Contains(fmtJSON(t, noProxy), "PROXY") {
		t.Errorf("without a cluster proxy nothing is injected: %v %s", err, fmtJSON(t, noProxy))
	}
	cm := obj(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, annotations: {config.openshift.io/inject-proxy: op}}}`)
	if err := injectProxy(cm, p); err != nil || strings.Contains(fmtJSON(t, cm), "PROXY") {
		t.Errorf("only Deployments and DaemonSets are injected: %v", err)
	}
}

func TestMaskURLCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"value: http://user:pw@proxy:3128":     "value: http://***@proxy:3128",
		"https://token@registry.example/x":     "https://***@registry.example/x",
		"http://proxy:3128 and a@b.example":    "http://proxy:3128 and a@b.example",
		`"http://u:p@h" and "https://v:q@k/p"`: `"http://***@h" and "https://***@k/p"`,
		"no url here user:pass@host":           "no url here user:pass@host",
	} {
		if got := maskURLCredentials(in); got != want {
			t.Errorf("maskURLCredentials(%q) = %q, want %q", in, got, want)
		}
	}
}

func fmtJSON(t *testing.T, u *unstructured.Unstructured) string {
	t.Helper()
	b, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
