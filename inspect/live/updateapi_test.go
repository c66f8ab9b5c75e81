package live

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// TestUpdateAPILive reads the 2026 update API from a real apiserver: with the
// Default ClusterVersion CRD (a production cluster's, which lacks the
// feature-gated fields) the apiserver prunes acceptRisks, conditionalUpdateRisks
// and mode, and inspect reads a cluster without them; once the apiserver serves
// the DevPreviewNoUpgrade CRD (gates ClusterUpdateAcceptRisks and
// ClusterUpdatePreflight), the live snapshot holds them and the Preflight is a
// finding.
func TestUpdateAPILive(t *testing.T) {
	kubetest.Require(t, env)
	fresh := env.ForTest(t)
	ctx := context.Background()
	client := configclient.NewForConfigOrDie(fresh.Config).ConfigV1().ClusterVersions()
	const current, target = "4.20.3", "4.21.1"
	image := func(c string) string {
		return "quay.io/openshift-release-dev/ocp-release@sha256:" + strings.Repeat(c, 64)
	}
	risk := func(name string, applies metav1.ConditionStatus) configv1.ConditionalUpdateRisk {
		r := configv1.ConditionalUpdateRisk{Name: name, URL: "https://issues.redhat.com/browse/OCPBUGS-1", Message: name + " hurts.",
			MatchingRules: []configv1.ClusterCondition{{Type: "Always"}}}
		if applies != "" {
			r.Conditions = []metav1.Condition{{Type: "Applies", Status: applies, Reason: "Match", Message: "matches", LastTransitionTime: metav1.Now()}}
		}
		return r
	}
	write := func() {
		t.Helper()
		cv, err := client.Get(ctx, "version", metav1.GetOptions{})
		if err != nil {
			cv, err = client.Create(ctx, &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version"},
				Spec: configv1.ClusterVersionSpec{ClusterID: "6d1f7d32-6a1f-4c43-9d4c-3a4a1f0c1c1a", Channel: "stable-4.21"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
		}
		cv.Spec.DesiredUpdate = &configv1.Update{Version: target, Mode: configv1.UpdateModePreflight, AcceptRisks: []configv1.AcceptRisk{{Name: "AcceptedAlready"}}}
		if cv, err = client.Update(ctx, cv, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		now := metav1.Now()
		cv.Status = configv1.ClusterVersionStatus{
			Desired:          configv1.Release{Version: current, Image: image("1")},
			History:          []configv1.UpdateHistory{{State: configv1.CompletedUpdate, Version: current, Image: image("1"), StartedTime: now, CompletionTime: &now, Verified: true}},
			VersionHash:      "x",
			Capabilities:     configv1.ClusterVersionCapabilitiesStatus{EnabledCapabilities: []configv1.ClusterVersionCapability{"Console"}, KnownCapabilities: []configv1.ClusterVersionCapability{"Console", "Insights"}},
			AvailableUpdates: nil,
			ConditionalUpdates: []configv1.ConditionalUpdate{{Release: configv1.Release{Version: target, Image: image("2")}, RiskNames: []string{"AcceptedAlready", "NodeDrainHang"},
				Risks:      []configv1.ConditionalUpdateRisk{risk("AcceptedAlready", ""), risk("NodeDrainHang", "")},
				Conditions: []metav1.Condition{{Type: "Recommended", Status: metav1.ConditionFalse, Reason: "MultipleReasons", Message: "risks", LastTransitionTime: now}}}},
			ConditionalUpdateRisks: []configv1.ConditionalUpdateRisk{risk("AcceptedAlready", metav1.ConditionTrue), risk("NodeDrainHang", metav1.ConditionTrue)},
		}
		if _, err := client.UpdateStatus(ctx, cv, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// Default: the fields are pruned; the reader sees an old cluster.
	write()
	s := collect(t, fresh.Config, Options{})
	if s.ClusterVersion == nil || s.ClusterVersion.Status.Desired.Version != current {
		t.Fatalf("no ClusterVersion read: %+v", s.ClusterVersion)
	}
	if len(s.AcceptedRisks()) != 0 || len(s.ClusterVersion.Status.ConditionalUpdateRisks) != 0 || s.Preflight() != nil {
		t.Fatalf("the Default CRD served gated fields: accept %v risks %v", s.AcceptedRisks(), s.ClusterVersion.Status.ConditionalUpdateRisks)
	}
	// Without mode the desiredUpdate reads as a request to update to the target.
	if len(s.ClusterVersion.Status.ConditionalUpdates) != 1 {
		t.Fatalf("conditionalUpdates %+v", s.ClusterVersion.Status.ConditionalUpdates)
	}

	// DevPreviewNoUpgrade: the apiserver keeps them.
	if err := kubetest.ServeClusterVersionFeatureSet(ctx, fresh.Config, "DevPreviewNoUpgrade"); err != nil {
		t.Fatal(err)
	}
	// The apiserver takes the new schema a moment after Established: write
	// until the gated fields persist.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		write()
		cv, err := client.Get(ctx, "version", metav1.GetOptions{})
		return err == nil && len(cv.Status.ConditionalUpdateRisks) == 2 && cv.Spec.DesiredUpdate != nil && cv.Spec.DesiredUpdate.Mode == configv1.UpdateModePreflight, nil
	}); err != nil {
		t.Fatalf("the DevPreviewNoUpgrade CRD never kept the gated fields: %v", err)
	}
	s = collect(t, fresh.Config, Options{})
	if !slices.Equal(s.AcceptedRisks(), []string{"AcceptedAlready"}) {
		t.Fatalf("acceptRisks %v", s.AcceptedRisks())
	}
	risks, _ := s.ReleaseRisks(target, "")
	if len(risks) != 2 || risks[0].Name != "AcceptedAlready" || !risks[0].Accepted || risks[1].Applies != "True" || risks[1].Accepted {
		t.Fatalf("risks %+v", risks)
	}
	if got := s.DesiredRelease().Version; got != current {
		t.Fatalf("the Preflight target %s became the release the cluster updates to (%s)", target, got)
	}
	fs := s.FindingsWithCode(inspect.CodeUpdatePreflight)
	if len(fs) != 1 || fs[0].Details["risks"] != "NodeDrainHang" || fs[0].Details["accepted"] != "AcceptedAlready" {
		t.Fatalf("UpdatePreflight %+v", fs)
	}
}
