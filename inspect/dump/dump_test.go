package dump

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

func subjects(s *inspect.Snapshot, code string) string {
	var out []string
	for _, f := range s.FindingsWithCode(code) {
		out = append(out, strings.TrimPrefix(f.Subject, "clusteroperator/"))
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// TestOCUpgradeStatusExamples reads the 13 real cluster snapshots `oc adm upgrade
// status` is tested with (their -cv, -co, -mcp, -node and -mc files form one cluster
// each) and checks the findings against what those clusters show (PROVENANCE.md).
func TestOCUpgradeStatusExamples(t *testing.T) {
	dir := filepath.Join(shareddata.RealData(t, ""), "oc-upgrade-status-examples")
	for _, tc := range []struct {
		name                  string
		state                 string // history[0]
		failing               bool
		degraded, unavailable string
		extra                 []string
	}{
		{"4.14.1-degraded", "Partial", true, "etcd,kube-apiserver,kube-controller-manager,kube-scheduler", "control-plane-machine-set", nil},
		{"4.14.1-paused-worker-pool", "Partial", false, "", "", []string{inspect.CodePoolPaused}},
		{"4.14.1-workers-started-updating-multiple-pools", "Partial", false, "", "kube-storage-version-migrator", nil},
		{"4.15.0-ec2-b02-cos-not-annotated", "Partial", false, "cluster-api,dns", "", nil},
		{"4.15.0-ec2-early", "Partial", false, "", "", nil},
		{"4.15.0-ec2-unavailable-mco-20m", "Partial", false, "etcd", "control-plane-machine-set,machine-config", nil},
		{"4.16.0-compact", "Partial", false, "", "", nil},
		{"4.16.0-ec2-control-plane-updated-pdb-prohibits-draining", "Completed", true, "machine-config", "", []string{inspect.CodePoolDegraded, inspect.CodeNodeDegraded}},
		{"4.16.0-single-node", "Partial", false, "network", "", nil},
		{"no-version-upgrading", "Completed", false, "", "", nil},
		{"not-upgrading", "Completed", false, "", "", nil},
		{"ocpbugs-60768", "Partial", false, "authentication,machine-config,openshift-apiserver", "", nil},
		{"to-multi-arch", "Partial", false, "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join(dir, tc.name+"-*.yaml"))
			if err != nil || len(files) < 4 {
				t.Fatalf("files of %s: %v %v", tc.name, files, err)
			}
			s, err := New(files...).Collect(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if s.ClusterVersion == nil || len(s.ClusterOperators) == 0 || len(s.Nodes) == 0 || len(s.MachineConfigPools) == 0 {
				t.Fatalf("incomplete read: cv %v, %d operators, %d nodes, %d pools", s.ClusterVersion != nil, len(s.ClusterOperators), len(s.Nodes), len(s.MachineConfigPools))
			}
			if s.Summary.HistoryState != tc.state {
				t.Errorf("history[0] %s, want %s", s.Summary.HistoryState, tc.state)
			}
			if got := len(s.FindingsWithCode(inspect.CodeUpdateInProgress)) > 0; got != (tc.state == "Partial") {
				t.Errorf("UpdateInProgress reported %t for a %s history", got, tc.state)
			}
			if got := len(s.FindingsWithCode(inspect.CodeClusterVersionFailing)) > 0; got != tc.failing {
				t.Errorf("ClusterVersionFailing %t, want %t", got, tc.failing)
			}
			if got := subjects(s, inspect.CodeOperatorDegraded); got != tc.degraded {
				t.Errorf("Degraded %q, want %q", got, tc.degraded)
			}
			if got := subjects(s, inspect.CodeOperatorUnavailable); got != tc.unavailable {
				t.Errorf("Unavailable %q, want %q", got, tc.unavailable)
			}
			for _, code := range tc.extra {
				if len(s.FindingsWithCode(code)) == 0 {
					t.Errorf("missing %s", code)
				}
			}
			// None of these clusters was reconciled out of order.
			if f := s.FindingsWithCode(inspect.CodeUpdateClaimedCompleteButMixed); len(f) > 0 {
				t.Errorf("UpdateClaimedCompleteButMixed on a real, ordered cluster: %+v", f)
			}
		})
	}
}

func TestDumpFormats(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	multi := write("cluster.yaml", `apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata: {name: version}
spec: {clusterID: 5c2d3e0a-9b1f-4f6e-8d8a-1f2b3c4d5e6f}
status:
  desired: {version: 4.4.3, image: quay.io/x@sha256:1}
  history: [{state: Completed, version: 4.4.3, image: quay.io/x@sha256:1, startedTime: "2020-05-24T16:02:51Z", verified: false}]
---
apiVersion: v1
kind: List
items:
- apiVersion: config.openshift.io/v1
  kind: ClusterOperator
  metadata: {name: dns}
  status: {versions: [{name: operator, version: 4.4.3}]}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: ignored, namespace: default}
`)
	js := write("pods.json", `{"apiVersion":"v1","kind":"PodList","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"kube-apiserver-master-0","namespace":"openshift-kube-apiserver","labels":{"revision":"3"},"annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"nodeName":"master-0","containers":[{"name":"kube-apiserver","image":"i"}]}}]}`)
	s, err := New(multi, js).Collect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.ClusterVersion == nil || len(s.ClusterOperators) != 1 || len(s.StaticPodTruth("kube-apiserver")) != 1 {
		t.Fatalf("dump read: cv %v, operators %d, truth %+v", s.ClusterVersion != nil, len(s.ClusterOperators), s.StaticPodTruth("kube-apiserver"))
	}
	states := map[string]inspect.CollectionState{}
	for _, r := range s.Resources {
		states[r.Key()] = r.State
	}
	if states["pods/openshift-kube-apiserver"] != inspect.Collected || states["pods/openshift-etcd"] != inspect.Absent || states["nodes"] != inspect.Absent {
		t.Fatalf("collection states: %v", states)
	}

	bad := write("bad.yaml", "kind: ClusterOperator\nmetadata:\n  name: dns\nstatus:\n  versions: {name: operator}\n")
	_, err = New(bad).Collect(t.Context())
	var ie *inspect.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "bad.yaml") || !strings.Contains(err.Error(), "versions") {
		t.Fatalf("want an InputError naming bad.yaml and the field, got %v", err)
	}
	_, err = New(filepath.Join(dir, "missing.yaml")).Collect(t.Context())
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("missing file: %v", err)
	}
}
