package render

import (
	"testing"

	"github.com/openshift-recover/recover/plan/planfile"
)

func TestFromVersions(t *testing.T) {
	for _, tc := range []struct {
		name string
		cs   []planfile.ComponentVersion
		want string
	}{
		{"verified versions, sorted, once each", []planfile.ComponentVersion{
			{Name: "dns", Version: "4.4.3"}, {Name: "etcd", Version: "4.3.19"}, {Name: "ingress", Version: "4.4.3"}}, "4.3.19 + 4.4.3"},
		{"kubelets and operands are not releases", []planfile.ComponentVersion{
			{Name: "dns", Version: "4.4.3"}, {Name: "kubelet/master-0", Version: "4.3.19"}}, "4.4.3"},
		{"verified wins over claims", []planfile.ComponentVersion{
			{Name: "dns", Version: "4.4.3"}, {Name: "etcd", Claimed: "4.4.4"}}, "4.4.3"},
		{"only claims: said as a claim", []planfile.ComponentVersion{
			{Name: "dns", Claimed: "4.12.16"}, {Name: "etcd", Claimed: "4.12.16"}}, "4.12.16 (claimed)"},
		{"nothing known", []planfile.ComponentVersion{{Name: "dns"}}, "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fromVersions(tc.cs); got != tc.want {
				t.Errorf("fromVersions = %q, want %q", got, tc.want)
			}
		})
	}
}
