package gate

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/applytest"
	"github.com/openshift-recover/recover/plan/planfile"
)

func node(t *testing.T, name, desired, last, state, ready string) *unstructured.Unstructured {
	return applytest.Object(`{apiVersion: v1, kind: Node, metadata: {name: ` + name + `, annotations: {
  machineconfiguration.openshift.io/desiredDrain: "` + desired + `", machineconfiguration.openshift.io/lastAppliedDrain: "` + last + `",
  machineconfiguration.openshift.io/state: "` + state + `", machineconfiguration.openshift.io/currentConfig: rendered-1, machineconfiguration.openshift.io/desiredConfig: rendered-1}},
  status: {conditions: [{type: Ready, status: "` + ready + `", reason: KubeletNotReady, message: "PLEG is not healthy"}]}}`)
}

func TestNodesGatesAskInspectsPredicates(t *testing.T) {
	nodes := []*unstructured.Unstructured{
		node(t, "worker-0", "drain-rendered-2", "drain-rendered-2", "Done", "True"),
		node(t, "worker-1", "drain-rendered-2", "uncordon-rendered-1", "Working", "False"),
	}
	p := evalNodes([]string{"worker-0"}, nodes, inspect.NodeSettled, "settled")
	if !p.Met || p.Message != "node worker-0 is settled" {
		t.Errorf("settled: %+v", p)
	}
	p = evalNodes([]string{"worker-1", "worker-0", "worker-9"}, nodes, inspect.NodeSettled, "settled")
	if p.Met || !strings.Contains(p.Message, "2 of 3 nodes not settled") || !strings.Contains(p.Message, "worker-1: drain request drain-rendered-2 not applied (last applied uncordon-rendered-1)") ||
		!strings.Contains(p.Message, "worker-1: machine-config daemon is Working") || !strings.Contains(p.Message, "worker-9: node does not exist") {
		t.Errorf("not settled: %+v", p)
	}
	p = evalNodes([]string{"worker-1"}, nodes, inspect.NodeReady, "Ready")
	if p.Met || !strings.Contains(p.Message, "worker-1: Ready=False (PLEG is not healthy)") {
		t.Errorf("not ready: %+v", p)
	}
}

func TestConditionClearedGate(t *testing.T) {
	co := func(conds string) *unstructured.Unstructured {
		return applytest.Object(`{apiVersion: config.openshift.io/v1, kind: ClusterOperator, metadata: {name: cloud-credential}, status: {conditions: ` + conds + `}}`)
	}
	cv := applytest.Object(`{apiVersion: config.openshift.io/v1, kind: ClusterVersion, metadata: {name: version}, spec: {clusterID: x}, status: {conditions: [{type: Upgradeable, status: "False", reason: AdminAckRequired, message: "ack 4.19"}]}}`)
	for _, tc := range []struct {
		name       string
		u          *unstructured.Unstructured
		cond, why  string
		met        bool
		wantSubstr string
	}{
		{"still false", co(`[{type: Upgradeable, status: "False", reason: MissingUpgradeableAnnotation, message: "needs the annotation"}]`), "Upgradeable", "MissingUpgradeableAnnotation", false, "still has Upgradeable=False (MissingUpgradeableAnnotation): needs the annotation"},
		{"true now", co(`[{type: Upgradeable, status: "True"}]`), "Upgradeable", "MissingUpgradeableAnnotation", true, "no longer has Upgradeable MissingUpgradeableAnnotation"},
		{"another reason", co(`[{type: Upgradeable, status: "False", reason: Other}]`), "Upgradeable", "MissingUpgradeableAnnotation", true, ""},
		{"absent", co(`[]`), "Upgradeable", "", true, ""},
		{"degraded is true when blocking", co(`[{type: Degraded, status: "True", reason: X}]`), "Degraded", "", false, "Degraded=True (X)"},
		{"cluster version", cv, "Upgradeable", "AdminAckRequired", false, "ClusterVersion version still has Upgradeable=False (AdminAckRequired)"},
	} {
		p := evalConditionCleared(tc.u.GetKind()+" "+tc.u.GetName(), tc.cond, tc.why, tc.u)
		if p.Met != tc.met || !strings.Contains(p.Message, tc.wantSubstr) {
			t.Errorf("%s: %+v", tc.name, p)
		}
	}
}

func TestRestoredGateComparesWithThePreImage(t *testing.T) {
	pdb := func(spec string) *unstructured.Unstructured {
		return applytest.Object(`{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: web, namespace: ns}, spec: ` + spec + `}`)
	}
	r := &Restore{Step: "002-relax", Fields: [][]string{{"spec", "minAvailable"}, {"spec", "maxUnavailable"}},
		PreImage: map[string]json.RawMessage{"spec.minAvailable": json.RawMessage(`2`), "spec.maxUnavailable": json.RawMessage(`null`)}}
	if p := evalRestored("PodDisruptionBudget ns/web", r, pdb(`{minAvailable: 2, selector: {}}`)); !p.Met {
		t.Errorf("restored: %+v", p)
	}
	p := evalRestored("PodDisruptionBudget ns/web", r, pdb(`{maxUnavailable: "100%"}`))
	if p.Met || !strings.Contains(p.Message, `spec.minAvailable is (absent), its pre-image 2`) || !strings.Contains(p.Message, `spec.maxUnavailable is "100%", its pre-image (absent)`) {
		t.Errorf("relaxed: %+v", p)
	}
	if p := evalRestored("x", &Restore{Step: "002"}, nil); !p.Met || !strings.Contains(p.Message, "made no change") {
		t.Errorf("nothing to restore: %+v", p)
	}
	if p := evalRestored("x", nil, nil); p.Met {
		t.Errorf("no pre-image given: %+v", p)
	}
}

func TestStaticPodsGateWaitsForTheForcedRevision(t *testing.T) {
	sp := &planfile.StaticPodsGate{Resource: "kubeapiservers", Namespace: "openshift-kube-apiserver", PodPrefix: "kube-apiserver", MinRevision: 10}
	nodes := []*unstructured.Unstructured{applytest.Object(`{apiVersion: v1, kind: Node, metadata: {name: master-0, labels: {node-role.kubernetes.io/master: ""}}}`)}
	cr := func(latest, claim string) *unstructured.Unstructured {
		return applytest.Object(`{apiVersion: operator.openshift.io/v1, kind: KubeAPIServer, metadata: {name: cluster}, status: {latestAvailableRevision: ` + latest + `, nodeStatuses: [{nodeName: master-0, currentRevision: ` + claim + `}]}}`)
	}
	p := evalStaticPods(sp, nil, cr("9", "9"), []*unstructured.Unstructured{mirror(t, "master-0", "9", true)}, nodes)
	if p.Met || !strings.Contains(p.Message, "latest revision is 9, waiting for revision 10") {
		t.Errorf("before the forced revision: %+v", p)
	}
	if p := evalStaticPods(sp, nil, cr("10", "10"), []*unstructured.Unstructured{mirror(t, "master-0", "10", true)}, nodes); !p.Met {
		t.Errorf("at the forced revision: %+v", p)
	}
}
