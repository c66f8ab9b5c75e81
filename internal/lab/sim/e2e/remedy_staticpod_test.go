package e2e_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan/planfile"
)

const acceptKubeAPIServer = "force-redeployment:kube-apiserver"

// kubeAPIServerStatus reads kubeapiservers.operator.openshift.io/cluster.
func (c *cluster) kubeAPIServerStatus() (operatorv1.StaticPodOperatorSpec, operatorv1.StaticPodOperatorStatus) {
	c.t.Helper()
	u, err := dynamic.NewForConfigOrDie(c.cfg).Resource(schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "kubeapiservers"}).Get(c.ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		c.t.Fatal(err)
	}
	var k operatorv1.KubeAPIServer
	if err := json.Unmarshal(data, &k); err != nil {
		c.t.Fatal(err)
	}
	return k.Spec.StaticPodOperatorSpec, k.Status.StaticPodOperatorStatus
}

// TestRemedyForceRedeployment is the force-redeployment remedy end to end on
// examples/static-pod-stuck: every installer of kube-apiserver revision 9 fails
// on master-1. recover plan refuses to restart the control plane without
// --accept force-redeployment:kube-apiserver (exit 3, printing the line to
// run); with it, recover apply --yes completes, revision 10 runs on every
// master (mirror pods and nodeStatuses), kube-apiserver reports 4.4.4 and is not
// Degraded, the restored CVO completes the update, and the run changed only
// spec.forceRedeploymentReason.
func TestRemedyForceRedeployment(t *testing.T) {
	t.Parallel()
	c := load(t, "static-pod-stuck")
	snap, wedge := c.inspectCLI()
	if want := "1. BLOCKS StaticPodRolloutStuck node/master-1"; wedge != want {
		t.Errorf("the wedge summary's first line is %q, want %q", wedge, want)
	}
	stuck := snap.FindingsWithCode(inspect.CodeStaticPodRolloutStuck)
	if len(stuck) != 1 || stuck[0].Details["component"] != "kube-apiserver" || stuck[0].Details["lastFailed"] != "9" {
		t.Errorf("inspect's StaticPodRolloutStuck: %+v", stuck)
	}

	objs := c.objects(cvoDeployment, kubeAPIServer)
	refused := c.recover("plan", "-o", "json")
	if refused.code != 3 || !strings.Contains(refused.stderr+refused.stdout, "--accept "+acceptKubeAPIServer) {
		t.Fatalf("recover plan without --accept: %s; want exit 3 with the --accept %s line", refused, acceptKubeAPIServer)
	}
	table := c.recover("plan")
	// The line to run after review is the command as given, plus --accept.
	line := "recover plan --kubeconfig " + c.kubeconfig + " --accept " + acceptKubeAPIServer
	if table.code != 3 || !strings.Contains(table.stdout, "\n  "+line+"\n") {
		t.Errorf("recover plan (table) without --accept: %s; want exit 3 printing `%s`", table, line)
	}

	p, path := c.planCLI("--accept", acceptKubeAPIServer)
	want := []string{"force-redeployment:static-pods"}
	if got := stepShape(p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the plan has steps %v, want %v", got, want)
	}
	cvoKeepsTheWheel(t, p)
	force := p.Steps[0]
	if g := force.Gate.StaticPods; g == nil || g.MinRevision != 10 || g.Resource != "kubeapiservers" {
		t.Errorf("the force-redeployment's gate: %+v, want kubeapiservers at revision 10 at least", force.Gate.StaticPods)
	}

	audit, journalPath := c.applyAudited(p, path)

	spec, st := c.kubeAPIServerStatus()
	if st.LatestAvailableRevision != 10 {
		t.Errorf("latestAvailableRevision %d after the run, want 10", st.LatestAvailableRevision)
	}
	for _, ns := range st.NodeStatuses {
		if ns.CurrentRevision != 10 || ns.TargetRevision != 0 {
			t.Errorf("%s after the run: current %d, target %d, want 10", ns.NodeName, ns.CurrentRevision, ns.TargetRevision)
		}
	}
	kube := kubernetes.NewForConfigOrDie(c.cfg)
	for _, n := range []string{"master-0", "master-1", "master-2"} {
		pod, err := kube.CoreV1().Pods("openshift-kube-apiserver").Get(c.ctx, "kube-apiserver-"+n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod.Labels["revision"] != "10" {
			t.Errorf("the mirror pod on %s runs revision %s, want 10", n, pod.Labels["revision"])
		}
	}
	c.operatorSettles("kube-apiserver", "4.4.4")
	c.updateCompletes("4.4.4")
	c.assertFindingsGone(inspect.CodeStaticPodRolloutStuck)
	reason := spec.ForceRedeploymentReason
	if reason == "" || !strings.Contains(js(force.Change.Patch), reason) {
		t.Errorf("forceRedeploymentReason after the run is %q, not the plan's %s", reason, js(force.Change.Patch))
	}
	c.assertChangedOnly(audit.Log(), objs, map[objectPath]func(map[string]any){
		kubeAPIServer: func(o map[string]any) { setField(o, "spec.forceRedeploymentReason", reason) },
	})

	s := c.journalCLI(journalPath)
	if len(s.Changes) != 1 || s.Changes[0].Action != string(planfile.ActionForceRedeployment) || s.Changes[0].State != "made" {
		t.Errorf("recover journal's changes: %+v, want the forced redeployment, made", s.Changes)
	}
}

// operatorSettles waits until the ClusterOperator reports version and is not
// Degraded.
func (c *cluster) operatorSettles(name, version string) {
	c.t.Helper()
	config := configclient.NewForConfigOrDie(c.cfg)
	c.eventually(name+" reports "+version+" and is not Degraded", func() (bool, string, error) {
		co, err := config.ConfigV1().ClusterOperators().Get(c.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return operatorVersion(co) == version && condition(co.Status.Conditions, configv1.OperatorDegraded) == configv1.ConditionFalse,
			fmt.Sprintf("%s, Degraded=%s", operatorVersion(co), condition(co.Status.Conditions, configv1.OperatorDegraded)), nil
	})
}

// updateCompletes waits until the restored CVO records version Completed.
func (c *cluster) updateCompletes(version string) {
	c.t.Helper()
	config := configclient.NewForConfigOrDie(c.cfg)
	c.eventually("the restored CVO completes "+version, func() (bool, string, error) {
		cv, err := config.ConfigV1().ClusterVersions().Get(c.ctx, "version", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		h := cv.Status.History[0]
		return h.Version == version && h.State == configv1.CompletedUpdate, fmt.Sprintf("%s %s", h.State, h.Version), nil
	})
}
