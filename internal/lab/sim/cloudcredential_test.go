package sim

import "testing"

func TestMinorAboveIsTheCCOsUpgradeableToRule(t *testing.T) {
	for _, tc := range []struct {
		to, version string
		want        bool
	}{
		{"4.15", "4.14.20", true},
		{"v4.15", "4.14.20", true},
		{"4.14", "4.14.20", false}, // the cluster's own minor is not enough
		{"4.13", "4.14.20", false},
		{"5.0", "4.14.20", true},
		{"", "4.14.20", false},
		{"4.x", "4.14.20", false},
		{"4.15", "", false},
	} {
		if got := minorAbove(tc.to, tc.version); got != tc.want {
			t.Errorf("minorAbove(%q, %q) = %v, want %v", tc.to, tc.version, got, tc.want)
		}
	}
}
