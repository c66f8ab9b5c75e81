package sim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	if got := s.Timing.withDefaults(); got.Operator.Duration != 3*time.Second || got.StaticPodNode != DefaultTiming.StaticPodNode {
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
