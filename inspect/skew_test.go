package inspect

import "testing"

// The limits of cluster-kube-apiserver-operator's
// TestMinSupportedKubeletSkewForOpenShiftVersion, and the 4.y rule of #1199.
func TestKubeletLagAllowedFollowsTheKubeAPIServerOperator(t *testing.T) {
	for _, tc := range []struct {
		major, minor uint64
		want         int
	}{{4, 18, 2}, {4, 19, 1}, {4, 20, 2}, {4, 22, 2}, {4, 23, 1}, {5, 0, 1}, {5, 1, 2}, {5, 2, 3}, {5, 3, 1}, {6, 0, 1}} {
		if got := KubeletLagAllowed(tc.major, tc.minor); got != tc.want {
			t.Errorf("%d.%d: got %d, want %d", tc.major, tc.minor, got, tc.want)
		}
	}
	if k, ok := KubeMinorForRelease(5, 0); !ok || k != 36 {
		t.Errorf("5.0 ships 1.%d", k)
	}
	if k, _ := KubeMinorForRelease(4, 23); k != 36 {
		t.Errorf("4.23 ships 1.%d", k)
	}
}
