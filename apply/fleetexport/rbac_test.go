package fleetexport

import (
	"maps"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// TestRBACOfTheInspectJob: reads go cluster-wide except Secrets and
// ConfigMaps, which stay in their namespaces, Secrets only listed; the verdict
// ConfigMaps are written in recover's namespace only; nothing else is granted.
func TestRBACOfTheInspectJob(t *testing.T) {
	o := Options{Namespace: "recover", Wave: "w1"}
	objs := rbac(o, "recover-inspect", "recover-inspect", InspectAccess(o.Namespace))
	var cluster *rbacv1.ClusterRole
	roles := map[string]*rbacv1.Role{}
	for _, obj := range objs {
		switch x := obj.(type) {
		case *rbacv1.ClusterRole:
			cluster = x
		case *rbacv1.Role:
			roles[x.Namespace] = x
		case *rbacv1.ClusterRoleBinding:
			if x.RoleRef.Name != "recover-inspect" || len(x.Subjects) != 1 || x.Subjects[0].Namespace != "recover" {
				t.Errorf("binding %+v", x)
			}
		}
	}
	if cluster == nil {
		t.Fatal("no ClusterRole")
	}
	for _, r := range cluster.Rules {
		if !slices.Equal(r.Verbs, []string{"get", "list", "watch"}) {
			t.Errorf("cluster-wide rule %+v grants more than reads", r)
		}
		for _, res := range r.Resources {
			if res == "secrets" || res == "configmaps" {
				t.Errorf("cluster-wide %s", res)
			}
		}
	}
	for ns, role := range roles {
		for _, r := range role.Rules {
			for _, res := range r.Resources {
				switch {
				case res == "secrets" && slices.Equal(r.Verbs, []string{"list"}):
				case res == "configmaps" && ns == "recover" && slices.Equal(r.Verbs, []string{"create", "get", "update"}):
				case res == "configmaps" && slices.Equal(r.Verbs, []string{"get", "list", "watch"}):
				default:
					t.Errorf("role in %s grants %v on %s", ns, r.Verbs, res)
				}
			}
		}
	}
	if roles["recover"] == nil || roles["openshift-config"] == nil || roles["openshift-kube-apiserver-operator"] == nil {
		t.Errorf("roles in %v", slices.Collect(maps.Keys(roles)))
	}
}

func TestRulesMergeAndSubsume(t *testing.T) {
	o := Options{Namespace: "recover"}
	objs := rbac(o, "x", "x", []Access{
		{Group: "apps", Resource: "deployments", Verbs: []string{"get", "list"}},
		{Group: "apps", Resource: "deployments", Namespace: "ns1", Verbs: []string{"get"}},
		{Group: "apps", Resource: "deployments", Namespace: "ns2", Verbs: []string{"patch"}},
		{Group: "apps", Resource: "daemonsets", Verbs: []string{"list", "get"}},
		{Group: "certificates.k8s.io", Resource: "signers", Verbs: []string{"approve"}, ResourceNames: []string{"kubernetes.io/kubelet-serving"}},
	})
	cr := objs[0].(*rbacv1.ClusterRole)
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{"apps"}, Resources: []string{"daemonsets", "deployments"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, Verbs: []string{"approve"}, ResourceNames: []string{"kubernetes.io/kubelet-serving"}},
	}
	if len(cr.Rules) != len(want) {
		t.Fatalf("rules %+v", cr.Rules)
	}
	for i := range want {
		if !slices.Equal(cr.Rules[i].Resources, want[i].Resources) || !slices.Equal(cr.Rules[i].Verbs, want[i].Verbs) || !slices.Equal(cr.Rules[i].ResourceNames, want[i].ResourceNames) {
			t.Errorf("rule %d: %+v, want %+v", i, cr.Rules[i], want[i])
		}
	}
	// ns1's get is granted cluster-wide already; ns2's patch is not.
	if len(objs) != 4 || objs[2].(*rbacv1.Role).Namespace != "ns2" {
		t.Errorf("objects %d: %+v", len(objs), objs)
	}
}
