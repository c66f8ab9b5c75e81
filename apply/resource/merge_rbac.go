package resource

import rbacv1 "k8s.io/api/rbac/v1"

// The rbac.authorization.k8s.io/v1 kinds (lib/resourcemerge/rbac.go). v1beta1
// RBAC manifests take the generic rule: the CVO registers only v1.
func init() {
	gv := rbacv1.SchemeGroupVersion
	registerTyped(gv.WithKind("ClusterRole"), func(modified *bool, e *rbacv1.ClusterRole, r rbacv1.ClusterRole) error {
		// EnsureClusterRole: an aggregated role's rules belong to the
		// control plane and are left alone.
		ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
		setSemantic(modified, &e.AggregationRule, r.AggregationRule)
		if r.AggregationRule == nil {
			setSemantic(modified, &e.Rules, r.Rules)
		}
		return nil
	})
	registerTyped(gv.WithKind("Role"), func(modified *bool, e *rbacv1.Role, r rbacv1.Role) error {
		// EnsureRole.
		ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
		setSemantic(modified, &e.Rules, r.Rules)
		return nil
	})
	registerTyped(gv.WithKind("ClusterRoleBinding"), func(modified *bool, e *rbacv1.ClusterRoleBinding, r rbacv1.ClusterRoleBinding) error {
		// EnsureClusterRoleBinding.
		ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
		ensureBinding(modified, &e.Subjects, &e.RoleRef, r.Subjects, r.RoleRef)
		return nil
	})
	registerTyped(gv.WithKind("RoleBinding"), func(modified *bool, e *rbacv1.RoleBinding, r rbacv1.RoleBinding) error {
		// EnsureRoleBinding.
		ensureObjectMeta(modified, &e.ObjectMeta, r.ObjectMeta)
		ensureBinding(modified, &e.Subjects, &e.RoleRef, r.Subjects, r.RoleRef)
		return nil
	})
}

// ensureBinding: subjects and the role reference (its API group defaulted to
// rbac.authorization.k8s.io) are the manifest's (rbac.go ensureRoleRefDefaultsv1).
func ensureBinding(modified *bool, subjects *[]rbacv1.Subject, roleRef *rbacv1.RoleRef, rSubjects []rbacv1.Subject, rRoleRef rbacv1.RoleRef) {
	if rRoleRef.APIGroup == "" {
		rRoleRef.APIGroup = rbacv1.GroupName
	}
	setSemantic(modified, subjects, rSubjects)
	setSemantic(modified, roleRef, rRoleRef)
}
