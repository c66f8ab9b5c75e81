package apply_test

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type coordinationLease = coordinationv1.Lease

func newLease(holder string, now metav1.MicroTime, dur int32) *coordinationv1.Lease {
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "recover-apply", Namespace: "openshift-cluster-version", Annotations: map[string]string{"recover.openshift.io/run-id": "dead"}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, AcquireTime: &now, RenewTime: &now, LeaseDurationSeconds: &dur},
	}
}
