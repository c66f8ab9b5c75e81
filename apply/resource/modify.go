package resource

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/openshift-recover/recover/internal/openshift"
)

// cvoContainer is the CVO Deployment's container the CVO points at the internal
// API load balancer (pkg/external DefaultContainerName).
const cvoContainer = "cluster-version-operator"

var infrastructures = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "infrastructures"}

// modify applies the CVO's per-kind modifications to a manifest before it is
// merged (lib/resourcebuilder/apps.go modifyDeployment, modifyDaemonSet): the
// cluster proxy for annotated workloads and, on the CVO's own Deployment, the
// internal API endpoint. A ConfigMap asking for the TLS profile is refused
// (checkInjectTLS).
func modify(u *unstructured.Unstructured, facts Facts) error {
	gvk := u.GroupVersionKind()
	data, _ := u.Object["data"].(map[string]any)
	if err := checkInjectTLS(gvk.Kind, u.GetNamespace(), u.GetName(), u.GetAnnotations(), gvk.Group == "" && data != nil); err != nil {
		return err
	}
	if gvk.Group != "apps" || gvk.Version != "v1" || (gvk.Kind != "Deployment" && gvk.Kind != "DaemonSet") {
		return nil
	}
	if err := injectProxy(u, facts.Proxy); err != nil {
		return err
	}
	if gvk.Kind == "Deployment" && u.GetNamespace() == openshift.CVONamespace && u.GetName() == openshift.CVODeployment {
		return injectInternalAPI(u, facts.APIServerInternalURL)
	}
	return nil
}

// injectInternalAPI points the CVO's container at the internal API load
// balancer, so that the CVO rides out kube-apiserver rollouts: its
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT (443 when the URL has no
// port) are set or added (lib/resourcebuilder/apps.go modifyDeployment,
// podspec.go updatePodSpecWithInternalLoadBalancerKubeService,
// setKubeServiceValue). Without an Infrastructure the manifest is left alone.
func injectInternalAPI(u *unstructured.Unstructured, internalURL string) error {
	if internalURL == "" {
		return nil
	}
	lb, err := url.Parse(internalURL)
	if err != nil {
		return fmt.Errorf("Infrastructure cluster status.apiServerInternalURI %q: %w", internalURL, err)
	}
	host, port, err := net.SplitHostPort(lb.Host)
	if err != nil {
		if !strings.Contains(err.Error(), "missing port in address") {
			return fmt.Errorf("Infrastructure cluster status.apiServerInternalURI %q: %w", internalURL, err)
		}
		host, port = lb.Host, ""
	}
	if host == "" {
		return nil
	}
	if port == "" {
		port = "443"
	}
	return forContainers(u, []string{cvoContainer}, func(c map[string]any) {
		env, _ := c["env"].([]any)
		var out []any
		seen := map[string]bool{}
		for _, e := range env {
			em, ok := e.(map[string]any)
			if ok {
				em = runtimeDeepCopy(em).(map[string]any)
				switch em["name"] {
				case "KUBERNETES_SERVICE_PORT":
					em["value"], seen["port"] = port, true
				case "KUBERNETES_SERVICE_HOST":
					em["value"], seen["host"] = host, true
				}
				out = append(out, em)
				continue
			}
			out = append(out, e)
		}
		if !seen["port"] {
			out = append(out, map[string]any{"name": "KUBERNETES_SERVICE_PORT", "value": port})
		}
		if !seen["host"] {
			out = append(out, map[string]any{"name": "KUBERNETES_SERVICE_HOST", "value": host})
		}
		c["env"] = out
	})
}

// ReadInternalAPI reads Infrastructure/cluster's internal API URL, stored as
// status.apiServerInternalURI (openshift/api config/v1 types_infrastructure.go:
// the Go field APIServerInternalURL has the JSON name apiServerInternalURI, as
// real clusters' Infrastructure objects show); a cluster without it (or without
// the Infrastructure kind) has none, and the CVO then leaves its Deployment's
// endpoint alone.
func ReadInternalAPI(ctx context.Context, dyn dynamic.Interface) (string, error) {
	u, err := dyn.Resource(infrastructures).Get(ctx, openshift.SingletonName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("reading infrastructures.config.openshift.io/cluster: %w", err)
	}
	v, _, _ := unstructured.NestedString(u.Object, "status", "apiServerInternalURI")
	return v, nil
}
