package incluster_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/incluster"
)

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		access []apply.Access
		want   []rbacv1.PolicyRule
	}{
		{"verbs of one resource are one rule", []apply.Access{
			{Verb: "get", Group: "apps", Resource: "deployments"}, {Verb: "patch", Group: "apps", Resource: "deployments"}, {Verb: "get", Group: "apps", Resource: "deployments"},
		}, []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "patch"}}}},
		{"resources with the same verbs share a rule; other verbs get their own", []apply.Access{
			{Verb: "get", Resource: "configmaps"}, {Verb: "create", Resource: "configmaps"},
			{Verb: "create", Resource: "secrets"}, {Verb: "get", Resource: "secrets"},
			{Verb: "list", Resource: "pods"},
		}, []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"create", "get"}},
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}},
		}},
		{"a subresource and a named object keep their own rule", []apply.Access{
			{Verb: "update", Group: "certificates.k8s.io", Resource: "certificatesigningrequests", Subresource: "approval"},
			{Verb: "approve", Group: "certificates.k8s.io", Resource: "signers", Name: "kubernetes.io/kube-apiserver-client-kubelet"},
			{Verb: "get", Group: "certificates.k8s.io", Resource: "certificatesigningrequests"},
		}, []rbacv1.PolicyRule{
			{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests"}, Verbs: []string{"get"}},
			{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests/approval"}, Verbs: []string{"update"}},
			{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, Verbs: []string{"approve"}, ResourceNames: []string{"kubernetes.io/kube-apiserver-client-kubelet"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := incluster.Rules(tc.access); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestRBACGrantsPerNamespaceWhereItCan: permissions in a namespace that exists
// go to a Role there, cluster-wide ones and those in a namespace the plan
// creates to the ClusterRole; every binding names the run's ServiceAccount.
func TestRBACGrantsPerNamespaceWhereItCan(t *testing.T) {
	access := []apply.Access{
		{Verb: "get", Group: "config.openshift.io", Resource: "clusterversions"},
		{Verb: "patch", Group: "apps", Resource: "deployments", Namespace: "openshift-cluster-version"},
		{Verb: "create", Resource: "configmaps", Namespace: "openshift-new"},
		{Verb: "create", Resource: "configmaps", Namespace: "openshift-recover"},
	}
	// Neither openshift-new nor the run's own namespace exists yet: the run's
	// is created with it, the plan's is not.
	objs := incluster.RBAC(access, incluster.RBACOptions{Namespace: "openshift-recover", NamespaceExists: func(ns string) bool { return ns != "openshift-new" && ns != "openshift-recover" }})
	var kinds []string
	for _, o := range objs {
		kinds = append(kinds, o.GetObjectKind().GroupVersionKind().Kind)
	}
	if got := strings.Join(kinds, " "); got != "Namespace ServiceAccount ClusterRole ClusterRoleBinding Role RoleBinding Role RoleBinding" {
		t.Fatalf("objects: %s", got)
	}
	cr := objs[2].(*rbacv1.ClusterRole)
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}},
		{APIGroups: []string{"config.openshift.io"}, Resources: []string{"clusterversions"}, Verbs: []string{"get"}},
	}
	if !reflect.DeepEqual(cr.Rules, want) {
		t.Errorf("ClusterRole rules %+v, want %+v", cr.Rules, want)
	}
	if r := objs[4].(*rbacv1.Role); r.Namespace != "openshift-cluster-version" || r.Rules[0].Resources[0] != "deployments" {
		t.Errorf("first Role: %+v", r)
	}
	if r := objs[6].(*rbacv1.Role); r.Namespace != "openshift-recover" || r.Rules[0].Resources[0] != "configmaps" {
		t.Errorf("the run's own Role: %+v", r)
	}
	for _, o := range objs {
		var subjects []rbacv1.Subject
		switch b := o.(type) {
		case *rbacv1.ClusterRoleBinding:
			subjects = b.Subjects
		case *rbacv1.RoleBinding:
			subjects = b.Subjects
		default:
			continue
		}
		if len(subjects) != 1 || subjects[0].Kind != "ServiceAccount" || subjects[0].Name != "recover" || subjects[0].Namespace != "openshift-recover" {
			t.Errorf("%T binds %+v", o, subjects)
		}
	}
	var buf bytes.Buffer
	if err := incluster.WriteManifests(&buf, []runtime.Object{objs[1], objs[2]}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Count(out, "\n---\n") != 1 || strings.Contains(out, "creationTimestamp") || !strings.Contains(out, "kind: ClusterRole\n") {
		t.Errorf("manifests:\n%s", out)
	}
}
