package inspect

import "testing"

// TestGuardOf: a guard PDB is what library-go's guard controller makes in a
// static-pod operand's namespace ("<podResourcePrefix>-guard-pdb"), or etcd's
// pre-4.11 etcd-quorum-guard; a name that only ends in -guard-pdb is not one
// (the planner used to call any openshift-*/…-guard-pdb a guard, and apply
// any …-guard-pdb at all).
func TestGuardOf(t *testing.T) {
	for _, tc := range []struct {
		ns, name string
		want     string
	}{
		{"openshift-etcd", "etcd-guard-pdb", "etcd"},
		{"openshift-kube-apiserver", "kube-apiserver-guard-pdb", "kube-apiserver"},
		{"openshift-kube-controller-manager", "kube-controller-manager-guard-pdb", "kube-controller-manager"},
		{"openshift-kube-scheduler", "openshift-kube-scheduler-guard-pdb", "kube-scheduler"},
		{"openshift-etcd", "etcd-quorum-guard", "etcd"},
		{"openshift-machine-config-operator", "etcd-quorum-guard", "etcd"},
		{"shop", "web-guard-pdb", ""},
		{"shop", "etcd-guard-pdb", ""},
		{"openshift-monitoring", "thanos-guard-pdb", ""},
		{"openshift-kube-scheduler", "kube-scheduler-guard-pdb", ""},
		{"shop", "etcd-quorum-guard", ""},
	} {
		got := ""
		if c := GuardOf(tc.ns, tc.name); c != nil {
			got = c.Component
		}
		if got != tc.want || IsGuardPDB(tc.ns, tc.name) != (tc.want != "") {
			t.Errorf("GuardOf(%s, %s) = %q, want %q", tc.ns, tc.name, got, tc.want)
		}
	}
}
