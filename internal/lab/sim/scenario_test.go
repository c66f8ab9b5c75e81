package sim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// writeScenario writes files (path -> content; a path ending in / is a directory)
// under a temporary directory and returns it.
func writeScenario(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for path, content := range files {
		full := filepath.Join(dir, path)
		if strings.HasSuffix(path, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const validScenario = `apiVersion: sim.recover.openshift.io/v1alpha1
kind: Scenario
releases:
- version: 4.4.3
  image: quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc
  payload: releases/4.4.3
timing:
  operator: 3s
faults:
- type: kubelet-false-success
  clusterOperator: kube-apiserver
  node: master-2
`

func TestLoadScenario(t *testing.T) {
	dir := writeScenario(t, map[string]string{
		"scenario.yaml":   validScenario,
		"must-gather/":    "",
		"releases/4.4.3/": "",
	})
	s, err := LoadScenario(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.MustGather != "must-gather" || s.Dir != dir || len(s.Releases) != 1 || len(s.Faults) != 1 {
		t.Errorf("loaded %+v", s)
	}
	if got := s.Timing.withDefaults(); got.Operator.Duration != 3*time.Second || got.StaticPodNode != DefaultTiming.StaticPodNode ||
		got.DrainRetry != DefaultTiming.DrainRetry || got.DrainTimeout != DefaultTiming.DrainTimeout || got.InstallerBackoff != DefaultTiming.InstallerBackoff {
		t.Errorf("timing with defaults: %+v", got)
	}
	if r, ok := s.Release("4.4.3"); !ok || r.Payload != "releases/4.4.3" {
		t.Errorf("Release(4.4.3) = %+v, %v", r, ok)
	}
	if _, ok := s.ReleaseByImage("quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc"); !ok {
		t.Error("ReleaseByImage did not find the release")
	}
}

func TestLoadScenarioErrors(t *testing.T) {
	replace := func(old, new string) string { return strings.Replace(validScenario, old, new, 1) }
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no scenario file", map[string]string{"must-gather/": ""}, "no scenario.yaml here"},
		{"malformed YAML", map[string]string{"scenario.yaml": "releases: [", "must-gather/": ""}, "malformed"},
		{"unknown field", map[string]string{"scenario.yaml": validScenario + "delays: {}\n", "must-gather/": "", "releases/4.4.3/": ""}, `unknown field "delays"`},
		{"wrong kind", map[string]string{"scenario.yaml": replace("kind: Scenario", "kind: Plan"), "must-gather/": "", "releases/4.4.3/": ""}, "want sim.recover.openshift.io/v1alpha1/Scenario"},
		{"missing must-gather", map[string]string{"scenario.yaml": validScenario, "releases/4.4.3/": ""}, "mustGather:"},
		{"missing payload", map[string]string{"scenario.yaml": validScenario, "must-gather/": ""}, "payload:"},
		{"image by tag", map[string]string{"scenario.yaml": replace("ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc", "ocp-release:4.4.3"), "must-gather/": "", "releases/4.4.3/": ""}, "not a by-digest pull spec"},
		{"fault without node", map[string]string{"scenario.yaml": replace("  node: master-2\n", ""), "must-gather/": "", "releases/4.4.3/": ""}, "node is empty"},
		{"unknown operator type", map[string]string{"scenario.yaml": validScenario + "operators:\n- clusterOperator: x\n  deployment: ns/x\n  type: magic\n", "must-gather/": "", "releases/4.4.3/": ""}, `unknown type "magic"`},
		{"false success on a plain operator", map[string]string{"scenario.yaml": replace("clusterOperator: kube-apiserver", "clusterOperator: dns"), "must-gather/": "", "releases/4.4.3/": ""}, "needs a static-pod operator"},
		{"static-pod operator without operand", map[string]string{"scenario.yaml": validScenario + "operators:\n- clusterOperator: x\n  deployment: ns/x\n  type: static-pod\n", "must-gather/": "", "releases/4.4.3/": ""}, "needs staticPods"},
		{"installer-fails without node", map[string]string{"scenario.yaml": validScenario + "- type: installer-fails\n  clusterOperator: kube-apiserver\n  revision: 9\n", "must-gather/": "", "releases/4.4.3/": ""}, "name the node whose installers fail"},
		{"installer-fails without revision", map[string]string{"scenario.yaml": validScenario + "- type: installer-fails\n  clusterOperator: kube-apiserver\n  node: master-1\n", "must-gather/": "", "releases/4.4.3/": ""}, "revision is 0"},
		{"installer-fails with a negative revision", map[string]string{"scenario.yaml": validScenario + "- type: installer-fails\n  clusterOperator: etcd\n  node: master-1\n  revision: -3\n", "must-gather/": "", "releases/4.4.3/": ""}, "revision is -3"},
		{"installer-fails on a plain operator", map[string]string{"scenario.yaml": validScenario + "- type: installer-fails\n  clusterOperator: dns\n  node: master-1\n  revision: 9\n", "must-gather/": "", "releases/4.4.3/": ""}, "installer-fails needs a static-pod operator"},
		{"revision on another fault", map[string]string{"scenario.yaml": validScenario + "- type: degraded\n  clusterOperator: dns\n  revision: 9\n", "must-gather/": "", "releases/4.4.3/": ""}, "revision applies to installer-fails faults only"},
		{"unknown fault type", map[string]string{"scenario.yaml": replace("type: kubelet-false-success", "type: installer-flakes"), "must-gather/": "", "releases/4.4.3/": ""}, `unknown fault type "installer-flakes" (want degraded, stuck-rollout, kubelet-false-success or installer-fails)`},
		{"joining node without a name", map[string]string{"scenario.yaml": validScenario + "joiningNodes:\n- servingCSR: true\n", "must-gather/": "", "releases/4.4.3/": ""}, "joiningNodes[0]: node is empty"},
		{"joining node with a bad name", map[string]string{"scenario.yaml": validScenario + "joiningNodes:\n- node: Worker_3\n", "must-gather/": "", "releases/4.4.3/": ""}, `node "Worker_3" is not a valid node name`},
		{"joining node twice", map[string]string{"scenario.yaml": validScenario + "joiningNodes:\n- node: worker-3\n- node: worker-3\n", "must-gather/": "", "releases/4.4.3/": ""}, "joiningNodes[1]: node worker-3 listed twice"},
		{"joining node field unknown", map[string]string{"scenario.yaml": validScenario + "joiningNodes:\n- node: worker-3\n  csr: pending\n", "must-gather/": "", "releases/4.4.3/": ""}, `unknown field "csr"`},
		{"bad drain timeout", map[string]string{"scenario.yaml": replace("  operator: 3s\n", "  operator: 3s\n  drainTimeout: an hour\n"), "must-gather/": "", "releases/4.4.3/": ""}, "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadScenario(writeScenario(t, tc.files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error containing %q, got %v", tc.want, err)
			}
			var se *ScenarioError
			if !errors.As(err, &se) || !se.BadInput() {
				t.Errorf("a scenario error must be bad input (exit 4): %T", err)
			}
		})
	}
}

func TestReadMustGather(t *testing.T) {
	dir := writeScenario(t, map[string]string{
		// A list with items that omit apiVersion/kind, as typed lists may.
		"namespaces/ns1/apps/deployments.yaml": "apiVersion: apps/v1\nkind: DeploymentList\nitems:\n- metadata: {name: a, namespace: ns1}\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: b, namespace: ns1}\n",
		// The same pod in pods.yaml and in pods/<name>/<name>.yaml: kept once.
		"namespaces/ns1/core/pods.yaml":                   "apiVersion: v1\nkind: PodList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: ns1}\n",
		"namespaces/ns1/pods/p/p.yaml":                    "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns1}\n",
		"namespaces/ns1/ns1.yaml":                         "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns1}\n",
		"namespaces/ns1/core/events.yaml":                 "apiVersion: v1\nkind: EventList\nitems:\n- apiVersion: v1\n  kind: Event\n  metadata: {name: e, namespace: ns1}\n",
		"cluster-scoped-resources/core/nodes/node-a.yaml": "---\napiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n---\n",
		"timestamp":                      "2020-05-24 16:00:00",
		"namespaces/ns1/pods/p/logs.txt": "not an object",
		"aggregated/discovery.json":      `{"some": "json without a kind"}`,
	})
	objs, err := ReadMustGather(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, keyOf(o).String())
	}
	want := map[string]bool{"Deployment.apps ns1/a": true, "Deployment.apps ns1/b": true, "Pod ns1/p": true, "Namespace ns1": true, "Node node-a": true}
	if len(got) != len(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	for _, k := range got {
		if !want[k] {
			t.Errorf("unexpected object %s (read %v)", k, got)
		}
	}

	bad := writeScenario(t, map[string]string{"cluster-scoped-resources/core/nodes/n.yaml": "apiVersion: v1\nkind: Node\nmetadata: {name: [\n"})
	_, err = ReadMustGather(bad)
	var se *ScenarioError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "n.yaml") || !strings.Contains(err.Error(), "not valid YAML") {
		t.Fatalf("want a ScenarioError naming the file, got %v", err)
	}
	if _, err := ReadMustGather(filepath.Join(dir, "nope")); !errors.As(err, &se) {
		t.Fatalf("want a ScenarioError for a missing directory, got %v", err)
	}
}

func TestTimingDerivedDelays(t *testing.T) {
	tm := Timing{MachineConfigNode: metav1.Duration{Duration: time.Second}, InstallerBackoff: metav1.Duration{Duration: 10 * time.Second}}
	if got := tm.poolSyncTimeout(3); got != 30*time.Second {
		t.Errorf("pool sync timeout of 3 required machines at 1s per node: %s, want 10 x 1s x 3", got)
	}
	tm.PoolSyncNode = metav1.Duration{Duration: 2 * time.Second}
	if got := tm.poolSyncTimeout(0); got != 2*time.Second {
		t.Errorf("pool sync timeout with no required machine: %s, want one node's", got)
	}
	// library-go: 10s x 1.5^count, at most 10 minutes.
	for count, want := range map[int]time.Duration{0: 10 * time.Second, 1: 15 * time.Second, 2: 22500 * time.Millisecond, 20: 10 * time.Minute} {
		if got := tm.installerBackoff(count); got != want {
			t.Errorf("installer backoff after %d failures: %s, want %s", count, got, want)
		}
	}
}

func TestLoadRefusesAJoiningNodeTheMustGatherHolds(t *testing.T) {
	f := newFixture()
	f.scenarioExtra = map[string]any{"joiningNodes": []any{map[string]any{"node": "worker-1"}}}
	kubetest.Require(t, env)
	scn, err := LoadScenario(f.write(t))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(env.Config, scn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Load(context.Background())
	var se *ScenarioError
	if !errors.As(err, &se) || !se.BadInput() || !strings.Contains(err.Error(), "node worker-1 is a joining node of the scenario but the must-gather holds its Node") {
		t.Fatalf("Load: %v, want a scenario error naming worker-1", err)
	}
}

// TestEveryExampleScenarioLoads reads every examples/*/scenario.yaml (what make
// lab runs), without an API server.
func TestEveryExampleScenarioLoads(t *testing.T) {
	root, err := kubetest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "examples", "*", "scenario.yaml"))
	if err != nil || len(files) < 7 {
		t.Fatalf("found %d example scenarios (%v), want every wedge's", len(files), err)
	}
	for _, f := range files {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			scn, err := LoadScenario(dir)
			if err != nil {
				t.Fatal(err)
			}
			if scn.Description == "" || len(scn.Releases) == 0 || len(scn.Try) == 0 {
				t.Errorf("%s: description, releases and try are what make lab prints; got %d releases, %d commands", f, len(scn.Releases), len(scn.Try))
			}
		})
	}
}
