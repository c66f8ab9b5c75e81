package live

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// gvrs maps the kinds of the example must-gathers to their resources.
var gvrs = map[string]struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	status     bool
}{
	"Namespace":             {schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, false, false},
	"Node":                  {schema.GroupVersionResource{Version: "v1", Resource: "nodes"}, false, true},
	"Pod":                   {schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true, true},
	"Deployment":            {schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true, true},
	"ClusterVersion":        {schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}, false, true},
	"ClusterOperator":       {schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}, false, true},
	"FeatureGate":           {schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "featuregates"}, false, true},
	"Infrastructure":        {schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "infrastructures"}, false, true},
	"KubeAPIServer":         {schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "kubeapiservers"}, false, true},
	"KubeControllerManager": {schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "kubecontrollermanagers"}, false, true},
	"KubeScheduler":         {schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "kubeschedulers"}, false, true},
	"Etcd":                  {schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "etcds"}, false, true},
	"MachineConfigPool":     {schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}, false, true},
	"MachineConfig":         {schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}, false, false},
}

// readMustGather returns every object of a must-gather directory, Lists expanded.
func readMustGather(t testing.TB, dir string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var obj map[string]any
		if err := yaml.Unmarshal(data, &obj); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if items, ok := obj["items"].([]any); ok {
			for _, it := range items {
				out = append(out, &unstructured.Unstructured{Object: it.(map[string]any)})
			}
			return nil
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// loadMustGather creates a must-gather's objects in a real apiserver, status
// included, the way a cluster would hold them: namespaces first, the installer
// ServiceAccounts the installer pods need, then objects, then their status
// (operator CRs' nodeStatuses in two writes, as the CRD's CEL rules require).
func loadMustGather(t testing.TB, cfg *rest.Config, dir string) {
	t.Helper()
	ctx := context.Background()
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{}
	dyn := dynamic.NewForConfigOrDie(cfg)
	kube := kubernetes.NewForConfigOrDie(cfg)
	objs := readMustGather(t, dir)
	sort.SliceStable(objs, func(i, j int) bool { return objs[i].GetKind() == "Namespace" && objs[j].GetKind() != "Namespace" })
	saDone := map[string]bool{}
	for _, o := range objs {
		info, ok := gvrs[o.GetKind()]
		if !ok {
			t.Fatalf("loader: unknown kind %s", o.GetKind())
		}
		if o.GetKind() == "Pod" && !saDone[o.GetNamespace()] {
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "installer-sa", Namespace: o.GetNamespace()}}
			if _, err := kube.CoreV1().ServiceAccounts(o.GetNamespace()).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			saDone[o.GetNamespace()] = true
		}
		status, hasStatus := o.Object["status"]
		obj := o.DeepCopy()
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation"} {
			unstructured.RemoveNestedField(obj.Object, "metadata", f)
		}
		delete(obj.Object, "status")
		var ri dynamic.ResourceInterface = dyn.Resource(info.gvr)
		if info.namespaced {
			ri = dyn.Resource(info.gvr).Namespace(o.GetNamespace())
		}
		created, err := ri.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("loader: creating %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
		if !info.status || !hasStatus || status == nil {
			continue
		}
		writeStatus := func(st any) {
			created.Object["status"] = st
			updated, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("loader: status of %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			}
			created = updated
		}
		if ns, ok, _ := unstructured.NestedSlice(o.Object, "status", "nodeStatuses"); ok && len(ns) > 0 {
			first := runtimeDeepCopy(status).(map[string]any)
			var bare []any
			for _, n := range ns {
				bare = append(bare, map[string]any{"nodeName": n.(map[string]any)["nodeName"]})
			}
			first["nodeStatuses"] = bare
			writeStatus(first)
		}
		writeStatus(status)
	}
}

func runtimeDeepCopy(v any) any {
	return (&unstructured.Unstructured{Object: map[string]any{"v": v}}).DeepCopy().Object["v"]
}
