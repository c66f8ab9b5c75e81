package sim

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

var env *kubetest.Env

func TestMain(m *testing.M) {
	kubetest.Main(m, kubetest.Options{Workloads: true}, &env)
}

// testTimeout bounds every integration test; nothing asserts how fast things
// happen. A walk through a whole payload takes about 100 s on an idle 2-core
// machine and 2.5 times that on CI with other packages beside it.
const testTimeout = 8 * time.Minute

// harness is one simulated cluster on its own API server.
type harness struct {
	t   *testing.T
	env *kubetest.Env
	sim *Sim
	ctx context.Context
}

// newHarness starts a fresh API server (the fixture's singletons would collide
// otherwise), loads the fixture into it and, unless noStart, starts the simulator.
func newHarness(t *testing.T, f *fixture, opts Options, noStart bool) *harness {
	t.Helper()
	kubetest.Require(t, env)
	scn, err := LoadScenario(f.write(t))
	if err != nil {
		t.Fatal(err)
	}
	h := loadHarness(t, scn, opts)
	if !noStart {
		h.start()
	}
	return h
}

// loadHarness loads scn into a fresh API server; on failure the test log gets the
// simulator's events.
func loadHarness(t *testing.T, scn *Scenario, opts Options) *harness {
	t.Helper()
	// Each harness has its own API server and simulator, so the tests that use
	// one run side by side (up to -parallel, GOMAXPROCS by default): they wait
	// on simulated delays far more than they compute.
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	fresh := env.ForTest(t)
	s, err := New(fresh.Config, scn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		// RECOVER_SIM_EVENTS=1 logs them for a passing test too.
		if t.Failed() || os.Getenv("RECOVER_SIM_EVENTS") != "" {
			for _, e := range s.Events() {
				t.Log(e.String())
			}
		}
	})
	if err := s.Load(ctx); err != nil {
		t.Fatalf("loading %s: %v", scn.Dir, err)
	}
	return &harness{t: t, env: fresh, sim: s, ctx: ctx}
}

func (h *harness) start() {
	h.t.Helper()
	if err := h.sim.Start(h.ctx); err != nil {
		h.t.Fatal(err)
	}
}

// eventually polls cond until it holds, failing the test with what with said last.
func (h *harness) eventually(what string, cond func() (bool, string, error)) {
	h.t.Helper()
	last := ""
	err := wait.PollUntilContextCancel(h.ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		ok, detail, err := cond()
		last = detail
		return ok, err
	})
	if err != nil {
		h.t.Fatalf("%s: never happened (%v); last seen: %s", what, err, last)
	}
}

// waitEvent waits for an event and returns it.
func (h *harness) waitEvent(what string, match func(Event) bool) Event {
	h.t.Helper()
	e, err := h.sim.WaitForEvent(h.ctx, match)
	if err != nil {
		h.t.Fatalf("%s: %v", what, err)
	}
	return e
}

func (h *harness) clusterOperator(name string) *configv1.ClusterOperator {
	h.t.Helper()
	co, err := h.sim.config.ConfigV1().ClusterOperators().Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return co
}

func (h *harness) node(name string) *corev1.Node {
	h.t.Helper()
	n, err := h.sim.kube.CoreV1().Nodes().Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

// setDesiredUpdate points ClusterVersion spec.desiredUpdate at a release, as
// recover apply's restore step and oc adm upgrade do.
func (h *harness) setDesiredUpdate(version string) {
	h.t.Helper()
	cvs := h.sim.config.ConfigV1().ClusterVersions()
	if err := retryConflict(h.ctx, func() error {
		cv, err := cvs.Get(h.ctx, openshift.ClusterVersionName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cv.Spec.DesiredUpdate = &configv1.Update{Version: version, Image: releaseImage(version)}
		_, err = cvs.Update(h.ctx, cv, metav1.UpdateOptions{})
		return err
	}); err != nil {
		h.t.Fatal(err)
	}
}

// rollOperator applies the new release's Deployment of operator co, as the CVO or
// recover apply would.
func (h *harness) rollOperator(co, version string) {
	h.t.Helper()
	for _, o := range testOperators {
		if o.co != co {
			continue
		}
		d := o.deployment(version)
		err := retryConflict(h.ctx, func() error {
			live, err := h.sim.kube.AppsV1().Deployments(o.namespace).Get(h.ctx, o.name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			live.Spec.Template = d.Spec.Template
			_, err = h.sim.kube.AppsV1().Deployments(o.namespace).Update(h.ctx, live, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			h.t.Fatal(err)
		}
		return
	}
	h.t.Fatalf("no test operator %s", co)
}

func versionOf(co *configv1.ClusterOperator, name string) string {
	for _, v := range co.Status.Versions {
		if v.Name == name {
			return v.Version
		}
	}
	return ""
}

func conditionStatus(co *configv1.ClusterOperator, t configv1.ClusterStatusConditionType) configv1.ConditionStatus {
	if c := findCondition(co.Status.Conditions, t); c != nil {
		return c.Status
	}
	return ""
}

func describeCO(co *configv1.ClusterOperator) string {
	return fmt.Sprintf("versions %s, Available=%s Progressing=%s Degraded=%s", formatVersions(co.Status.Versions),
		conditionStatus(co, configv1.OperatorAvailable), conditionStatus(co, configv1.OperatorProgressing), conditionStatus(co, configv1.OperatorDegraded))
}

// atRelease reports whether a ClusterOperator reports version, Available, not
// Degraded and not Progressing.
func atRelease(co *configv1.ClusterOperator, version string) bool {
	return versionOf(co, "operator") == version &&
		conditionStatus(co, configv1.OperatorAvailable) == configv1.ConditionTrue &&
		conditionStatus(co, configv1.OperatorDegraded) == configv1.ConditionFalse &&
		conditionStatus(co, configv1.OperatorProgressing) == configv1.ConditionFalse
}
