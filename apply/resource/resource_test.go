package resource

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planfile"
)

func TestRedactHashesSecretValues(t *testing.T) {
	s := applytest.Object(`{apiVersion: v1, kind: Secret, metadata: {name: s, annotations: {kubectl.kubernetes.io/last-applied-configuration: '{"data":{"k":"c2VjcmV0"}}'}}, data: {k: c2VjcmV0}, stringData: {p: plain}}`)
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
	d := Diff(applytest.Object(`{apiVersion: v1, kind: Secret, metadata: {name: s}, data: {k: b2xk}}`), s)
	if strings.Contains(d, "b2xk") || strings.Contains(d, "c2VjcmV0") || !strings.Contains(d, "redacted sha256:") {
		t.Errorf("diff leaks: %s", d)
	}
	cm := applytest.Object(`{apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {k: visible}}`)
	if !strings.Contains(Diff(nil, cm), "visible") {
		t.Errorf("ConfigMap values are shown")
	}
}

func TestDecodeChecksDigestAndIdentity(t *testing.T) {
	raw := json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}}`)
	d, _ := planfile.ManifestDigest(raw)
	indented := json.RawMessage("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"c\", \"namespace\": \"n\"}\n}")
	if d2, _ := planfile.ManifestDigest(indented); d2 != d {
		t.Errorf("the digest must not depend on indentation")
	}
	m := &planfile.Manifest{File: "f", APIVersion: "v1", Kind: "ConfigMap", Namespace: "n", Name: "c", Object: raw, Digest: d}
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
	td, _ := planfile.ManifestDigest(tmpl)
	// Template text in a release manifest is data: the CVO renders only its own
	// manifests/ and applies the rest as they are (pkg/payload/payload.go).
	got, err := Decode(&planfile.Manifest{APIVersion: "v1", Kind: "ConfigMap", Namespace: "n", Name: "c", Object: tmpl, Digest: td})
	if err != nil {
		t.Fatalf("a manifest holding {{ ... }} text must be applied as it is: %v", err)
	}
	if v, _, _ := unstructured.NestedString(got.Object, "data", "i"); v != "{{.ReleaseImage}}" {
		t.Errorf("the text must reach the cluster unchanged, got %q", v)
	}
}

func TestInjectProxyFollowsTheCVO(t *testing.T) {
	p := ProxyEnv{HTTPProxy: "http://p:3128", NoProxy: ".local"}
	d := applytest.Object(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: n, annotations: {config.openshift.io/inject-proxy: "op,init"}}, spec: {template: {spec: {initContainers: [{name: init}], containers: [{name: op, env: [{name: A, value: "1"}]}, {name: other}]}}}}`)
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

	missing := applytest.Object(`{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: d, namespace: n, annotations: {config.openshift.io/inject-proxy: ghost}}, spec: {template: {spec: {containers: [{name: op}]}}}}`)
	if err := injectProxy(missing, p); err == nil || !strings.Contains(err.Error(), `"ghost"`) {
		t.Errorf("naming a container the pod does not have is an error, got %v", err)
	}
	noProxy := applytest.Object(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, annotations: {config.openshift.io/inject-proxy: op}}, spec: {template: {spec: {containers: [{name: op}]}}}}`)
	if err := injectProxy(noProxy, ProxyEnv{}); err != nil || strings.Contains(fmtJSON(t, noProxy), "PROXY") {
		t.Errorf("without a cluster proxy nothing is injected: %v %s", err, fmtJSON(t, noProxy))
	}
	spaced := applytest.Object(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: n, annotations: {config.openshift.io/inject-proxy: "op, init"}}, spec: {template: {spec: {initContainers: [{name: init}], containers: [{name: op}]}}}}`)
	if err := injectProxy(spaced, p); err == nil || !strings.Contains(err.Error(), `" init"`) {
		t.Errorf("names are taken as written, as the CVO takes them (\" init\" is no container), got %v", err)
	}
	cm := applytest.Object(`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: n, annotations: {config.openshift.io/inject-proxy: op}}}`)
	if err := modify(cm, Facts{Proxy: p}); err != nil || strings.Contains(fmtJSON(t, cm), "PROXY") {
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
