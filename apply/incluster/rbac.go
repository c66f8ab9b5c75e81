package incluster

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/apply"
)

// Defaults of the generated RBAC.
const (
	// DefaultServiceAccount is the ServiceAccount the Job's pods run as.
	DefaultServiceAccount = "recover"
	// DefaultRBACName names the ClusterRole, the Roles and their bindings.
	DefaultRBACName = "recover-apply"
)

// RBACOptions say whom the RBAC is for.
type RBACOptions struct {
	// Namespace is the run's namespace (its ServiceAccount, plan and journal).
	Namespace string
	// ServiceAccount is the account the Job's pods run as (DefaultServiceAccount).
	ServiceAccount string
	// Name names the ClusterRole, the Roles and the bindings (DefaultRBACName).
	Name string
	// NamespaceExists reports whether a namespace exists now. A Role can only be
	// bound in a namespace that exists, so the permissions in a namespace the
	// plan itself creates are granted cluster-wide (nil: every namespace exists).
	NamespaceExists func(namespace string) bool
}

// PreflightAccess is what preflight itself uses to ask which permissions the
// run has: a SelfSubjectAccessReview per permission.
var PreflightAccess = []apply.Access{{Verb: "create", Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}}

// RBAC renders the permissions a run needs (apply.Engine.RequiredAccess, the
// list preflight checks, plus PreflightAccess and, when the run checks the
// plan's staleness, FingerprintAccess) as the objects that grant them to the
// run's ServiceAccount and nothing more: the run's Namespace and its
// ServiceAccount; a Role and a
// RoleBinding in every namespace the run touches; a ClusterRole and a
// ClusterRoleBinding for the cluster-scoped resources, the permissions across
// namespaces and those in namespaces that do not exist yet. Verbs are exactly
// preflight's, per resource; a permission on a named object (a CSR signer) is
// granted on that name only. The objects come in a fixed order.
func RBAC(access []apply.Access, o RBACOptions) []runtime.Object {
	if o.ServiceAccount == "" {
		o.ServiceAccount = DefaultServiceAccount
	}
	if o.Name == "" {
		o.Name = DefaultRBACName
	}
	labels := map[string]string{"app.kubernetes.io/name": "recover", "app.kubernetes.io/component": "apply"}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: o.ServiceAccount, Namespace: o.Namespace}}
	byNS := map[string][]apply.Access{}
	for _, a := range access {
		ns := a.Namespace
		// The run's own namespace is created with its ServiceAccount.
		if ns != "" && ns != o.Namespace && o.NamespaceExists != nil && !o.NamespaceExists(ns) {
			ns = ""
			a.Namespace = ""
		}
		byNS[ns] = append(byNS[ns], a)
	}
	out := []runtime.Object{&corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Namespace, Labels: labels},
	}, &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: o.ServiceAccount, Namespace: o.Namespace, Labels: labels},
	}}
	if rules := Rules(byNS[""]); len(rules) > 0 {
		out = append(out,
			&rbacv1.ClusterRole{
				TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
				ObjectMeta: metav1.ObjectMeta{Name: o.Name, Labels: labels},
				Rules:      rules,
			},
			&rbacv1.ClusterRoleBinding{
				TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Name: o.Name, Labels: labels},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: o.Name},
				Subjects:   subject,
			})
	}
	var namespaces []string
	for ns := range byNS {
		if ns != "" {
			namespaces = append(namespaces, ns)
		}
	}
	sort.Strings(namespaces)
	for _, ns := range namespaces {
		out = append(out,
			&rbacv1.Role{
				TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
				ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: ns, Labels: labels},
				Rules:      Rules(byNS[ns]),
			},
			&rbacv1.RoleBinding{
				TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
				ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: ns, Labels: labels},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: o.Name},
				Subjects:   subject,
			})
	}
	return out
}

// Rules turns permissions (all in one namespace, or all cluster-wide) into
// policy rules: one per API group, set of verbs and resource name, listing the
// resources that need exactly those verbs, sorted.
func Rules(access []apply.Access) []rbacv1.PolicyRule {
	type target struct{ group, resource, name string }
	verbs := map[target][]string{}
	for _, a := range access {
		res := a.Resource
		if a.Subresource != "" {
			res += "/" + a.Subresource
		}
		t := target{a.Group, res, a.Name}
		if !slices.Contains(verbs[t], a.Verb) {
			verbs[t] = append(verbs[t], a.Verb)
		}
	}
	type ruleKey struct{ group, verbs, name string }
	resources := map[ruleKey][]string{}
	for t, vs := range verbs {
		sort.Strings(vs)
		k := ruleKey{t.group, strings.Join(vs, ","), t.name}
		resources[k] = append(resources[k], t.resource)
	}
	keys := make([]ruleKey, 0, len(resources))
	for k := range resources {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return fmt.Sprint(a.group, "\x00", a.name, "\x00", a.verbs) < fmt.Sprint(b.group, "\x00", b.name, "\x00", b.verbs)
	})
	var rules []rbacv1.PolicyRule
	for _, k := range keys {
		res := resources[k]
		sort.Strings(res)
		r := rbacv1.PolicyRule{APIGroups: []string{k.group}, Resources: res, Verbs: strings.Split(k.verbs, ",")}
		if k.name != "" {
			r.ResourceNames = []string{k.name}
		}
		rules = append(rules, r)
	}
	return rules
}
