package sim

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
)

// coHistory records every status a ClusterOperator goes through, from a watch.
type coHistory struct {
	mu       sync.Mutex
	statuses []configv1.ClusterOperatorStatus
}

func (h *harness) watchClusterOperator(name string) *coHistory {
	h.t.Helper()
	rec := &coHistory{}
	cos := h.sim.config.ConfigV1().ClusterOperators()
	list, err := cos.List(h.ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	if err != nil {
		h.t.Fatal(err)
	}
	w, err := cos.Watch(h.ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String(), ResourceVersion: list.ResourceVersion})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			if co, ok := ev.Object.(*configv1.ClusterOperator); ok && ev.Type == watch.Modified {
				rec.mu.Lock()
				rec.statuses = append(rec.statuses, *co.Status.DeepCopy())
				rec.mu.Unlock()
			}
		}
	}()
	return rec
}

// through waits until the watch has delivered a status reporting version (a Get
// can see it before the watch does) and returns the statuses so far.
func (r *coHistory) through(h *harness, version string) []configv1.ClusterOperatorStatus {
	h.t.Helper()
	var seen []configv1.ClusterOperatorStatus
	h.eventually("the watch delivers the status at "+version, func() (bool, string, error) {
		seen = r.snapshot()
		for _, st := range seen {
			if versionOf(&configv1.ClusterOperator{Status: st}, "operator") == version {
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("%d statuses", len(seen)), nil
	})
	return seen
}

func (r *coHistory) snapshot() []configv1.ClusterOperatorStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]configv1.ClusterOperatorStatus(nil), r.statuses...)
}

// checkRolloutOrder checks the order real operators change status in during a
// rollout: Progressing=True while still reporting the old version, then the new
// versions together with Progressing=False and Available=True; never a new version
// while Progressing.
func checkRolloutOrder(t *testing.T, name string, statuses []configv1.ClusterOperatorStatus, from, to string) {
	t.Helper()
	sawProgressing := false
	for i, st := range statuses {
		co := &configv1.ClusterOperator{Status: st}
		v := versionOf(co, "operator")
		progressing := conditionStatus(co, configv1.OperatorProgressing) == configv1.ConditionTrue
		switch {
		case v == from && progressing:
			sawProgressing = true
		case v == to && progressing:
			t.Errorf("%s status %d: reports %s while still Progressing", name, i, to)
		case v == to:
			if !sawProgressing {
				t.Errorf("%s status %d: reports %s without having been Progressing first", name, i, to)
			}
			if conditionStatus(co, configv1.OperatorAvailable) != configv1.ConditionTrue {
				t.Errorf("%s status %d: reports %s but not Available", name, i, to)
			}
			return
		}
	}
	t.Errorf("%s never reported %s; statuses seen: %d", name, to, len(statuses))
}

func TestPlainOperatorGoesProgressingThenReportsTheRelease(t *testing.T) {
	h := newHarness(t, newFixture(), Options{}, false)
	history := h.watchClusterOperator("dns")
	h.rollOperator("dns", newVersion)
	h.eventually("dns reports "+newVersion, func() (bool, string, error) {
		co := h.clusterOperator("dns")
		return atRelease(co, newVersion), describeCO(co), nil
	})
	checkRolloutOrder(t, "dns", history.through(h, newVersion), oldVersion, newVersion)
	// The other operators were not touched.
	if co := h.clusterOperator("monitoring"); !atRelease(co, oldVersion) {
		t.Errorf("monitoring moved without its Deployment changing: %s", describeCO(co))
	}
}

func TestOperatorFollowsADowngradeOfItsDeployment(t *testing.T) {
	h := newHarness(t, newFixture(), Options{}, false)
	h.rollOperator("monitoring", newVersion)
	h.eventually("monitoring reports "+newVersion, func() (bool, string, error) {
		co := h.clusterOperator("monitoring")
		return atRelease(co, newVersion), describeCO(co), nil
	})
	// The operator reports what its Deployment runs, whichever way it moves.
	h.rollOperator("monitoring", oldVersion)
	h.eventually("monitoring reports "+oldVersion+" again", func() (bool, string, error) {
		co := h.clusterOperator("monitoring")
		return atRelease(co, oldVersion), describeCO(co), nil
	})
}

func TestDegradedFaultHoldsUntilCleared(t *testing.T) {
	h := newHarness(t, newFixture(), Options{}, false)
	fault := Fault{Type: FaultDegraded, ClusterOperator: "dns", Reason: "DNSDegraded", Message: "2 of 5 dns pods are crash-looping"}
	if err := h.sim.InjectFault(fault); err != nil {
		t.Fatal(err)
	}
	h.eventually("dns Degraded=True with the fault's reason", func() (bool, string, error) {
		co := h.clusterOperator("dns")
		c := findCondition(co.Status.Conditions, configv1.OperatorDegraded)
		return c != nil && c.Status == configv1.ConditionTrue && c.Reason == "DNSDegraded" && c.Message == fault.Message, describeCO(co), nil
	})
	// A rollout does not clear it: the operator reports the release but stays Degraded.
	h.rollOperator("dns", newVersion)
	h.eventually("dns reports "+newVersion, func() (bool, string, error) {
		co := h.clusterOperator("dns")
		return versionOf(co, "operator") == newVersion, describeCO(co), nil
	})
	if co := h.clusterOperator("dns"); conditionStatus(co, configv1.OperatorDegraded) != configv1.ConditionTrue {
		t.Fatalf("dns is no longer Degraded after a rollout although the fault is active: %s", describeCO(co))
	}
	if !h.sim.ClearFault(Fault{Type: FaultDegraded, ClusterOperator: "dns"}) {
		t.Fatal("ClearFault found no active fault")
	}
	h.eventually("dns Degraded=False once the fault is cleared", func() (bool, string, error) {
		co := h.clusterOperator("dns")
		return atRelease(co, newVersion), describeCO(co), nil
	})
}

func TestStuckRolloutNeverReportsTheReleaseUntilCleared(t *testing.T) {
	h := newHarness(t, newFixture(), Options{}, false)
	if err := h.sim.InjectFault(Fault{Type: FaultStuckRollout, ClusterOperator: "monitoring"}); err != nil {
		t.Fatal(err)
	}
	h.rollOperator("monitoring", newVersion)
	h.waitEvent("the rollout is held", func(e Event) bool { return e.Actor == "operator/monitoring" && e.Reason == "RolloutStuck" })
	co := h.clusterOperator("monitoring")
	if versionOf(co, "operator") != oldVersion || conditionStatus(co, configv1.OperatorProgressing) != configv1.ConditionTrue {
		t.Fatalf("a stuck rollout must stay Progressing on the old version: %s", describeCO(co))
	}
	// Another operator is not held by it.
	h.rollOperator("dns", newVersion)
	h.eventually("dns reports "+newVersion, func() (bool, string, error) {
		co := h.clusterOperator("dns")
		return atRelease(co, newVersion), describeCO(co), nil
	})
	if co := h.clusterOperator("monitoring"); versionOf(co, "operator") != oldVersion {
		t.Fatalf("monitoring reported a version while stuck: %s", describeCO(co))
	}
	h.sim.ClearFault(Fault{Type: FaultStuckRollout, ClusterOperator: "monitoring"})
	h.eventually("monitoring finishes once the fault is cleared", func() (bool, string, error) {
		co := h.clusterOperator("monitoring")
		return atRelease(co, newVersion), describeCO(co), nil
	})
}

func TestFaultValidation(t *testing.T) {
	for _, tc := range []struct {
		fault Fault
		want  string
	}{
		{Fault{Type: "explode", ClusterOperator: "dns"}, "unknown fault type"},
		{Fault{Type: FaultDegraded}, "clusterOperator is empty"},
		{Fault{Type: FaultKubeletFalseSuccess, ClusterOperator: "kube-apiserver"}, "node is empty"},
		{Fault{ClusterOperator: "dns"}, "fault type is empty"},
	} {
		err := tc.fault.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: want an error containing %q, got %v", tc.fault, tc.want, err)
		}
	}
	if err := (Fault{Type: FaultKubeletFalseSuccess, ClusterOperator: "kube-apiserver", Node: "master-2"}).Validate(); err != nil {
		t.Errorf("a complete fault is valid: %v", err)
	}
}
