package apply_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// On a proxied cluster the CVO injects the cluster proxy into the containers a
// Deployment's config.openshift.io/inject-proxy names. Applying the manifest
// without doing the same would strip the proxy from the running operator; and the
// proxy URL's credentials must never show in the diff.
func TestApplyInjectsTheClusterProxyAndHidesItsCredentials(t *testing.T) {
	c, ctx := setup(t)
	dir, err := kubetest.OpenShiftAPIDir()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "config/v1/zz_generated.crd-manifests/0000_03_config-operator_01_proxies.crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	if err := kubetest.InstallCRDs(ctx, c.env.Config, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
		t.Fatal(err)
	}
	const secretURL = "http://proxyuser:s3cr3t-pw@proxy.example:3128"
	proxy, err := c.OSConfig.ConfigV1().Proxies().Create(ctx, &configv1.Proxy{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.OSConfig.ConfigV1().Proxies().Delete(ctx, "cluster", metav1.DeleteOptions{}) })
	proxy.Status = configv1.ProxyStatus{HTTPProxy: secretURL, HTTPSProxy: secretURL, NoProxy: ".cluster.local,10.0.0.0/16"}
	if _, err := c.OSConfig.ConfigV1().Proxies().UpdateStatus(ctx, proxy, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	ns := "proxy-inject"
	mustApply := func(obj map[string]any) *resource.Change {
		t.Helper()
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		digest, err := planfile.ManifestDigest(raw)
		if err != nil {
			t.Fatal(err)
		}
		md := obj["metadata"].(map[string]any)
		m := &planfile.Manifest{File: "0000_50_test_deployment.yaml", APIVersion: obj["apiVersion"].(string), Kind: obj["kind"].(string),
			Name: md["name"].(string), Object: raw, Digest: digest}
		if n, ok := md["namespace"].(string); ok {
			m.Namespace = n
		}
		a := resource.NewApplier(dynamic.NewForConfigOrDie(c.env.Config), resource.NewMapper(discovery.NewDiscoveryClientForConfigOrDie(c.env.Config)), nil)
		ch, err := a.Prepare(ctx, m, resource.PrepareOptions{})
		if err != nil {
			t.Fatalf("prepare %s: %v", m.Name, err)
		}
		if _, err := a.Commit(ctx, ch); err != nil {
			t.Fatalf("commit %s: %v", m.Name, err)
		}
		return ch
	}
	mustApply(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}})
	deployment := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "proxied-operator", "namespace": ns,
			"annotations": map[string]any{resource.InjectProxyAnnotation: "operator"}},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": "p"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "p"}},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "operator", "image": "registry.example/op:1", "env": []any{map[string]any{"name": "RELEASE_VERSION", "value": "4.4.4"}}},
					map[string]any{"name": "sidecar", "image": "registry.example/side:1"},
				}},
			},
		},
	}
	change := mustApply(deployment)

	live, err := c.Kube.AppsV1().Deployments(ns).Get(ctx, "proxied-operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, e := range live.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	if env["HTTP_PROXY"] != secretURL || env["HTTPS_PROXY"] != secretURL || env["NO_PROXY"] != ".cluster.local,10.0.0.0/16" || env["RELEASE_VERSION"] != "4.4.4" {
		t.Errorf("operator container env: %v, want the manifest's plus the cluster proxy", env)
	}
	if n := len(live.Spec.Template.Spec.Containers[1].Env); n != 0 {
		t.Errorf("a container the annotation does not name got %d env vars", n)
	}
	if strings.Contains(change.Diff, "s3cr3t-pw") || strings.Contains(change.Diff, "proxyuser") {
		t.Errorf("the diff shows the proxy credentials:\n%s", change.Diff)
	}
	if !strings.Contains(change.Diff, "http://***@proxy.example:3128") {
		t.Errorf("the diff should show the proxy with its credentials masked:\n%s", change.Diff)
	}

	// Applying the same manifest again changes nothing: the injected proxy is what
	// the live object already has.
	if again := mustApply(deployment); again.Operation != resource.OpUnchanged {
		t.Errorf("re-applying: operation %s, want unchanged; diff:\n%s", again.Operation, again.Diff)
	}
}
