package live

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
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
	// The wedge facts.
	"PodDisruptionBudget":              {schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}, true, true},
	"CertificateSigningRequest":        {schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"}, false, true},
	"Machine":                          {schema.GroupVersionResource{Group: "machine.openshift.io", Version: "v1beta1", Resource: "machines"}, true, true},
	"ConfigMap":                        {schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, true, false},
	"Secret":                           {schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, true, false},
	"APIRequestCount":                  {schema.GroupVersionResource{Group: "apiserver.openshift.io", Version: "v1", Resource: "apirequestcounts"}, false, true},
	"ValidatingWebhookConfiguration":   {schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}, false, false},
	"MutatingWebhookConfiguration":     {schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}, false, false},
	"ValidatingAdmissionPolicy":        {schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}, false, false},
	"ValidatingAdmissionPolicyBinding": {schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"}, false, false},
	"EndpointSlice":                    {schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}, true, false},
	"CloudCredential":                  {schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "cloudcredentials"}, false, true},
}

// loadOrder sorts kinds for loading: namespaces first, admission webhooks and
// policies last (once they exist, the API server calls webhooks nobody serves).
func loadOrder(kind string) int {
	switch kind {
	case "Namespace":
		return 0
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
		return 2
	}
	return 1
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
	sort.SliceStable(objs, func(i, j int) bool { return loadOrder(objs[i].GetKind()) < loadOrder(objs[j].GetKind()) })
	saDone, nsDone := map[string]bool{}, map[string]bool{}
	for _, o := range objs {
		info, ok := gvrs[o.GetKind()]
		if !ok {
			t.Fatalf("loader: unknown kind %s", o.GetKind())
		}
		if o.GetKind() == "Namespace" {
			nsDone[o.GetName()] = true
		}
		if ns := o.GetNamespace(); info.namespaced && !nsDone[ns] {
			// Fixtures without the namespace's own file: create it.
			if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			nsDone[ns] = true
		}
		if o.GetKind() == "Pod" {
			sa, _, _ := unstructured.NestedString(o.Object, "spec", "serviceAccountName")
			if sa == "" {
				sa = "default"
			}
			for _, name := range []string{"installer-sa", sa} {
				if saDone[o.GetNamespace()+"/"+name] {
					continue
				}
				obj := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.GetNamespace()}}
				if _, err := kube.CoreV1().ServiceAccounts(o.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
					t.Fatal(err)
				}
				saDone[o.GetNamespace()+"/"+name] = true
			}
		}
		if o.GetKind() == "CertificateSigningRequest" {
			loadCSR(t, cfg, o)
			continue
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

// loadCSR creates a CSR as its requestor (the API server sets spec.username and
// groups from who creates it), then approves it and issues its certificate as
// its status says. A request the API server would refuse (not PKCS#10) is
// skipped: no cluster can hold it.
func loadCSR(t testing.TB, cfg *rest.Config, o *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	data, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var csr certificatesv1.CertificateSigningRequest
	if err := json.Unmarshal(data, &csr); err != nil {
		t.Fatal(err)
	}
	if block, _ := pem.Decode(csr.Spec.Request); block == nil {
		return
	}
	// Requestors may create CSRs (kubelets and the bootstrapper can, through
	// the default system:node-bootstrapper role).
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "recover-test-csr-requestors"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:node-bootstrapper"},
		Subjects: []rbacv1.Subject{{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "system:authenticated"}}}
	if _, err := kubernetes.NewForConfigOrDie(cfg).RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	as := rest.CopyConfig(cfg)
	groups := csr.Spec.Groups
	if !slices.Contains(groups, "system:authenticated") {
		groups = append(groups, "system:authenticated")
	}
	as.Impersonate = rest.ImpersonationConfig{UserName: csr.Spec.Username, Groups: groups}
	status := csr.Status
	csr.ObjectMeta = metav1.ObjectMeta{Name: csr.Name, Labels: csr.Labels, Annotations: csr.Annotations}
	csr.Status = certificatesv1.CertificateSigningRequestStatus{}
	// A new binding reaches the authorizer's cache a moment later.
	var created *certificatesv1.CertificateSigningRequest
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		created, err = kubernetes.NewForConfigOrDie(as).CertificatesV1().CertificateSigningRequests().Create(ctx, &csr, metav1.CreateOptions{})
		if apierrors.IsForbidden(err) {
			return false, nil
		}
		return true, err
	})
	if err != nil {
		t.Fatalf("loader: creating CSR %s as %s: %v", csr.Name, csr.Spec.Username, err)
	}
	admin := kubernetes.NewForConfigOrDie(cfg).CertificatesV1().CertificateSigningRequests()
	if len(status.Conditions) > 0 {
		for i := range status.Conditions {
			status.Conditions[i].LastUpdateTime = metav1.Now()
		}
		created.Status.Conditions = status.Conditions
		if created, err = admin.UpdateApproval(ctx, created.Name, created, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("loader: approving CSR %s: %v", csr.Name, err)
		}
	}
	if len(status.Certificate) > 0 {
		created.Status.Certificate = status.Certificate
		if _, err := admin.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("loader: issuing CSR %s: %v", csr.Name, err)
		}
	}
}

func runtimeDeepCopy(v any) any {
	return (&unstructured.Unstructured{Object: map[string]any{"v": v}}).DeepCopy().Object["v"]
}
