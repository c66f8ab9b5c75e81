package gate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planfile"
)

func TestClusterOperatorGate(t *testing.T) {
	g := &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: "kube-apiserver", Versions: []planfile.OperandVersion{{Name: "operator", Version: "4.4.4"}, {Name: "kube-apiserver", Version: "1.17.1"}}}
	mco := &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: "machine-config", Versions: []planfile.OperandVersion{{Name: "operator", Version: "4.4.4"}}}
	noVersions := &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: "kube-apiserver"}
	const healthy = `conditions: [{type: Available, status: "True"}, {type: Degraded, status: "False"}]`
	for _, tc := range []struct {
		name   string
		gate   *planfile.Gate
		status string
		waited time.Duration
		met    bool
		// cvoWaits: the CVO would still wait (the timeout does not end it);
		// slow: past its "longer than expected" threshold.
		cvoWaits, slow bool
		want           string
	}{
		{"met", g, `{versions: [{name: operator, version: 4.4.4}, {name: kube-apiserver, version: 1.17.1}], ` + healthy + `}`, 0, true, false, false, "Available, not Degraded"},
		{"operand behind: the CVO waits", g, `{versions: [{name: operator, version: 4.4.4}, {name: kube-apiserver, version: 1.16.2}], ` + healthy + `}`, time.Minute, false, true, false, "kube-apiserver: 1.16.2 (want 1.17.1)"},
		{"operand behind for 35 minutes: slow, still waiting", g, `{versions: [{name: operator, version: 4.4.4}, {name: kube-apiserver, version: 1.16.2}], ` + healthy + `}`, 35 * time.Minute, false, true, true, "longer than expected"},
		{"machine-config behind for 60 minutes: not slow yet", mco, `{versions: [{name: operator, version: 4.3.19}], ` + healthy + `}`, 60 * time.Minute, false, true, false, "operator: 4.3.19 (want 4.4.4)"},
		{"machine-config behind for 95 minutes: slow, still waiting", mco, `{versions: [{name: operator, version: 4.3.19}], ` + healthy + `}`, 95 * time.Minute, false, true, true, "longer than expected"},
		{"degraded for 35 minutes: the CVO still waits", g, `{versions: [{name: operator, version: 4.4.4}, {name: kube-apiserver, version: 1.17.1}], conditions: [{type: Available, status: "True"}, {type: Degraded, status: "True", reason: NodeInstallerDegraded}]}`, 35 * time.Minute, false, true, false, "Degraded=True (NodeInstallerDegraded)"},
		{"degraded for 45 minutes: the CVO reports failing", g, `{versions: [{name: operator, version: 4.4.4}, {name: kube-apiserver, version: 1.17.1}], conditions: [{type: Available, status: "True"}, {type: Degraded, status: "True", reason: NodeInstallerDegraded}]}`, 45 * time.Minute, false, false, false, "ClusterOperatorDegraded"},
		{"no conditions: not available, failing", g, `{versions: [{name: operator, version: 4.4.4}]}`, 0, false, false, false, "Available=missing"},
		// Both CVOs read the FIRST entry of a name; the old gate read the last.
		{"duplicate operator entries, target first: met", g, `{versions: [{name: operator, version: 4.4.4}, {name: kube-apiserver, version: 1.17.1}, {name: operator, version: 4.3.19}], ` + healthy + `}`, 0, true, false, false, "Available, not Degraded"},
		{"duplicate operator entries, older first: waits", g, `{versions: [{name: operator, version: 4.3.19}, {name: kube-apiserver, version: 1.17.1}, {name: operator, version: 4.4.4}], ` + healthy + `}`, 0, false, true, false, "operator: 4.3.19 (want 4.4.4)"},
		// A manifest without versions: the 4.4 CVO's conditions.
		{"no versions declared: Available, not Progressing, not Degraded", noVersions, `{conditions: [{type: Available, status: "True"}, {type: Progressing, status: "False"}, {type: Degraded, status: "False"}]}`, 0, true, false, false, "not Progressing"},
		{"no versions declared: still Progressing, reported as CVO main does", noVersions, `{conditions: [{type: Available, status: "True"}, {type: Progressing, status: "True"}, {type: Degraded, status: "False"}]}`, 0, false, false, false, "Progressing=True"},
	} {
		p := evalClusterOperator(tc.gate, applytest.Object("{apiVersion: config.openshift.io/v1, kind: ClusterOperator, metadata: {name: "+tc.gate.ClusterOperator+"}, status: "+tc.status+"}"), tc.waited)
		if p.Met != tc.met || p.CVOWaits != tc.cvoWaits || p.Slow != tc.slow || !strings.Contains(p.Message, tc.want) {
			t.Errorf("%s: met %v, cvoWaits %v, slow %v, message %q; want met %v, cvoWaits %v, slow %v, containing %q", tc.name, p.Met, p.CVOWaits, p.Slow, p.Message, tc.met, tc.cvoWaits, tc.slow, tc.want)
		}
	}
	if p := evalClusterOperator(g, nil, 0); p.Met || p.CVOWaits || !strings.Contains(p.Message, "does not exist") {
		t.Errorf("missing CO: %+v", p)
	}
}

func TestMachineConfigTimeoutScalesWithThePools(t *testing.T) {
	pool := func(name string, machines int, maxUnavailable string, required bool) *unstructured.Unstructured {
		labels := ""
		if required {
			labels = `labels: {operator.machineconfiguration.openshift.io/required-for-upgrade: ""},`
		}
		mu := ""
		if maxUnavailable != "" {
			mu = "maxUnavailable: " + maxUnavailable
		}
		return applytest.Object(fmt.Sprintf(`{apiVersion: machineconfiguration.openshift.io/v1, kind: MachineConfigPool, metadata: {name: %s, %s}, spec: {%s}, status: {machineCount: %d}}`, name, labels, mu, machines))
	}
	for _, tc := range []struct {
		name  string
		pools []*unstructured.Unstructured
		want  time.Duration
	}{
		{"three masters: the CVO's 90 minutes", []*unstructured.Unstructured{pool("master", 3, "", false), pool("worker", 50, "", false)}, 90 * time.Minute},
		{"a required pool of 20, one at a time", []*unstructured.Unstructured{pool("master", 3, "", false), pool("infra", 20, "", true)}, 20 * perNodeRollout},
		{"a required pool of 20, 5 at a time", []*unstructured.Unstructured{pool("infra", 20, "5", true)}, 90 * time.Minute},
		{"a required pool of 40, 25% at a time", []*unstructured.Unstructured{pool("infra", 40, `"25%"`, true)}, 90 * time.Minute},
		{"a master pool of 9, one at a time", []*unstructured.Unstructured{pool("master", 9, "", false)}, 9 * perNodeRollout},
	} {
		if got := machineConfigTimeout(tc.pools); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

const kas = `{apiVersion: operator.openshift.io/v1, kind: KubeAPIServer, metadata: {name: cluster}, status: {latestAvailableRevision: 9, nodeStatuses: [{nodeName: master-0, currentRevision: 9}, {nodeName: master-1, currentRevision: 9}, {nodeName: master-2, currentRevision: %s}]}}`

func mirror(t *testing.T, node, rev string, ready bool) *unstructured.Unstructured {
	status := `"False"`
	if ready {
		status = `"True"`
	}
	return applytest.Object(`{apiVersion: v1, kind: Pod, metadata: {name: kube-apiserver-` + node + `, labels: {revision: "` + rev + `"}}, spec: {nodeName: ` + node + `}, status: {phase: Running, conditions: [{type: Ready, status: ` + status + `}]}}`)
}

func TestStaticPodsGateTrustsMirrorPodsNotClaims(t *testing.T) {
	sp := &planfile.StaticPodsGate{Resource: "kubeapiservers", Namespace: "openshift-kube-apiserver", PodPrefix: "kube-apiserver"}
	nodes := []*unstructured.Unstructured{
		applytest.Object(`{apiVersion: v1, kind: Node, metadata: {name: master-0, labels: {node-role.kubernetes.io/master: ""}}}`),
		applytest.Object(`{apiVersion: v1, kind: Node, metadata: {name: master-1, labels: {node-role.kubernetes.io/control-plane: ""}}}`),
		applytest.Object(`{apiVersion: v1, kind: Node, metadata: {name: master-2, labels: {node-role.kubernetes.io/master: ""}}}`),
		applytest.Object(`{apiVersion: v1, kind: Node, metadata: {name: worker-0, labels: {node-role.kubernetes.io/worker: ""}}}`),
	}
	cr := func(claim string) *unstructured.Unstructured {
		return applytest.Object(strings.Replace(kas, "%s", claim, 1))
	}
	all9 := []*unstructured.Unstructured{mirror(t, "master-0", "9", true), mirror(t, "master-1", "9", true), mirror(t, "master-2", "9", true)}

	if p := evalStaticPods(sp, nil, cr("9"), all9, nodes); !p.Met {
		t.Fatalf("all at 9: %+v", p)
	}
	// Incident 2: the operator claims master-2 is at 9; its mirror pod runs 8.
	behind := []*unstructured.Unstructured{all9[0], all9[1], mirror(t, "master-2", "8", true)}
	p := evalStaticPods(sp, nil, cr("9"), behind, nodes)
	if p.Met || len(p.Pending) != 1 || !strings.Contains(p.Pending[0], "master-2: mirror pod kube-apiserver-master-2 runs revision 8, latest is 9") || !strings.Contains(p.Pending[0], "claim is wrong") {
		t.Fatalf("incident 2: %+v", p)
	}
	// The pod moved on but the operator has not recorded it: still pending.
	p = evalStaticPods(sp, nil, cr("8"), all9, nodes)
	if p.Met || !strings.Contains(p.Message, "nodeStatuses say currentRevision 8") {
		t.Fatalf("claims lag: %+v", p)
	}
	// Not ready at the right revision.
	p = evalStaticPods(sp, nil, cr("9"), []*unstructured.Unstructured{all9[0], all9[1], mirror(t, "master-2", "9", false)}, nodes)
	if p.Met || !strings.Contains(p.Message, "not running and ready") {
		t.Fatalf("not ready: %+v", p)
	}
	// A missing mirror pod.
	p = evalStaticPods(sp, nil, cr("9"), all9[:2], nodes)
	if p.Met || !strings.Contains(p.Message, "master-2: mirror pod kube-apiserver-master-2 not found") {
		t.Fatalf("missing pod: %+v", p)
	}
}

func TestCVOGates(t *testing.T) {
	d0 := applytest.Object(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: cluster-version-operator, namespace: openshift-cluster-version, generation: 2}, spec: {replicas: 0}, status: {observedGeneration: 2}}`)
	pod := applytest.Object(`{apiVersion: v1, kind: Pod, metadata: {name: cluster-version-operator-abc}}`)
	if p := evalCVOScaledDown(d0, []*unstructured.Unstructured{pod}); p.Met || !strings.Contains(p.Message, "cluster-version-operator-abc") {
		t.Errorf("a pod left: %+v", p)
	}
	if p := evalCVOScaledDown(d0, nil); !p.Met {
		t.Errorf("scaled down: %+v", p)
	}
	d1 := applytest.Object(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: cluster-version-operator, generation: 3}, spec: {replicas: 1}, status: {observedGeneration: 3, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{type: Available, status: "True"}]}}`)
	cv := func(desired string) *unstructured.Unstructured {
		return applytest.Object(`{apiVersion: config.openshift.io/v1, kind: ClusterVersion, metadata: {name: version, generation: 4}, spec: {clusterID: x, desiredUpdate: {version: 4.4.4, image: "img@sha256:44"}}, status: {observedGeneration: 4, desired: {version: v, image: "` + desired + `"}}}`)
	}
	if p := evalCVORunning(d1, cv("img@sha256:43"), false); p.Met || !strings.Contains(p.Message, "not the desired update 4.4.4") {
		t.Errorf("CVO not acting yet: %+v", p)
	}
	refused := cv("img@sha256:43")
	conds := []any{map[string]any{"type": "ReleaseAccepted", "status": "False", "reason": "PreconditionChecks", "message": `Precondition "ClusterVersionUpgradeable" failed`}}
	if err := unstructured.SetNestedSlice(refused.Object, conds, "status", "conditions"); err != nil {
		t.Fatal(err)
	}
	if p := evalCVORunning(d1, refused, false); p.Met || !strings.Contains(p.Message, `not the desired update 4.4.4 (ReleaseAccepted=False, PreconditionChecks: Precondition "ClusterVersionUpgradeable" failed)`) {
		t.Errorf("CVO refusing the release: %+v", p)
	}
	// A plan that knows the CVO will still refuse the update waits for it to
	// run, and reports the refusal.
	if p := evalCVORunning(d1, refused, true); !p.Met || !strings.Contains(p.Message, "as the plan expected") || !strings.Contains(p.Message, "PreconditionChecks") {
		t.Errorf("CVO refusing the release as expected: %+v", p)
	}
	if p := evalCVORunning(nil, refused, true); p.Met {
		t.Errorf("no CVO Deployment, refusal expected: %+v", p)
	}
	if p := evalCVORunning(d1, cv("img@sha256:44"), true); !p.Met || strings.Contains(p.Message, "as the plan expected") {
		t.Errorf("CVO taking the update though a refusal was expected: %+v", p)
	}
	if p := evalCVORunning(d1, cv("img@sha256:44"), false); !p.Met {
		t.Errorf("CVO running: %+v", p)
	}
}

func TestPoolGate(t *testing.T) {
	pool := func(status string) *unstructured.Unstructured {
		return applytest.Object(`{apiVersion: machineconfiguration.openshift.io/v1, kind: MachineConfigPool, metadata: {name: master, generation: 2}, status: ` + status + `}`)
	}
	if p := evalPool("master", pool(`{observedGeneration: 2, machineCount: 3, updatedMachineCount: 3}`)); !p.Met {
		t.Errorf("updated: %+v", p)
	}
	if p := evalPool("master", pool(`{observedGeneration: 2, machineCount: 3, updatedMachineCount: 1, degradedMachineCount: 1}`)); p.Met || !strings.Contains(p.Message, "1 of 3 machines updated") || !strings.Contains(p.Message, "1 machines degraded") {
		t.Errorf("updating: %+v", p)
	}
	if p := evalPool("master", pool(`{observedGeneration: 1, machineCount: 3, updatedMachineCount: 3}`)); p.Met {
		t.Errorf("not observed: %+v", p)
	}
}

func TestKstatusGates(t *testing.T) {
	crd := applytest.Object(`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.example.com}, status: {conditions: [{type: NamesAccepted, status: "True"}, {type: Established, status: "False"}]}}`)
	if p := evalKstatus("CRD", crd); p.Met {
		t.Errorf("not established: %+v", p)
	}
	failed := applytest.Object(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, generation: 1}, spec: {replicas: 1}, status: {observedGeneration: 1, conditions: [{type: Progressing, status: "False", reason: ProgressDeadlineExceeded}]}}`)
	if p := evalKstatus("Deployment d", failed); p.Met || !p.Failed {
		t.Errorf("deadline exceeded should fail the gate: %+v", p)
	}
	if p := evalDeleted("ConfigMap x", nil); !p.Met {
		t.Errorf("gone: %+v", p)
	}
}
