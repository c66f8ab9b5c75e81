package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
	"github.com/openshift-recover/recover/plan/planfile"
)

// TestTUILiveSessionCarriesTheGateTimeouts opens a live session against a real
// kube-apiserver holding the incident-1 cluster: --gate-timeout reaches the
// engine's options, as it does for recover apply.
func TestTUILiveSessionCarriesTheGateTimeouts(t *testing.T) {
	env := apiServer(t, kubetest.Options{})
	scn, err := sim.LoadScenario(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(env.Config, scn, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	planPath := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planPath, planJSON(t, nil), 0o600); err != nil {
		t.Fatal(err)
	}

	kube := genericclioptions.NewConfigFlags(true)
	kube.KubeConfig = &env.Kubeconfig
	got, err := sessionOn(t, kube, "--plan", planPath,
		"--gate-timeout", "cluster-operator=45m", "--gate-timeout", "pool-updated=2h")
	if err != nil {
		t.Fatal(err)
	}
	if got.ReadOnly || got.Engine == nil {
		t.Fatalf("a live session with a plan is read-only (%v, %q) or has no engine", got.ReadOnly, got.ReadOnlyReason)
	}
	want := map[planfile.GateKind]time.Duration{planfile.GateClusterOperator: 45 * time.Minute, planfile.GatePoolUpdated: 2 * time.Hour}
	if len(got.Options.Timeouts) != len(want) {
		t.Fatalf("timeouts %v, want %v", got.Options.Timeouts, want)
	}
	for k, d := range want {
		if got.Options.Timeouts[k] != d {
			t.Errorf("timeout for %s = %v, want %v", k, got.Options.Timeouts[k], d)
		}
	}
}
