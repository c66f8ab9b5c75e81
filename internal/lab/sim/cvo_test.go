package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/plan/payload"
)

func (h *harness) scaleCVO(replicas int32) {
	h.t.Helper()
	deps := h.sim.kube.AppsV1().Deployments(openshift.CVONamespace)
	if err := retryConflict(h.ctx, func() error {
		d, err := deps.Get(h.ctx, openshift.CVODeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.Replicas = ptr.To(replicas)
		_, err = deps.Update(h.ctx, d, metav1.UpdateOptions{})
		return err
	}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) clusterVersion() *configv1.ClusterVersion {
	h.t.Helper()
	cv, err := h.sim.config.ConfigV1().ClusterVersions().Get(h.ctx, openshift.ClusterVersionName, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return cv
}

// appliedFiles returns the payload files the CVO applied in one pass, in order.
func appliedFiles(events []Event, mode, version string, pass int) []string {
	var files []string
	for _, e := range events {
		if m := e.Manifest; e.Reason == "Applied" && m != nil && m.Mode == mode && m.Version == version && m.Pass == pass {
			files = append(files, m.File)
		}
	}
	return files
}

// isSubsequence reports whether sub appears in seq in the same order.
func isSubsequence(sub, seq []string) bool {
	i := 0
	for _, s := range seq {
		if i < len(sub) && sub[i] == s {
			i++
		}
	}
	return i == len(sub)
}

// groupFiles returns the files of a loaded release's groups in the given order.
func groupFiles(groups []payload.Group) []string {
	var files []string
	for _, g := range groups {
		for _, m := range g.Manifests {
			files = append(files, m.File)
		}
	}
	return files
}

func TestCVOReconcilesInSeededShuffledOrder(t *testing.T) {
	f := newFixture()
	f.cvoReplicas = 1
	h := newHarness(t, f, Options{Seed: 42}, false)
	h.waitEvent("the CVO reconciles "+oldVersion, func(e Event) bool {
		return e.Reason == "ModeChanged" && e.Message == ModeReconciling+" "+oldVersion
	})
	rel, err := h.sim.releases.byVersion(oldVersion)
	if err != nil {
		t.Fatal(err)
	}
	groups := flattenedOrder(rel.Payload.Order, true, 42, 1)
	want := groupFiles(groups)
	h.waitEvent("the second Reconciling pass", func(e Event) bool {
		return e.Reason == "Applied" && e.Manifest != nil && e.Manifest.Mode == ModeReconciling && e.Manifest.Pass == 2
	})
	// A group stops at its first failure (a Deployment not yet rolled out), so
	// the pass applied the seeded permutation, less the tails of failed groups:
	// every group's first manifest, in the permutation's order.
	got := appliedFiles(h.sim.Events(), ModeReconciling, oldVersion, 1)
	if !isSubsequence(got, want) {
		t.Errorf("pass 1 applied\n%v\nwhich does not follow the seeded permutation\n%v", got, want)
	}
	for _, g := range groups {
		if !slices.Contains(got, g.Manifests[0].File) {
			t.Errorf("pass 1 never started the group of %s", g.Manifests[0].File)
		}
	}
	inPayloadOrder := groupFiles(rel.Payload.Order.Stages[0].Groups)
	for _, st := range rel.Payload.Order.Stages[1:] {
		inPayloadOrder = append(inPayloadOrder, groupFiles(st.Groups)...)
	}
	if slices.Equal(got, inPayloadOrder) {
		t.Errorf("Reconciling applied the payload in its own order; it must shuffle")
	}
	if slices.IsSortedFunc(got, func(a, b string) int { return levelOf(a) - levelOf(b) }) {
		t.Errorf("Reconciling applied by run level; it must not: %v", got)
	}
	// Reconciling never starts an update or touches the history.
	cv := h.clusterVersion()
	if len(cv.Status.History) != 1 || cv.Status.History[0].State != configv1.CompletedUpdate {
		t.Errorf("history changed while reconciling: %+v", cv.Status.History)
	}
}

func TestFlattenedOrderIsReproducible(t *testing.T) {
	dir := t.TempDir()
	root := writeRelease(t, dir, oldVersion, oldKube)
	p, err := loadPayloadDir(root, ReleaseRef{Version: oldVersion, Image: releaseImage(oldVersion)})
	if err != nil {
		t.Fatal(err)
	}
	a := groupFiles(flattenedOrder(p.Order, true, 7, 1))
	if b := groupFiles(flattenedOrder(p.Order, true, 7, 1)); !slices.Equal(a, b) {
		t.Errorf("the same seed and pass gave two orders:\n%v\n%v", a, b)
	}
	if b := groupFiles(flattenedOrder(p.Order, true, 8, 1)); slices.Equal(a, b) {
		t.Errorf("seeds 7 and 8 gave the same order %v", a)
	}
	if b := groupFiles(flattenedOrder(p.Order, true, 7, 2)); slices.Equal(a, b) {
		t.Errorf("passes 1 and 2 gave the same order (the CVO shifts each attempt): %v", a)
	}
	unshuffled := groupFiles(flattenedOrder(p.Order, false, 7, 1))
	var linear []string
	for _, m := range p.Order.Linear() {
		linear = append(linear, m.File)
	}
	if !slices.Equal(unshuffled, linear) {
		t.Errorf("the Initializing order must be the payload's:\n%v\nwant\n%v", unshuffled, linear)
	}
	slices.Sort(a)
	slices.Sort(unshuffled)
	if !slices.Equal(a, unshuffled) {
		t.Errorf("a permutation lost or added manifests")
	}
}

func levelOf(file string) int {
	level, _, _ := payload.ParseFileName(file)
	n, _ := strconv.Atoi(level)
	return n
}

func TestCVOStopsAtZeroReplicasAndResumes(t *testing.T) {
	f := newFixture()
	f.cvoReplicas = 1
	h := newHarness(t, f, Options{}, false)
	cms := h.sim.kube.CoreV1().ConfigMaps("openshift-dns-operator")
	h.eventually("the CVO creates the payload's ConfigMap", func() (bool, string, error) {
		_, err := cms.Get(h.ctx, "dns-operator-config", metav1.GetOptions{})
		return err == nil, fmt.Sprint(err), nil
	})
	h.scaleCVO(0)
	stopped := h.waitEvent("the CVO stops", func(e Event) bool { return e.Actor == "cvo" && e.Reason == "Stopped" })

	// Change something the CVO manages; a running CVO would put it back.
	if err := retryConflict(h.ctx, func() error {
		cm, err := cms.Get(h.ctx, "dns-operator-config", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Data["version"] = "edited by hand"
		_, err = cms.Update(h.ctx, cm, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// Give a wrongly running CVO several passes' worth of chances to act.
	time.Sleep(4 * (h.sim.timings().CVOInterval.Duration + time.Second))
	for _, e := range h.sim.Events() {
		if e.Seq > stopped.Seq && e.Actor == "cvo" {
			t.Fatalf("the CVO acted at 0 replicas: %s", e)
		}
	}
	if cm, err := cms.Get(h.ctx, "dns-operator-config", metav1.GetOptions{}); err != nil || cm.Data["version"] != "edited by hand" {
		t.Fatalf("the hand edit was reverted while the CVO was scaled down (%v)", err)
	}

	h.scaleCVO(1)
	h.waitEvent("the CVO starts again", func(e Event) bool { return e.Seq > stopped.Seq && e.Actor == "cvo" && e.Reason == "Started" })
	h.eventually("the CVO reverts the hand edit", func() (bool, string, error) {
		cm, err := cms.Get(h.ctx, "dns-operator-config", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return cm.Data["version"] == oldVersion, cm.Data["version"], nil
	})
}

func TestCVOUpdatesByRunLevelAndCompletes(t *testing.T) {
	f := newFixture()
	f.cvoReplicas = 1
	h := newHarness(t, f, Options{}, false)
	// recover apply hands the cluster back the way oc adm upgrade does.
	h.setDesiredUpdate(newVersion)
	h.waitEvent("an update starts", func(e Event) bool { return e.Reason == "UpdateStarted" })
	cv := h.clusterVersion()
	if len(cv.Status.History) != 2 || cv.Status.History[0].State != configv1.PartialUpdate || cv.Status.History[0].Version != newVersion || cv.Status.History[1].CompletionTime == nil {
		t.Fatalf("a new update must head the history as Partial and close the previous entry: %+v", cv.Status.History)
	}
	if cv.Status.Desired.Version != newVersion || cv.Status.Desired.Image != releaseImage(newVersion) {
		t.Fatalf("status.desired %+v, want %s", cv.Status.Desired, newVersion)
	}
	h.waitEvent("the update completes", func(e Event) bool {
		return e.Reason == "Completed" && e.Message == "history[0] Completed for "+newVersion
	})
	cv = h.clusterVersion()
	if cv.Status.History[0].State != configv1.CompletedUpdate || cv.Status.History[0].CompletionTime == nil {
		t.Errorf("history[0] after the update: %+v", cv.Status.History[0])
	}
	if c := findCondition(cv.Status.Conditions, configv1.OperatorProgressing); c == nil || c.Status != configv1.ConditionFalse || c.Message != "Cluster version is "+newVersion {
		t.Errorf("Progressing after the update: %+v", c)
	}
	for _, o := range testOperators {
		if co := h.clusterOperator(o.co); !atRelease(co, newVersion) {
			t.Errorf("%s after the update: %s", o.co, describeCO(co))
		}
	}
	for _, name := range f.masterNames() {
		if n := h.node(name); n.Status.NodeInfo.KubeletVersion != "v"+newKube {
			t.Errorf("%s kubelet %s after the update", name, n.Status.NodeInfo.KubeletVersion)
		}
	}
	if d, err := h.sim.kube.AppsV1().Deployments(openshift.CVONamespace).Get(h.ctx, openshift.CVODeployment, metav1.GetOptions{}); err != nil || d.Spec.Template.Spec.Containers[0].Image != releaseImage(newVersion) {
		t.Errorf("the CVO Deployment must run the new release image (its manifest is a template): %v", err)
	}

	// Updating applied run level after run level, and waited for each level's
	// ClusterOperator before starting the next.
	events := h.sim.Events()
	var applied []Event
	for _, e := range events {
		if e.Reason == "Applied" && e.Manifest != nil && e.Manifest.Mode == ModeUpdating && e.Manifest.Version == newVersion && e.Manifest.Pass == 1 {
			applied = append(applied, e)
		}
	}
	rel, err := h.sim.releases.byVersion(newVersion)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != len(rel.Manifests) {
		t.Errorf("Updating applied %d manifests, the payload has %d", len(applied), len(rel.Manifests))
	}
	for i := 1; i < len(applied); i++ {
		if levelOf(applied[i].Manifest.File) < levelOf(applied[i-1].Manifest.File) {
			t.Errorf("Updating applied %s after %s: run levels out of order", applied[i].Manifest.File, applied[i-1].Manifest.File)
		}
	}
	for _, o := range testOperators {
		reported := eventIndex(events, func(e Event) bool {
			return e.Actor == "operator/"+o.co && e.Reason == "VersionReported" && strings.HasPrefix(e.Message, "operator="+newVersion)
		})
		for _, a := range applied {
			if levelOf(a.Manifest.File) > o.runLevel && a.Seq < reported {
				t.Errorf("%s (level %d) was applied before %s (level %d) reported %s", a.Manifest.File, levelOf(a.Manifest.File), o.co, o.runLevel, newVersion)
				break
			}
		}
	}
	h.waitEvent("the CVO then reconciles the new release", func(e Event) bool {
		return e.Reason == "ModeChanged" && e.Message == ModeReconciling+" "+newVersion
	})
}

func TestCVORejectsAReleaseWithoutPayload(t *testing.T) {
	f := newFixture()
	f.cvoReplicas = 1
	h := newHarness(t, f, Options{}, false)
	h.setDesiredUpdate("4.4.5")
	h.waitEvent("the payload is rejected", func(e Event) bool { return e.Reason == "PayloadRejected" })
	cv := h.clusterVersion()
	if c := findCondition(cv.Status.Conditions, "ReleaseAccepted"); c == nil || c.Status != configv1.ConditionFalse {
		t.Errorf("ReleaseAccepted after an unknown image: %+v", c)
	}
	if len(cv.Status.History) != 1 {
		t.Errorf("an unloadable release must not start an update: %+v", cv.Status.History)
	}
}

func TestCVORetrievesThePayloadBeforeActing(t *testing.T) {
	f := newFixture()
	f.cvoReplicas = 1
	f.timing.PayloadLoad = metav1.Duration{Duration: time.Hour}
	h := newHarness(t, f, Options{}, false)
	loading := h.waitEvent("the CVO retrieves the payload", func(e Event) bool { return e.Reason == "PayloadLoading" })
	for _, e := range h.sim.Events() {
		if e.Actor == "cvo" && (e.Reason == "Applied" || e.Reason == "ModeChanged") {
			t.Fatalf("the CVO acted before its payload was loaded: %s", e)
		}
	}
	// A test shortens the retrieval once it is ready for the CVO to act.
	timing := f.timing
	timing.PayloadLoad = metav1.Duration{}
	h.sim.SetTiming(timing)
	h.waitEvent("the payload loads", func(e Event) bool { return e.Seq > loading.Seq && e.Reason == "PayloadLoaded" })
	h.waitEvent("the CVO reconciles", func(e Event) bool { return e.Reason == "ModeChanged" && e.Message == ModeReconciling+" "+oldVersion })
}
