package e2e_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
	"github.com/openshift-recover/recover/plan/planfile"
)

// clusterVersion is ClusterVersion/version's API path.
const clusterVersion objectPath = "/apis/config.openshift.io/v1/clusterversions/version"

// TestRemedyRemoveOverrides is the remove-overrides remedy end to end on
// examples/upgradeable-overrides, with the API answering ClusterVersion
// requests with 429s, 500s, 503s and reset connections: recover plan refuses
// without --accept remove-overrides (exit 3); with it the plan removes
// spec.overrides, warns that authentication's Upgradeable=False still holds
// 4.15.3 and lets restore-cvo expect that refusal; recover apply --yes (resumed
// after a fault stops it) completes, the CVO drops ClusterVersionOverridesSet
// but still refuses 4.15.3 for authentication alone, and the run changed only
// spec.overrides.
func TestRemedyRemoveOverrides(t *testing.T) {
	t.Parallel()
	c := load(t, "upgradeable-overrides")
	snap, _ := c.inspectCLI()
	codes := findingCodes(snap)
	if !slices.Contains(codes[inspect.CodeUnmanagedOverrides], "clusterversion/version") || !slices.Contains(codes[inspect.CodeUpgradeableFalse], "clusteroperator/authentication") {
		t.Errorf("inspect's findings %v lack the overrides or authentication's Upgradeable=False", codes)
	}

	objs := c.objects(cvoDeployment, clusterVersion)
	refused := c.recover("plan", "-o", "json")
	if refused.code != 3 || !strings.Contains(refused.stderr+refused.stdout, "--accept "+planfile.AcceptRemoveOverrides) {
		t.Fatalf("recover plan without --accept: %s; want exit 3 naming --accept %s", refused, planfile.AcceptRemoveOverrides)
	}
	p, path := c.planCLI("--accept", planfile.AcceptRemoveOverrides)
	want := []string{string(planfile.ActionRemoveOverrides), "wait:" + string(planfile.GateConditionCleared)}
	if got := stepShape(p); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the plan has steps %v, want %v", got, want)
	}
	cvoKeepsTheWheel(t, p)
	if !slices.ContainsFunc(p.Warnings, func(w string) bool {
		return strings.Contains(w, "still refuses") && strings.Contains(w, "clusteroperator/authentication")
	}) {
		t.Errorf("the plan does not say the CVO will still refuse what authentication holds: %v", p.Warnings)
	}
	if g := p.Steps[1].Gate; g.Reason != openshift.ReasonClusterVersionOverrides {
		t.Errorf("the wait after the remedy: %+v, want ClusterVersionOverridesSet cleared", g)
	}

	// Every request for ClusterVersion or a Deployment (the CVO's scale-down
	// and restore, the gates' reads and watches) may fail; a run a fault
	// stops is resumed.
	proxy, kc := c.faultProxy("apply", faultproxy.Options{Seed: 7,
		Filter: func(r *http.Request) bool {
			return strings.Contains(r.URL.Path, "/clusterversions") || strings.Contains(r.URL.Path, "/deployments")
		},
		Rates: map[faultproxy.Kind]float64{faultproxy.ServerError: 0.1, faultproxy.Unavailable: 0.1, faultproxy.Throttle: 0.1,
			faultproxy.ResetBefore: 0.05, faultproxy.ResetAfter: 0.1, faultproxy.CutWatch: 0.1}})
	journalPath := filepath.Join(c.dir, "run.journal")
	release := c.releaser(p)
	args := []string{"apply", "--plan", path, "--journal", journalPath, "--i-have-a-backup", "--yes", "--events", "json"}
	completed := false
	for attempt := 1; attempt <= 10 && !completed; attempt++ {
		pr := c.startCLI(kc, func(_ *proc, ev map[string]any) { release(ev) }, args...)
		code := pr.wait(t)
		completed = code == 0 && pr.result()["outcome"] == "completed"
		if !completed {
			t.Logf("attempt %d: exit %d, result %v; resuming", attempt, code, pr.result())
		}
		args = []string{"apply", "--resume", journalPath, "--yes", "--events", "json"}
	}
	if !completed {
		t.Fatalf("recover apply never completed under faults")
	}
	if n := proxy.Stats().Injected(); n < 3 {
		t.Errorf("the fault proxy injected %d faults; the run was hardly tested under faults", n)
	} else {
		t.Logf("the fault proxy injected %d faults", n)
	}

	config := configclient.NewForConfigOrDie(c.cfg)
	c.eventually("the CVO drops ClusterVersionOverridesSet but still refuses 4.15.3 for authentication", func() (bool, string, error) {
		cv, err := config.ConfigV1().ClusterVersions().Get(c.ctx, openshift.ClusterVersionName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		var up *configv1.ClusterOperatorStatusCondition
		for i := range cv.Status.Conditions {
			if cv.Status.Conditions[i].Type == configv1.OperatorUpgradeable {
				up = &cv.Status.Conditions[i]
			}
		}
		if up == nil {
			return false, "no Upgradeable condition", nil
		}
		return up.Status == configv1.ConditionFalse && up.Reason == "UnsupportedConfigOverrides_UnsupportedConfigOverridesSet" &&
				!strings.Contains(up.Message, openshift.ReasonClusterVersionOverrides) && cv.Status.Desired.Version == "4.14.20",
			fmt.Sprintf("Upgradeable=%s %s: %s; desired %s", up.Status, up.Reason, up.Message, cv.Status.Desired.Version), nil
	})
	c.assertChangedOnly(proxy.Log(), objs, map[objectPath]func(map[string]any){
		clusterVersion: func(o map[string]any) { delete(o["spec"].(map[string]any), "overrides") },
	})

	s := c.journalCLI(journalPath)
	if s.State != "finished" || len(s.Changes) != 1 {
		t.Fatalf("recover journal: state %s, changes %+v", s.State, s.Changes)
	}
	if ch := s.Changes[0]; ch.Action != string(planfile.ActionRemoveOverrides) || ch.Temporary || ch.State != "made" {
		t.Errorf("recover journal's change: %+v, want the removed overrides, lasting, made", ch)
	}
}
