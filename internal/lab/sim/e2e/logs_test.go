package e2e_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/lab/sim"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// TestLogsReadLiveThroughPodsLog: the BZ1838497 example loaded into the
// simulator, whose kubelet server serves the must-gather's container logs. Live
// inspect reads them through the real kube-apiserver's pods/log (which proxies
// to the node's kubelet endpoint, verifying its certificate against the kubelet
// CA) and proves the same as the must-gather: the abandoned update with its two
// CVO lines, the interrupted installer with its last line, the budget that
// holds worker-0's drain.
func TestLogsReadLiveThroughPodsLog(t *testing.T) {
	t.Parallel()
	kubetest.Require(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root, err := kubetest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	example := filepath.Join(root, "examples", "bz1838497-logs")
	fresh := env.ForTest(t)
	s, err := sim.Run(ctx, fresh.Config, example, sim.Options{Timing: &sim.HeldTiming,
		KubeletCA: &sim.KubeletCA{CertFile: env.SigningCAPath(), KeyFile: env.SigningKeyPath()}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()

	src, err := live.New(fresh.Config, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := src.Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := mustgather.New(filepath.Join(example, "must-gather")).Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got.Logs.Sources {
		t.Logf("logs of %s: %s %s (%d) %v", r.Namespace, r.State, r.Reason, r.Count, r.From)
	}

	for _, tc := range []struct{ code, subject, source string }{
		{inspect.CodeCVOAbandonedUpdate, "clusterversion/version", "/api/v1/namespaces/openshift-cluster-version/pods/cluster-version-operator-5f8d7c9b4-7xk2p/log?container=cluster-version-operator:"},
		{inspect.CodeInstallerInterrupted, "pod/openshift-kube-apiserver/installer-8-master-2", "/api/v1/namespaces/openshift-kube-apiserver/pods/installer-8-master-2/log?container=installer:"},
		{inspect.CodeDrainBlockedByUnseenPDB, "pod/web-6d5f7c9b8-x2x9q", "/api/v1/namespaces/openshift-machine-config-operator/pods/machine-config-daemon-4kx9q/log?container=machine-config-daemon:"},
	} {
		l, o := findingOf(got, tc.code, tc.subject), findingOf(want, tc.code, tc.subject)
		if l == nil || o == nil {
			t.Errorf("%s on %s: live %v, must-gather %v", tc.code, tc.subject, l != nil, o != nil)
			continue
		}
		// The same lines, at the same times, from the API instead of files.
		offline := map[string]bool{}
		for _, e := range o.Evidence {
			if !e.Time.IsZero() {
				offline[e.Text+" @ "+e.Time.UTC().String()] = true
			}
		}
		matched := 0
		for _, e := range l.Evidence {
			if e.Time.IsZero() {
				continue
			}
			if !strings.HasPrefix(e.Source, tc.source) {
				t.Errorf("%s: live evidence from %s, want pods/log %s…", tc.code, e.Source, tc.source)
			}
			if !offline[e.Text+" @ "+e.Time.UTC().String()] {
				t.Errorf("%s: live line %q at %s is not one of the must-gather's", tc.code, e.Text, e.Time)
			}
			matched++
		}
		if matched == 0 {
			t.Errorf("%s: no log line in the live evidence: %+v", tc.code, l.Evidence)
		}
		for _, k := range []string{"payload", "generation", "done", "total", "runningPredatesFix", "lastLine", "nodes", "count"} {
			if l.Details[k] != o.Details[k] {
				t.Errorf("%s: details[%s] live %q, must-gather %q", tc.code, k, l.Details[k], o.Details[k])
			}
		}
	}
}

func findingOf(s *inspect.Snapshot, code, subject string) *inspect.Finding {
	for i, f := range s.Findings {
		if f.Code == code && f.Subject == subject {
			return &s.Findings[i]
		}
	}
	return nil
}
