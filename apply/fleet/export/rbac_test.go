package export

import (
	"maps"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// TestRBACOfTheInspectJob: reads (list) go cluster-wide except Secrets and
// ConfigMaps, which stay in their namespaces; the verdict's ConfigMaps are
// written in recover's namespace only; nothing else is granted.
func TestRBACOfTheInspectJob(t *testing.T) {
	o := Options{Namespace: "recover", Wave: "w1"}
	objs := roles(o, "recover-inspect", "inspect", InspectAccess(o.Namespace))
	var cluster *rbacv1.ClusterRole
	roles := map[string]*rbacv1.Role{}
	for _, obj := range objs {
		switch x := obj.(type) {
		case *rbacv1.ClusterRole:
			cluster = x
		case *rbacv1.Role:
			roles[x.Namespace] = x
		case *rbacv1.ClusterRoleBinding:
			if x.RoleRef.Name != "recover-inspect" || len(x.Subjects) != 1 || x.Subjects[0].Name != "recover-inspect" || x.Subjects[0].Namespace != "recover" {
				t.Errorf("binding %+v", x)
			}
		}
	}
	if cluster == nil {
		t.Fatal("no ClusterRole")
	}
	if cluster.Labels["recover.openshift.io/wave"] != "w1" || cluster.Labels["app.kubernetes.io/component"] != "inspect" {
		t.Errorf("ClusterRole labels %v", cluster.Labels)
	}
	for _, r := range cluster.Rules {
		if !slices.Equal(r.Verbs, []string{"list"}) {
			t.Errorf("cluster-wide rule %+v grants more than lists", r)
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
				case res == "configmaps" && slices.Equal(r.Verbs, []string{"list"}):
				default:
					t.Errorf("role in %s grants %v on %s", ns, r.Verbs, res)
				}
			}
		}
	}
	if roles["recover"] == nil || roles["openshift-config"] == nil || roles["openshift-kube-apiserver-operator"] == nil || roles["openshift-machine-api"] != nil {
		t.Errorf("roles in %v", slices.Sorted(maps.Keys(roles)))
	}
}
