package inspect

// KubeletLagAllowed is how many Kubernetes minors a kubelet may lag the
// kube-apiserver of OpenShift major.minor: the one place the OpenShift rule is
// written. Source: cluster-kube-apiserver-operator
// pkg/operator/kubeletversionskewcontroller (minSupportedKubeletSkewForOpenShiftVersion
// and its test):
//   - 4.y (#1199, Bug 1998552): even minors allow 2, odd minors 1 — the EUS
//     control-plane-only update 4.even -> 4.odd -> 4.even leaves the workers
//     two minors behind at the end and one in between;
//   - 5.y (#2101): every third minor, y mod 3 = 0 allows 1, 1 allows 2, 2 allows 3
//     (5.0 shares 4.23's Kubernetes base, 1.36, and its limit).
//
// Other majors get 1, the strictest.
func KubeletLagAllowed(major, minor uint64) int {
	switch major {
	case 4:
		if minor%2 == 0 {
			return 2
		}
		return 1
	case 5:
		return int(minor%3) + 1
	}
	return 1
}

// KubeMinorForRelease returns the Kubernetes minor an OpenShift major.minor
// ships: 4.y ships 1.(y+13); 5.y ships 1.(y+36) (5.0 shares 4.23's base,
// cluster-kube-apiserver-operator TestMinSupportedKubeletSkewForOpenShiftVersion).
// ok is false for other majors.
func KubeMinorForRelease(major, minor uint64) (kube uint64, ok bool) {
	switch major {
	case 4:
		return minor + kubeMinorOffset, true
	case 5:
		return minor + 36, true
	}
	return 0, false
}
