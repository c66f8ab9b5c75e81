package fleetexport

import (
	"cmp"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/inspect/live"
)

// Access is one permission: verbs on a resource, in a namespace ("" for every
// namespace, or a cluster-scoped resource), optionally on named objects only.
type Access struct {
	Group, Resource, Namespace string
	Verbs                      []string
	ResourceNames              []string
}

// InspectAccess is what the inspect Job needs: read everything the live source
// reads (live.Reads) and keep the verdict and the plan in its namespace.
func InspectAccess(ns string) []Access {
	var out []Access
	for _, r := range live.Reads() {
		out = append(out, Access{Group: r.Resource.Group, Resource: r.Resource.Resource, Namespace: r.Namespace, Verbs: live.ReadVerbs(r.Resource)})
	}
	return append(out, Access{Resource: "configmaps", Namespace: ns, Verbs: []string{"get", "create", "update"}})
}

// rbac turns accesses into a ClusterRole and ClusterRoleBinding (the
// cluster-wide ones) and a Role and RoleBinding per namespace, all named name
// and bound to the service account sa, in that order, namespaces sorted.
//
// A read (get, list, watch) of anything but Secrets and ConfigMaps is granted
// cluster-wide: a namespace a cluster's capabilities leave out (no
// openshift-machine-api) must not fail the template, and such reads reveal
// nothing a namespace boundary protects. A namespaced permission the
// cluster-wide ones already grant is left out.
func rbac(o Options, name, sa string, accesses []Access) []runtime.Object {
	cluster := map[ruleKey][]string{}
	byNS := map[string]map[ruleKey][]string{}
	var namespaced []Access
	for _, a := range accesses {
		if a.Namespace != "" && readOnly(a.Verbs) && a.Resource != "secrets" && a.Resource != "configmaps" {
			a.Namespace = ""
		}
		if a.Namespace != "" {
			namespaced = append(namespaced, a)
			continue
		}
		k := ruleKey{a.Group, a.Resource, strings.Join(a.ResourceNames, ",")}
		cluster[k] = union(cluster[k], a.Verbs)
	}
	for _, a := range namespaced {
		k := ruleKey{a.Group, a.Resource, strings.Join(a.ResourceNames, ",")}
		if subset(a.Verbs, cluster[ruleKey{a.Group, a.Resource, ""}]) {
			continue
		}
		if byNS[a.Namespace] == nil {
			byNS[a.Namespace] = map[ruleKey][]string{}
		}
		byNS[a.Namespace][k] = union(byNS[a.Namespace][k], a.Verbs)
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: o.Namespace}}
	l := labels(o)
	var out []runtime.Object
	if len(cluster) > 0 {
		out = append(out,
			&rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}, Rules: rules(cluster)},
			&rbacv1.ClusterRoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}, Subjects: subject,
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}})
	}
	namespaces := make([]string, 0, len(byNS))
	for ns := range byNS {
		namespaces = append(namespaces, ns)
	}
	slices.Sort(namespaces)
	for _, ns := range namespaces {
		out = append(out,
			&rbacv1.Role{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: l}, Rules: rules(byNS[ns])},
			&rbacv1.RoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: l}, Subjects: subject,
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}})
	}
	return out
}

func readOnly(verbs []string) bool {
	return subset(verbs, []string{"get", "list", "watch"})
}

func subset(a, b []string) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	return true
}

func union(a, b []string) []string {
	for _, v := range b {
		if !slices.Contains(a, v) {
			a = append(a, v)
		}
	}
	return a
}

type ruleKey struct{ group, resource, names string }

// rules lists one rule per API group, verbs and object names, with every
// resource they apply to, sorted.
func rules(m map[ruleKey][]string) []rbacv1.PolicyRule {
	type merged struct{ group, verbs, names string }
	byKey := map[merged]*rbacv1.PolicyRule{}
	var order []merged
	for k, verbs := range m {
		v := slices.Clone(verbs)
		slices.Sort(v)
		mk := merged{k.group, strings.Join(v, ","), k.names}
		r := byKey[mk]
		if r == nil {
			r = &rbacv1.PolicyRule{APIGroups: []string{k.group}, Verbs: v}
			if k.names != "" {
				r.ResourceNames = strings.Split(k.names, ",")
			}
			byKey[mk] = r
			order = append(order, mk)
		}
		r.Resources = append(r.Resources, k.resource)
	}
	slices.SortFunc(order, func(a, b merged) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.verbs, b.verbs), cmp.Compare(a.names, b.names))
	})
	out := make([]rbacv1.PolicyRule, 0, len(order))
	for _, k := range order {
		r := *byKey[k]
		slices.Sort(r.Resources)
		out = append(out, r)
	}
	return out
}
