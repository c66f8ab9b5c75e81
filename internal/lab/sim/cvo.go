package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift-recover/recover/plan/payload"
)

// The CVO's modes (pkg/payload State).
const (
	ModeInitializing = "Initializing"
	ModeUpdating     = "Updating"
	ModeReconciling  = "Reconciling"
)

// cvoWorkers is the Updating mode's parallelism (cvo.go: configSync.Start(ctx, 16)).
const cvoWorkers = 16

// errRetarget ends a pass when desiredUpdate changed under it.
var errRetarget = errors.New("desired update changed")

// cvo is the fake cluster-version operator. It acts while its Deployment
// (openshift-cluster-version/cluster-version-operator) asks for at least one
// replica, and stops at once when scaled to 0. Each sync picks the mode the real
// CVO would (pkg/cvo/cvo.go): a desiredUpdate that differs from status.desired
// starts an update (a Partial history entry) in Updating mode; history[0]
// Completed for the desired image means Reconciling; no Completed entry at all
// means Initializing.
type cvo struct {
	s           *Sim
	deployments appslisters.DeploymentLister
	wake        chan struct{}

	mu          sync.Mutex
	cancel      context.CancelFunc
	stopped     chan struct{}
	release     string // the desired release being synced, for retarget checks
	mode        string // the mode and release of the current pass count
	passRelease string
	pass        int
	loaded      map[string]bool // payloads retrieved since this CVO started
}

func newCVO(s *Sim) *cvo { return &cvo{s: s, wake: make(chan struct{}, 1)} }

func (c *cvo) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *cvo) deploymentHandler() cache.ResourceEventHandler {
	on := func(obj any) {
		if d, ok := obj.(*appsv1.Deployment); ok && d.Namespace == openshift.CVONamespace && d.Name == openshift.CVODeployment {
			c.poke()
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    on,
		UpdateFunc: func(_, obj any) { on(obj) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			on(obj)
		},
	}
}

// active reports whether the CVO Deployment asks for a replica.
func (c *cvo) active() bool {
	d, err := c.deployments.Deployments(openshift.CVONamespace).Get(openshift.CVODeployment)
	if err != nil {
		return false
	}
	return d.Spec.Replicas == nil || *d.Spec.Replicas >= 1
}

// scaledDown reads the CVO Deployment from the API server (not the cache) and
// reports whether it asks for no replica.
func (c *cvo) scaledDown(ctx context.Context) bool {
	d, err := c.s.kube.AppsV1().Deployments(openshift.CVONamespace).Get(ctx, openshift.CVODeployment, metav1.GetOptions{})
	return err == nil && d.Spec.Replicas != nil && *d.Spec.Replicas == 0
}

// run starts and stops the sync loop as the Deployment is scaled.
func (c *cvo) run(ctx context.Context) {
	defer c.stop("the simulator stopped")
	for {
		if c.active() {
			c.start(ctx)
		} else {
			c.stop("scaled to 0 replicas")
		}
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
	}
}

func (c *cvo) start(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		return
	}
	runCtx, cancel := context.WithCancel(ctx)
	c.cancel, c.stopped = cancel, make(chan struct{})
	c.mode, c.release, c.passRelease, c.pass, c.loaded = "", "", "", 0, map[string]bool{}
	stopped := c.stopped
	c.s.rec.record("cvo", "Started", "Deployment "+openshift.CVONamespace+"/"+openshift.CVODeployment, "replicas >= 1: the CVO is running", nil)
	go func() {
		defer close(stopped)
		c.loop(runCtx)
	}()
}

func (c *cvo) stop(why string) {
	c.mu.Lock()
	cancel, stopped := c.cancel, c.stopped
	c.cancel, c.stopped = nil, nil
	c.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-stopped
	c.s.rec.record("cvo", "Stopped", "Deployment "+openshift.CVONamespace+"/"+openshift.CVODeployment, why+": the CVO no longer acts", nil)
}

// loop syncs, then waits Timing.CVOInterval (less when desiredUpdate changes).
func (c *cvo) loop(ctx context.Context) {
	for ctx.Err() == nil {
		again := c.sync(ctx)
		if again {
			continue
		}
		c.waitInterval(ctx)
	}
}

// waitInterval waits for the next sync: the interval (following SetTiming), or a
// retarget.
func (c *cvo) waitInterval(ctx context.Context) {
	start := time.Now()
	for time.Since(start) < c.s.timings().CVOInterval.Duration {
		if !pause(ctx, c.s.timings().CVOPoll.Duration, nil) || c.retargeted(ctx) {
			return
		}
	}
}

// getClusterVersion reads ClusterVersion/version.
func (c *cvo) getClusterVersion(ctx context.Context) (*configv1.ClusterVersion, error) {
	return c.s.config.ConfigV1().ClusterVersions().Get(ctx, openshift.ClusterVersionName, metav1.GetOptions{})
}

// desiredImage returns the release the ClusterVersion asks for: spec.desiredUpdate
// (by image, or by version resolved through the scenario's releases, as the CVO
// resolves it through its available updates), else status.desired.
func (c *cvo) desiredImage(cv *configv1.ClusterVersion) (string, error) {
	if du := cv.Spec.DesiredUpdate; du != nil && (du.Image != "" || du.Version != "") {
		if du.Image != "" {
			return du.Image, nil
		}
		ref, ok := c.s.scn.Release(du.Version)
		if !ok {
			return "", fmt.Errorf("version %s is not a known release (the scenario lists no image for it)", du.Version)
		}
		return ref.Image, nil
	}
	if cv.Status.Desired.Image != "" {
		return cv.Status.Desired.Image, nil
	}
	if ref, ok := c.s.scn.Release(cv.Status.Desired.Version); ok {
		return ref.Image, nil
	}
	return "", errors.New("ClusterVersion names no desired release")
}

// retargeted reports whether the desired release differs from the one being synced.
func (c *cvo) retargeted(ctx context.Context) bool {
	cv, err := c.getClusterVersion(ctx)
	if err != nil {
		return false
	}
	image, err := c.desiredImage(cv)
	c.mu.Lock()
	current := c.release
	c.mu.Unlock()
	return err == nil && image != current
}

// sync is one pass over the desired payload; it reports whether to sync again at once.
func (c *cvo) sync(ctx context.Context) bool {
	cv, err := c.getClusterVersion(ctx)
	if err != nil {
		if !apierrors.IsNotFound(err) && ctx.Err() == nil {
			c.s.rec.record("cvo", "Error", "ClusterVersion "+openshift.ClusterVersionName, err.Error(), nil)
		}
		return false
	}
	image, err := c.desiredImage(cv)
	var rel *Release
	if err == nil {
		rel, err = c.s.releases.byImage(image)
	}
	// The signature, for a release the cluster is not yet at (the real CVO
	// verifies it while it retrieves the payload, before the preconditions).
	if err == nil && cv.Status.Desired.Image != rel.Image {
		if why := c.unverified(ctx, rel); why != "" {
			c.setReleaseAccepted(ctx, "RetrievePayload", fmt.Sprintf("Retrieving payload failed version=%q image=%q failure=The update cannot be verified: %s", rel.Version, rel.Image, why), "VerifyPayloadFailed", why)
			c.mu.Lock()
			c.release = image
			c.mu.Unlock()
			return false
		}
	}
	// The precondition on Upgradeable, for a release the cluster is not yet at.
	// The real CVO checks it after retrieving and verifying the payload; here
	// it comes first, so that a scenario may name a target it has no payload
	// for and still be refused for the reason its must-gather shows.
	if err == nil && cv.Status.Desired.Image != rel.Image {
		if failed := c.upgradeablePrecondition(ctx, cv, rel); failed != "" {
			c.setReleaseAccepted(ctx, "PreconditionChecks", fmt.Sprintf("Preconditions failed for payload loaded version=%q image=%q: %s", rel.Version, rel.Image, failed), "PreconditionBlock", failed)
			c.mu.Lock()
			c.release = image
			c.mu.Unlock()
			return false
		}
	}
	if err == nil && rel.Manifests == nil {
		err = fmt.Errorf("release %s has no payload in the scenario", rel.Version)
	}
	if err == nil && cv.Spec.DesiredUpdate != nil && cv.Spec.DesiredUpdate.Version != "" && cv.Spec.DesiredUpdate.Version != rel.Version {
		err = fmt.Errorf("the release image %s is version %s, not the requested %s", image, rel.Version, cv.Spec.DesiredUpdate.Version)
	}
	if err != nil {
		c.rejectPayload(ctx, image, err)
		c.mu.Lock()
		c.release = image
		c.mu.Unlock()
		return false
	}
	if !c.retrieve(ctx, rel) {
		return false
	}
	// A CVO with its payload re-evaluates Upgradeable at every pass (its
	// upgradeable worker: cvo_upgradeable.go).
	c.syncUpgradeable(ctx)
	if cv.Status.Desired.Image != rel.Image {
		if cv, err = c.beginUpdate(ctx, rel); err != nil {
			return false
		}
	}
	mode := modeOf(cv, rel.Image)
	c.mu.Lock()
	changed := c.mode != mode || c.passRelease != rel.Image
	if changed {
		c.pass = 0
	}
	c.mode, c.passRelease = mode, rel.Image
	c.pass++
	pass := c.pass
	c.mu.Unlock()
	if changed {
		c.s.rec.record("cvo", "ModeChanged", "ClusterVersion "+openshift.ClusterVersionName, fmt.Sprintf("%s %s", mode, rel.Version), nil)
	}
	var ok bool
	if mode == ModeUpdating {
		ok, err = c.applyOrdered(ctx, rel, pass)
	} else {
		ok, err = c.applyFlattened(ctx, rel, mode, pass)
	}
	if errors.Is(err, errRetarget) {
		return true
	}
	if ctx.Err() != nil || !ok {
		return false
	}
	c.complete(ctx, rel)
	return false
}

// retrieve is the CVO retrieving and verifying rel's payload, which takes
// Timing.PayloadLoad (following SetTiming) the first time after each start. It reports false when the
// CVO stopped or the desired release changed meanwhile.
func (c *cvo) retrieve(ctx context.Context, rel *Release) bool {
	c.mu.Lock()
	done := c.loaded[rel.Image]
	c.release = rel.Image
	c.mu.Unlock()
	if done {
		return true
	}
	if d := c.s.timings().PayloadLoad.Duration; d > 0 {
		c.s.rec.record("cvo", "PayloadLoading", "ClusterVersion "+openshift.ClusterVersionName, fmt.Sprintf("retrieving the payload of %s (%s)", rel.Version, d), nil)
		start := time.Now()
		for time.Since(start) < c.s.timings().PayloadLoad.Duration {
			if !pause(ctx, c.s.timings().CVOPoll.Duration, nil) || c.retargeted(ctx) {
				return false
			}
		}
	}
	c.mu.Lock()
	c.loaded[rel.Image] = true
	c.mu.Unlock()
	c.s.rec.record("cvo", "PayloadLoaded", "ClusterVersion "+openshift.ClusterVersionName, fmt.Sprintf("payload of %s loaded", rel.Version), nil)
	return true
}

// modeOf is the CVO's choice of mode (pkg/cvo/cvo.go): no Completed entry at all is
// Initializing; history[0] Completed for the desired image is Reconciling; anything
// else is Updating.
func modeOf(cv *configv1.ClusterVersion, image string) string {
	h := cv.Status.History
	completed := false
	for _, e := range h {
		if e.State == configv1.CompletedUpdate {
			completed = true
			break
		}
	}
	switch {
	case !completed:
		return ModeInitializing
	case h[0].State == configv1.CompletedUpdate && h[0].Image == image:
		return ModeReconciling
	default:
		return ModeUpdating
	}
}

// updateClusterVersionStatus reads ClusterVersion/version, lets mutate change its
// status, and writes it back, retrying on conflicts.
func (c *cvo) updateClusterVersionStatus(ctx context.Context, mutate func(*configv1.ClusterVersion) bool) (*configv1.ClusterVersion, error) {
	cvs := c.s.config.ConfigV1().ClusterVersions()
	var out *configv1.ClusterVersion
	err := retryConflict(ctx, func() error {
		cv, err := cvs.Get(ctx, openshift.ClusterVersionName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !mutate(cv) {
			out = cv
			return nil
		}
		out, err = cvs.UpdateStatus(ctx, cv, metav1.UpdateOptions{})
		return err
	})
	return out, err
}

// beginUpdate records the start of an update to rel: the previous entry closes, a
// Partial entry for rel heads the history, status.desired names rel, and
// Progressing says the CVO works towards it (pkg/cvo/status.go mergeOperatorHistory).
func (c *cvo) beginUpdate(ctx context.Context, rel *Release) (*configv1.ClusterVersion, error) {
	now := metav1.Now()
	cv, err := c.updateClusterVersionStatus(ctx, func(cv *configv1.ClusterVersion) bool {
		if len(cv.Status.History) > 0 && cv.Status.History[0].CompletionTime == nil {
			cv.Status.History[0].CompletionTime = &now
		}
		entry := configv1.UpdateHistory{State: configv1.PartialUpdate, StartedTime: now, Version: rel.Version, Image: rel.Image, Verified: false}
		cv.Status.History = append([]configv1.UpdateHistory{entry}, cv.Status.History...)
		cv.Status.Desired = configv1.Release{Version: rel.Version, Image: rel.Image}
		cv.Status.ObservedGeneration = cv.Generation
		setCondition(&cv.Status.Conditions, conditionUpdate{Type: "ReleaseAccepted", Status: configv1.ConditionTrue, Reason: "PayloadLoaded", Message: fmt.Sprintf("Payload loaded version=%q image=%q", rel.Version, rel.Image)})
		setCondition(&cv.Status.Conditions, conditionUpdate{Type: configv1.OperatorProgressing, Status: configv1.ConditionTrue, Message: "Working towards " + rel.Version})
		setCondition(&cv.Status.Conditions, conditionUpdate{Type: "Failing", Status: configv1.ConditionFalse})
		return true
	})
	if err != nil {
		if ctx.Err() == nil {
			c.s.rec.record("cvo", "Error", "ClusterVersion "+openshift.ClusterVersionName, err.Error(), nil)
		}
		return nil, err
	}
	c.s.rec.record("cvo", "UpdateStarted", "ClusterVersion "+openshift.ClusterVersionName, fmt.Sprintf("Partial history entry for %s", rel.Version), nil)
	return cv, nil
}

// rejectPayload reports a release the CVO cannot load.
func (c *cvo) rejectPayload(ctx context.Context, image string, cause error) {
	c.setReleaseAccepted(ctx, "RetrievePayload", fmt.Sprintf("Retrieving payload failed version=%q image=%q failure=%v", "", image, cause), "PayloadRejected", cause.Error())
}

// setReleaseAccepted sets ReleaseAccepted=False with reason and message and,
// when that changed it, records event with eventMsg.
func (c *cvo) setReleaseAccepted(ctx context.Context, reason, msg, event, eventMsg string) {
	changed := false
	_, _ = c.updateClusterVersionStatus(ctx, func(cv *configv1.ClusterVersion) bool {
		if cond := findCondition(cv.Status.Conditions, "ReleaseAccepted"); cond != nil && cond.Status == configv1.ConditionFalse && cond.Reason == reason && cond.Message == msg {
			return false
		}
		setCondition(&cv.Status.Conditions, conditionUpdate{Type: "ReleaseAccepted", Status: configv1.ConditionFalse, Reason: reason, Message: msg})
		changed = true
		return true
	})
	if changed {
		c.s.rec.record("cvo", event, "ClusterVersion "+openshift.ClusterVersionName, eventMsg, nil)
	}
}

// complete marks a fully applied payload: history[0] Completed (the CVO does so
// after any successful pass, Reconciling included), Available "Done applying",
// Progressing False "Cluster version is".
func (c *cvo) complete(ctx context.Context, rel *Release) {
	now := metav1.Now()
	wasPartial := false
	_, err := c.updateClusterVersionStatus(ctx, func(cv *configv1.ClusterVersion) bool {
		changed := false
		if len(cv.Status.History) > 0 && cv.Status.History[0].Image == rel.Image && cv.Status.History[0].State != configv1.CompletedUpdate {
			cv.Status.History[0].State = configv1.CompletedUpdate
			cv.Status.History[0].CompletionTime = &now
			wasPartial, changed = true, true
		}
		for _, u := range []conditionUpdate{
			{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Message: "Done applying " + rel.Version},
			{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Message: "Cluster version is " + rel.Version},
			{Type: "Failing", Status: configv1.ConditionFalse},
		} {
			if cond := findCondition(cv.Status.Conditions, u.Type); cond == nil || cond.Status != u.Status || cond.Message != u.Message {
				setCondition(&cv.Status.Conditions, u)
				changed = true
			}
		}
		return changed
	})
	if err == nil && wasPartial {
		c.s.rec.record("cvo", "Completed", "ClusterVersion "+openshift.ClusterVersionName, fmt.Sprintf("history[0] Completed for %s", rel.Version), nil)
	}
}

// progress reports Updating progress in the Progressing and Failing conditions,
// writing only when the messages change.
func (c *cvo) progress(ctx context.Context, rel *Release, done, total int, waiting string, failing error) {
	msg := fmt.Sprintf("Working towards %s: %d of %d done (%d%% complete)", rel.Version, done, total, done*100/max(total, 1))
	if waiting != "" {
		msg += ", waiting on " + waiting
	}
	failingStatus, failingMsg := configv1.ConditionFalse, ""
	if failing != nil {
		failingStatus, failingMsg = configv1.ConditionTrue, failing.Error()
		msg = fmt.Sprintf("Unable to apply %s: %v", rel.Version, failing)
	}
	_, _ = c.updateClusterVersionStatus(ctx, func(cv *configv1.ClusterVersion) bool {
		p := findCondition(cv.Status.Conditions, configv1.OperatorProgressing)
		f := findCondition(cv.Status.Conditions, "Failing")
		if p != nil && p.Status == configv1.ConditionTrue && p.Message == msg && f != nil && f.Status == failingStatus && f.Message == failingMsg {
			return false
		}
		setCondition(&cv.Status.Conditions, conditionUpdate{Type: configv1.OperatorProgressing, Status: configv1.ConditionTrue, Message: msg})
		setCondition(&cv.Status.Conditions, conditionUpdate{Type: "Failing", Status: failingStatus, Reason: failingReason(failing), Message: failingMsg})
		return true
	})
}

func failingReason(err error) string {
	var co *coNotReady
	if errors.As(err, &co) {
		return co.reason
	}
	return ""
}

// applyOrdered applies rel in Updating mode, in plan/payload's rendering of the
// CVO's ByNumberAndComponent order: stage after stage, the groups (components) of a
// stage in parallel and each group's manifests in order, waiting after each
// manifest for what the CVO waits for. It reports whether every manifest was
// applied and healthy.
func (c *cvo) applyOrdered(ctx context.Context, rel *Release, pass int) (bool, error) {
	total := len(rel.Manifests)
	var done atomic.Int64
	cv, err := c.getClusterVersion(ctx)
	if err != nil {
		return false, nil
	}
	for _, stage := range rel.Payload.Order.Stages {
		c.progress(ctx, rel, int(done.Load()), total, "", nil)
		errs := make([]error, len(stage.Groups))
		sem := make(chan struct{}, cvoWorkers)
		var wg sync.WaitGroup
		for i, g := range stage.Groups {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				for _, m := range g.Manifests {
					if err := c.applyTask(ctx, rel, cv.UID, m, ModeUpdating, pass, true, func(waiting string, failing error) {
						c.progress(ctx, rel, int(done.Load()), total, waiting, failing)
					}); err != nil {
						errs[i] = err
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// applyFlattened applies rel in Reconciling (shuffled) or Initializing (payload
// order) mode: every group on its own, with no order between them; a group stops
// at its first failure and the others go on. It reports whether every manifest was
// applied and healthy.
func (c *cvo) applyFlattened(ctx context.Context, rel *Release, mode string, pass int) (bool, error) {
	groups := flattenedOrder(rel.Payload.Order, mode == ModeReconciling, c.s.seed, pass)
	cv, err := c.getClusterVersion(ctx)
	if err != nil {
		return false, nil
	}
	ok := true
	for _, g := range groups {
		for _, m := range g.Manifests {
			if err := c.applyTask(ctx, rel, cv.UID, m, mode, pass, false, nil); err != nil {
				if errors.Is(err, errRetarget) || ctx.Err() != nil {
					return false, err
				}
				ok = false
				break
			}
		}
	}
	return ok, nil
}

// coNotReady is a ClusterOperator that is not yet at the release.
type coNotReady struct {
	name, reason, msg string
}

func (e *coNotReady) Error() string { return e.msg }

// applyTask applies one manifest and checks what the CVO checks after it: a
// ClusterOperator reports the manifest's versions, Available and not Degraded; a
// CRD is Established; a Deployment or DaemonSet has rolled out. With wait, it
// polls until the check passes; without, one failed check fails the task.
func (c *cvo) applyTask(ctx context.Context, rel *Release, cvUID types.UID, m *payload.Manifest, mode string, pass int, wait bool, report func(waiting string, failing error)) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if c.retargeted(ctx) {
		return errRetarget
	}
	ref := &ManifestRef{Mode: mode, Version: rel.Version, File: m.File, RunLevel: m.RunLevel, Component: m.Component, Pass: pass}
	if m.Kind == "ClusterOperator" && m.Group == configv1.GroupName {
		if err := c.precreate(ctx, m); err != nil {
			return err
		}
		c.s.rec.record("cvo", "Applied", manifestName(m), "waiting for it to report the release", ref)
		return c.check(ctx, wait, report, func() error { return c.clusterOperatorReady(ctx, m) })
	}
	if m.Kind == "Deployment" && m.Namespace == openshift.CVONamespace && m.Name == openshift.CVODeployment && c.scaledDown(ctx) {
		// A CVO being scaled down is a terminating pod: it does not get to
		// apply its own Deployment (replicas 1) again.
		return context.Canceled
	}
	result, err := c.s.applyManifest(ctx, m, cvUID)
	if err != nil {
		if ctx.Err() == nil {
			c.s.rec.record("cvo", "ApplyFailed", manifestName(m), err.Error(), ref)
		}
		if !wait {
			return err
		}
		// The CVO retries failed tasks with backoff; so does the simulator.
		if err := c.check(ctx, true, report, func() error {
			result, err = c.s.applyManifest(ctx, m, cvUID)
			return err
		}); err != nil {
			return err
		}
	}
	c.s.rec.record("cvo", "Applied", manifestName(m), result.Done(), ref)
	if m.Delete {
		return nil
	}
	switch m.Kind + "." + m.Group {
	case "CustomResourceDefinition.apiextensions.k8s.io":
		return c.check(ctx, wait, report, func() error { return c.crdEstablished(ctx, m) })
	case "Deployment.apps", "DaemonSet.apps":
		if !result.Mutates() && !wait {
			return nil
		}
		return c.check(ctx, wait, report, func() error { return c.workloadRolledOut(ctx, m) })
	case "Job.batch":
		return c.check(ctx, wait, report, func() error { return c.jobSucceeded(ctx, m) })
	}
	return nil
}

// check runs cond once, or (wait) until it passes, reporting what it waits on.
func (c *cvo) check(ctx context.Context, wait bool, report func(string, error), cond func() error) error {
	for {
		err := cond()
		if err == nil || !wait {
			return err
		}
		if report != nil {
			var failing error
			var co *coNotReady
			if errors.As(err, &co) && co.reason != "ClusterOperatorUpdating" {
				failing = err
			}
			report(err.Error(), failing)
		}
		if !pause(ctx, c.s.timings().CVOPoll.Duration, nil) {
			return ctx.Err()
		}
		if c.retargeted(ctx) {
			return errRetarget
		}
	}
}

// precreate creates a ClusterOperator the payload declares and the cluster lacks,
// without status, so that it can be reported on (PrecreatingPayload).
func (c *cvo) precreate(ctx context.Context, m *payload.Manifest) error {
	cos := c.s.config.ConfigV1().ClusterOperators()
	if _, err := cos.Get(ctx, m.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return nil
	}
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: m.Name, Annotations: m.Object.GetAnnotations(), Labels: m.Object.GetLabels()}}
	if _, err := cos.Create(ctx, co, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// clusterOperatorReady is the CVO's checkOperatorHealth: every version the manifest
// declares is reported, Available=True, Degraded not True.
func (c *cvo) clusterOperatorReady(ctx context.Context, m *payload.Manifest) error {
	name := m.Name
	want := &configv1.ClusterOperator{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m.Object.Object, want); err != nil {
		return err
	}
	co, err := c.s.config.ConfigV1().ClusterOperators().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return &coNotReady{name: name, reason: "ClusterOperatorNotAvailable", msg: fmt.Sprintf("cluster operator %s: %v", name, err)}
	}
	if len(want.Status.Versions) == 0 {
		return &coNotReady{name: name, reason: "ClusterOperatorNoVersions", msg: fmt.Sprintf("cluster operator %s does not declare expected versions", name)}
	}
	if avail := findCondition(co.Status.Conditions, configv1.OperatorAvailable); avail == nil || avail.Status != configv1.ConditionTrue {
		return &coNotReady{name: name, reason: "ClusterOperatorNotAvailable", msg: fmt.Sprintf("the cluster operator %s is not available", name)}
	}
	if deg := findCondition(co.Status.Conditions, configv1.OperatorDegraded); deg != nil && deg.Status == configv1.ConditionTrue {
		return &coNotReady{name: name, reason: "ClusterOperatorDegraded", msg: fmt.Sprintf("the cluster operator %s is degraded", name)}
	}
	have := map[string]string{}
	for _, v := range co.Status.Versions {
		have[v.Name] = v.Version
	}
	for _, v := range want.Status.Versions {
		if have[v.Name] != v.Version {
			return &coNotReady{name: name, reason: "ClusterOperatorUpdating", msg: fmt.Sprintf("cluster operator %s is updating versions", name)}
		}
	}
	return nil
}

// crdEstablished checks that the manifest's CRD is Established.
func (c *cvo) crdEstablished(ctx context.Context, m *payload.Manifest) error {
	crd, err := c.s.crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, m.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, cond := range crd.Status.Conditions {
		if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("CustomResourceDefinition %s is not Established", crd.Name)
}

// workloadRolledOut checks a Deployment or DaemonSet the way the CVO's resource
// builders do: the controller observed the generation and every replica is
// updated and available.
func (c *cvo) workloadRolledOut(ctx context.Context, m *payload.Manifest) error {
	ns, name := m.Namespace, m.Name
	if m.Kind == "Deployment" {
		d, err := c.s.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		if d.Status.ObservedGeneration < d.Generation || d.Status.UpdatedReplicas < want || d.Status.AvailableReplicas < want || d.Status.UnavailableReplicas > 0 {
			return fmt.Errorf("deployment %s/%s is not available: %d of %d replicas updated, %d available", ns, name, d.Status.UpdatedReplicas, want, d.Status.AvailableReplicas)
		}
		return nil
	}
	ds, err := c.s.kube.AppsV1().DaemonSets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	st := ds.Status
	if st.ObservedGeneration < ds.Generation || st.UpdatedNumberScheduled < st.DesiredNumberScheduled || st.NumberAvailable < st.DesiredNumberScheduled {
		return fmt.Errorf("daemonset %s/%s is not available: %d of %d updated, %d available", ns, name, st.UpdatedNumberScheduled, st.DesiredNumberScheduled, st.NumberAvailable)
	}
	return nil
}

// jobSucceeded checks that the manifest's Job completed; the CVO waits for Jobs.
func (c *cvo) jobSucceeded(ctx context.Context, m *payload.Manifest) error {
	j, err := c.s.kube.BatchV1().Jobs(m.Namespace).Get(ctx, m.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, cond := range j.Status.Conditions {
		if cond.Type == batchv1.JobComplete && cond.Status == corev1.ConditionTrue {
			return nil
		}
		if cond.Type == batchv1.JobFailed && cond.Status == corev1.ConditionTrue {
			return fmt.Errorf("job %s/%s failed: %s", m.Namespace, m.Name, cond.Message)
		}
	}
	return fmt.Errorf("job %s/%s has not completed (%d succeeded)", m.Namespace, m.Name, j.Status.Succeeded)
}
