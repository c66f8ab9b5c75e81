package resource

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// InjectProxyAnnotation names, on a Deployment or DaemonSet manifest, the
// containers (comma-separated) into which the CVO injects the cluster proxy.
const InjectProxyAnnotation = "config.openshift.io/inject-proxy"

// ProxyEnv is the cluster-wide proxy the CVO injects: config.openshift.io/v1
// Proxy "cluster", status.httpProxy, httpsProxy and noProxy.
type ProxyEnv struct {
	HTTPProxy, HTTPSProxy, NoProxy string
}

// IsSet reports whether any proxy variable has a value; the CVO injects nothing
// otherwise.
func (p ProxyEnv) IsSet() bool { return p.HTTPProxy != "" || p.HTTPSProxy != "" || p.NoProxy != "" }

var proxies = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "proxies"}

// ReadProxy reads the cluster proxy. A cluster without the Proxy resource (or
// without its CRD) has no proxy.
func ReadProxy(ctx context.Context, dyn dynamic.Interface) (ProxyEnv, error) {
	u, err := dyn.Resource(proxies).Get(ctx, "cluster", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return ProxyEnv{}, nil
	case err != nil:
		return ProxyEnv{}, fmt.Errorf("reading the cluster proxy (proxies.config.openshift.io/cluster): %w", err)
	}
	str := func(f string) string { v, _, _ := unstructured.NestedString(u.Object, "status", f); return v }
	return ProxyEnv{HTTPProxy: str("httpProxy"), HTTPSProxy: str("httpsProxy"), NoProxy: str("noProxy")}, nil
}

// injectProxy does what the CVO's Deployment and DaemonSet builders do for a
// manifest annotated with InjectProxyAnnotation (lib/resourcebuilder/apps.go
// modifyDeployment, modifyDaemonSet; podspec.go updatePodSpecWithProxy): when
// the cluster has a proxy, HTTP_PROXY, HTTPS_PROXY and NO_PROXY are appended
// to the env of every container and init container named in the annotation
// (split on ",", names taken as written). Without it, applying such a manifest
// on a proxied cluster would strip the proxy from the running operator. Naming
// a container the pod does not have is an error, as it is for the CVO.
func injectProxy(u *unstructured.Unstructured, p ProxyEnv) error {
	names := u.GetAnnotations()[InjectProxyAnnotation]
	if names == "" || !p.IsSet() {
		return nil
	}
	env := []any{
		map[string]any{"name": "HTTP_PROXY", "value": p.HTTPProxy},
		map[string]any{"name": "HTTPS_PROXY", "value": p.HTTPSProxy},
		map[string]any{"name": "NO_PROXY", "value": p.NoProxy},
	}
	return forContainers(u, strings.Split(names, ","), func(c map[string]any) {
		existing, _ := c["env"].([]any)
		c["env"] = append(append([]any{}, existing...), runtimeDeepCopy(env).([]any)...)
	})
}

// forContainers calls do on every container and init container of a
// workload's pod template with one of names; a name no container has is an
// error (podspec.go: "requested injection for non-existent container").
func forContainers(u *unstructured.Unstructured, names []string, do func(c map[string]any)) error {
	for _, name := range names {
		found := false
		for _, field := range []string{"containers", "initContainers"} {
			list, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", field)
			for i, c := range list {
				cm, ok := c.(map[string]any)
				if !ok || cm["name"] != name {
					continue
				}
				found = true
				do(cm)
				list[i] = cm
			}
			if len(list) > 0 {
				if err := unstructured.SetNestedSlice(u.Object, list, "spec", "template", "spec", field); err != nil {
					return err
				}
			}
		}
		if !found {
			return fmt.Errorf("%s %s/%s: the CVO's injection names container %q, which the pod template does not have",
				u.GetKind(), u.GetNamespace(), u.GetName(), name)
		}
	}
	return nil
}

// urlCredentials matches the user:password part of a URL ("http://u:p@proxy:3128").
var urlCredentials = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s"']+@`)

// maskURLCredentials hides credentials embedded in URLs (proxy URLs carry them),
// so diffs, events and the journal never show them.
func maskURLCredentials(s string) string {
	return urlCredentials.ReplaceAllString(s, "${1}***@")
}
