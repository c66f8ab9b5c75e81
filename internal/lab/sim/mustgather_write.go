package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/internal/openshift"
)

// gatheredResource is one resource type WriteMustGather writes, with the kind of
// its list items.
type gatheredResource struct {
	gvr  schema.GroupVersionResource
	kind string
	// namespaces limits a namespaced resource to these namespaces (all when nil).
	namespaces []string
	// names limits it to these object names (all when nil).
	names []string
}

// gatheredClusterResources are the cluster-scoped types recover reads, each in
// cluster-scoped-resources/<group>/<resource>/<name>.yaml.
var gatheredClusterResources = []gatheredResource{
	{gvr: schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}, kind: "ClusterVersion"},
	{gvr: schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}, kind: "ClusterOperator"},
	{gvr: schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "featuregates"}, kind: "FeatureGate"},
	{gvr: schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "infrastructures"}, kind: "Infrastructure"},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, kind: "Node"},
	{gvr: schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}, kind: "MachineConfigPool"},
	{gvr: schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}, kind: "MachineConfig"},
	{gvr: staticPodGVR("kubeapiservers"), kind: "KubeAPIServer"},
	{gvr: staticPodGVR("kubecontrollermanagers"), kind: "KubeControllerManager"},
	{gvr: staticPodGVR("kubeschedulers"), kind: "KubeScheduler"},
	{gvr: staticPodGVR("etcds"), kind: "Etcd"},
	{gvr: schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"}, kind: "CertificateSigningRequest"},
	{gvr: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}, kind: "ValidatingWebhookConfiguration"},
	{gvr: schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}, kind: "MutatingWebhookConfiguration"},
}

// gatheredNamespacedResources are the namespaced types, each in
// namespaces/<ns>/<group>/<resource>.yaml lists.
var gatheredNamespacedResources = []gatheredResource{
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, kind: "Deployment"},
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, kind: "ReplicaSet"},
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, kind: "DaemonSet"},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, kind: "Pod"},
	{gvr: schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}, kind: "PodDisruptionBudget"},
	{gvr: machineGVR, kind: "Machine", namespaces: []string{openshift.MachineAPINamespace}},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, kind: "ConfigMap",
		namespaces: []string{openshift.AdminGatesNamespace, openshift.AdminAcksNamespace}, names: []string{openshift.AdminGatesConfigMap, openshift.AdminAcksConfigMap}},
}

// WriteMustGather writes what the simulated cluster holds now into dir in `oc adm
// inspect` layout, as `oc adm must-gather` would collect it: the cluster-scoped
// types recover reads (ClusterVersion, ClusterOperators, Nodes, pools, machine
// configs, the static-pod operators, CSRs, webhooks) one file per object, and per
// namespace its Deployments, ReplicaSets, DaemonSets, Pods and
// PodDisruptionBudgets, the Machine API's Machines and the admin-gate ConfigMaps
// as lists, each namespace's own object, and a timestamp file. Secrets are never
// read. Types the API server does not serve are left out. `recover inspect
// --must-gather DIR` then sees what a live inspect would, and Load reads it back.
func (s *Sim) WriteMustGather(ctx context.Context, dir string) error {
	for _, r := range gatheredClusterResources {
		items, err := s.listGathered(ctx, r, "")
		if err != nil {
			return err
		}
		for _, u := range items {
			path := filepath.Join(dir, "cluster-scoped-resources", groupDir(r.gvr.Group), r.gvr.Resource, u.GetName()+".yaml")
			if err := writeYAML(path, u.Object); err != nil {
				return err
			}
		}
	}
	byNS := map[string]map[string][]any{}
	for _, r := range gatheredNamespacedResources {
		namespaces := r.namespaces
		if namespaces == nil {
			namespaces = []string{""}
		}
		for _, ns := range namespaces {
			items, err := s.listGathered(ctx, r, ns)
			if err != nil {
				return err
			}
			for _, u := range items {
				file := filepath.Join(groupDir(r.gvr.Group), r.gvr.Resource+".yaml")
				if byNS[u.GetNamespace()] == nil {
					byNS[u.GetNamespace()] = map[string][]any{}
				}
				byNS[u.GetNamespace()][file] = append(byNS[u.GetNamespace()][file], u.Object)
			}
		}
	}
	for _, ns := range sortedKeys(byNS) {
		for _, file := range sortedKeys(byNS[ns]) {
			items := byNS[ns][file]
			first := items[0].(map[string]any)
			list := map[string]any{"apiVersion": first["apiVersion"], "kind": fmt.Sprint(first["kind"]) + "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items}
			if err := writeYAML(filepath.Join(dir, "namespaces", ns, file), list); err != nil {
				return err
			}
		}
		n, err := s.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("writing the must-gather: namespace %s: %w", ns, err)
		}
		n.SetManagedFields(nil)
		if err := writeYAML(filepath.Join(dir, "namespaces", ns, ns+".yaml"), n.Object); err != nil {
			return err
		}
	}
	now := time.Now().UTC()
	stamp := fmt.Sprintf("%s +0000 UTC m=+0.000000001\n", now.Format("2006-01-02 15:04:05.000000000"))
	return os.WriteFile(filepath.Join(dir, "timestamp"), []byte(stamp), 0o644)
}

// listGathered lists one gathered type (in ns, "" for all), without managed
// fields, sorted by namespace and name; a type the server does not serve gives
// nothing.
func (s *Sim) listGathered(ctx context.Context, r gatheredResource, ns string) ([]unstructured.Unstructured, error) {
	client := s.dyn.Resource(r.gvr)
	var list *unstructured.UnstructuredList
	var err error
	if ns != "" {
		list, err = client.Namespace(ns).List(ctx, metav1.ListOptions{})
	} else {
		list, err = client.List(ctx, metav1.ListOptions{})
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("writing the must-gather: listing %s: %w", r.gvr.Resource, err)
	}
	var out []unstructured.Unstructured
	for _, u := range list.Items {
		if r.names != nil && !slices.Contains(r.names, u.GetName()) {
			continue
		}
		u.SetManagedFields(nil)
		u.SetAPIVersion(r.gvr.GroupVersion().String())
		u.SetKind(r.kind)
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].GetNamespace()+"/"+out[i].GetName() < out[j].GetNamespace()+"/"+out[j].GetName()
	})
	return out, nil
}

// groupDir is oc adm inspect's directory for an API group ("core" for the core group).
func groupDir(group string) string {
	if group == "" {
		return "core"
	}
	return group
}

func writeYAML(path string, obj any) error {
	data, err := yaml.Marshal(obj)
	if err != nil {
		return fmt.Errorf("writing the must-gather: %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
