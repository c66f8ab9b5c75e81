package plan

import (
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/inspect"
)

// TestInclusionAssumptions: each inclusion input the snapshot lacks is said,
// once, with what was assumed; a snapshot that holds them all assumes nothing.
func TestInclusionAssumptions(t *testing.T) {
	full := func() *inspect.Snapshot {
		return &inspect.Snapshot{
			CVO:            &inspect.Deployment{Namespace: "openshift-cluster-version", Name: "cluster-version-operator"},
			ClusterVersion: &inspect.ClusterVersion{Status: configv1.ClusterVersionStatus{Desired: configv1.Release{Version: "4.20.3"}}},
			FeatureGate:    &inspect.FeatureGate{FeatureGates: []configv1.FeatureGateDetails{{Version: "4.20.3"}}},
			Infrastructure: &inspect.Infrastructure{ControlPlaneTopology: "HighlyAvailable"},
			Resources:      []inspect.ResourceStatus{{Resource: inspect.ResDeployments.Key(), Namespace: "openshift-cluster-version", State: inspect.Absent, Reason: "the archive holds no Deployments"}},
		}
	}
	for _, tc := range []struct {
		name string
		edit func(*inspect.Snapshot)
		want []string // one substring per assumption, in order
		// plain: the payload has no feature-set or feature-gate manifest.
		plain bool
	}{
		{"everything read", nil, nil, false},
		{"no CVO Deployment", func(s *inspect.Snapshot) { s.CVO = nil },
			[]string{"(Absent: the archive holds no Deployments), so its CLUSTER_PROFILE is assumed self-managed-high-availability"}, false},
		{"no CVO on a hosted control plane", func(s *inspect.Snapshot) { s.CVO, s.Infrastructure.ControlPlaneTopology = nil, "External" },
			[]string{"the control plane is External"}, false},
		{"no FeatureGate", func(s *inspect.Snapshot) { s.FeatureGate = nil }, []string{"FeatureGate/cluster was not in the snapshot (not recorded)"}, false},
		{"no FeatureGate, and a payload that needs none", func(s *inspect.Snapshot) { s.FeatureGate = nil }, nil, true},
		{"gates for another version", func(s *inspect.Snapshot) { s.FeatureGate.FeatureGates[0].Version = "4.19.9" },
			[]string{"no entry for 4.20.3 (only 4.19.9): the gates of 4.19.9 are used"}, false},
		{"no ClusterVersion", func(s *inspect.Snapshot) { s.ClusterVersion = nil }, []string{"capabilities are not filtered"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := full()
			if tc.edit != nil {
				tc.edit(s)
			}
			got := InclusionAssumptions(s, !tc.plain)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d assumptions %q, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("assumption %d %q lacks %q", i, got[i], w)
				}
			}
		})
	}
}
