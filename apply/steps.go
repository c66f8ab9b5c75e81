package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan/planfile"
)

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	poolsGVR       = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}
)

// maxJournalDiff bounds the diff copied into an intent record.
const maxJournalDiff = 32 << 10

// mutation is one prepared change of a step, made the same way for every action:
// diff event, confirmation, journaled intent, the change, journaled outcome.
type mutation struct {
	// op is the operation (create, update, scale, patch, unchanged, ...).
	op     string
	object string
	diff   string
	// noop: nothing to change.
	noop   bool
	intent journal.Intent
	// commit makes the change; dryRun sends it as a server-side dry run (nil when
	// preparing it already did).
	commit func(ctx context.Context) (*journal.Outcome, error)
	dryRun func(ctx context.Context) error
	// critical steps (the CVO's, reverts) cannot be skipped.
	critical bool

	// The remediation facts, for the events (see ChangeInfo).
	remedy, revertedBy, reverts, vouchedBy, note string
	fields                                       []FieldChange
	preImage                                     map[string]json.RawMessage
	// recordNoop journals an intent and an "unchanged" outcome for a no-op (a
	// revert that finds the pre-image in place), so the journal knows.
	recordNoop bool
}

// changeInfo is the event form of a prepared mutation.
func (m *mutation) changeInfo(dryRun bool) *ChangeInfo {
	return &ChangeInfo{Operation: m.op, Object: m.object, Diff: m.diff, DryRun: dryRun, Remedy: m.remedy, Fields: m.fields,
		PreImage: m.preImage, RevertedBy: m.revertedBy, Reverts: m.reverts, VouchedBy: m.vouchedBy, Note: m.note}
}

// act prepares and makes a step's change.
func (r *run) act(ctx context.Context, s *planfile.Step, info StepInfo) error {
	if s.Spec().WaitOnly {
		return nil
	}
	m, err := r.prepare(ctx, s)
	if err != nil {
		return err
	}
	return r.mutate(ctx, s, info, m)
}

// prepare builds a step's change from the live cluster, without making it,
// through its action's executor (exec_<action>.go).
func (r *run) prepare(ctx context.Context, s *planfile.Step) (*mutation, error) {
	if ex := executorOf(s.Action); ex != nil {
		if m, err := ex.prepare(ctx, r, s); m != nil || err != nil {
			return m, err
		}
	}
	return nil, &Error{Outcome: OutcomeBadInput, Err: fmt.Errorf("step %s: unknown action %q", s.ID, s.Action)}
}

func (r *run) mutate(ctx context.Context, s *planfile.Step, info StepInfo, m *mutation) error {
	change := m.changeInfo(r.opts.DryRun)
	r.emit(Event{Type: EventDiff, Step: &info, Change: change, Message: m.op + " " + m.object})
	if r.opts.Confirm && !m.noop && !r.opts.DryRun {
		opts := []Decision{Abort, Proceed, Skip}
		if m.critical {
			opts = []Decision{Abort, Proceed}
		}
		d, err := r.decide(ctx, Request{Kind: RequestStep, Step: info, Message: fmt.Sprintf("%s %s (%s)", m.op, m.object, s.Reason), Change: change, Options: opts})
		if err != nil {
			return err
		}
		switch d {
		case Skip:
			return errSkip
		case Abort:
			return &Error{Outcome: OutcomeAborted, Err: fmt.Errorf("aborted by the user before step %s", s.ID)}
		}
	}
	applied := *change
	if r.opts.DryRun {
		if m.dryRun != nil && !m.noop {
			if err := m.dryRun(ctx); err != nil {
				return err
			}
		}
		applied.Result = "dry-run: would " + m.op
		if m.noop {
			applied.Result = m.op
		}
		r.emit(Event{Type: EventApplied, Step: &info, Change: &applied, Message: applied.Result + " " + m.object})
		return nil
	}
	if m.noop {
		if m.recordNoop {
			intent := m.intent
			if err := r.record(journal.Record{Type: journal.TypeIntent, Step: s.ID, Action: string(s.Action), Intent: &intent}); err != nil {
				return err
			}
			if err := r.record(journal.Record{Type: journal.TypeOutcome, Step: s.ID, Action: string(s.Action), Outcome: &journal.Outcome{Result: string(resource.OpUnchanged)}}); err != nil {
				return err
			}
		}
		applied.Result = m.op
		r.emit(Event{Type: EventApplied, Step: &info, Change: &applied, Message: m.op + " " + m.object})
		return nil
	}
	intent := m.intent
	if len(intent.Diff) > maxJournalDiff {
		intent.Diff = intent.Diff[:maxJournalDiff] + "\n... (truncated)\n"
	}
	if err := r.record(journal.Record{Type: journal.TypeIntent, Step: s.ID, Action: string(s.Action), Intent: &intent}); err != nil {
		return err
	}
	out, err := m.commit(ctx)
	if err != nil {
		return err
	}
	if err := r.record(journal.Record{Type: journal.TypeOutcome, Step: s.ID, Action: string(s.Action), Outcome: out}); err != nil {
		return err
	}
	applied.Result, applied.ResourceVersion = out.Result, out.ResourceVersion
	r.emit(Event{Type: EventApplied, Step: &info, Change: &applied, Message: out.Result + " " + m.object})
	return nil
}

func objectRef(apiVersion, kind, ns, name string) journal.ObjectRef {
	return journal.ObjectRef{APIVersion: apiVersion, Kind: kind, Namespace: ns, Name: name}
}

func isCVODeployment(m *planfile.Manifest) bool {
	return m != nil && openshift.IsCVODeployment(m.APIVersion, m.Kind, m.Namespace, m.Name)
}

// prepareManifest prepares an apply or delete with the CVO's semantics.
func (r *run) prepareManifest(ctx context.Context, s *planfile.Step) (*mutation, error) {
	mf := s.Manifest
	opts := resource.PrepareOptions{Delete: s.Spec().Deletes, PreserveReplicas: r.cvoDisabled && isCVODeployment(mf)}
	c, err := r.applier.Prepare(ctx, mf, opts)
	if err != nil {
		var unknown *resource.UnknownKindError
		if r.opts.DryRun && (apierrors.IsNotFound(err) || errors.As(err, &unknown)) {
			// A namespace or CRD an earlier step creates does not exist in a dry run.
			r.warn("step %s: cannot dry-run (%v); an earlier step probably creates what it needs", s.ID, err)
			return &mutation{op: "create (not validated)", object: s.Object(), noop: true}, nil
		}
		return nil, err
	}
	if opts.PreserveReplicas && c.Operation == resource.OpUpdate {
		r.warn("step %s: keeping the CVO deployment at its current replicas while the CVO is disabled; restore-cvo sets them", s.ID)
	}
	m := &mutation{op: string(c.Operation), object: c.Ref().String(), diff: c.Diff, noop: !c.Operation.Mutates()}
	m.intent = journal.Intent{Operation: string(c.Operation), Object: objectRef(mf.APIVersion, mf.Kind, mf.Namespace, mf.Name), ManifestDigest: mf.Digest, Diff: c.Diff}
	if c.Live != nil {
		m.intent.LiveUID, m.intent.LiveResourceVersion = string(c.Live.GetUID()), c.Live.GetResourceVersion()
	}
	m.commit = func(ctx context.Context) (*journal.Outcome, error) {
		res, err := r.applier.Commit(ctx, c)
		if err != nil {
			return nil, err
		}
		if mf.Kind == "CustomResourceDefinition" {
			r.e.mapper.Reset()
		}
		return &journal.Outcome{Result: res.Operation.Done(), UID: res.UID, ResourceVersion: res.ResourceVersion}, nil
	}
	return m, nil
}

// cvoDeployment reads the CVO's Deployment and its replicas. A transient
// failure is retried by the step loop (run.step), which prepares the step again.
func (r *run) cvoDeployment(ctx context.Context) (*unstructured.Unstructured, int32, error) {
	d, err := r.e.dyn.Resource(deploymentsGVR).Namespace(openshift.CVONamespace).Get(ctx, openshift.CVODeployment, metav1.GetOptions{})
	if err != nil {
		return nil, 0, fmt.Errorf("reading the CVO deployment %s/%s: %w", openshift.CVONamespace, openshift.CVODeployment, err)
	}
	replicas := int32(1)
	if v, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); found {
		replicas = int32(v)
	}
	return d, replicas, nil
}

func (r *run) scaleCVO(ctx context.Context, replicas int32, dryRun bool) (*unstructured.Unstructured, error) {
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	opts := metav1.PatchOptions{FieldManager: "recover"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return r.e.dyn.Resource(deploymentsGVR).Namespace(openshift.CVONamespace).Patch(ctx, openshift.CVODeployment, types.MergePatchType, patch, opts)
}

var cvoRef = objectRef("apps/v1", "Deployment", openshift.CVONamespace, openshift.CVODeployment)

// prepareDisableCVO records the CVO's replicas (from the journal when a previous
// run already scaled it down, never from the live 0) and scales it to 0.
func (r *run) prepareDisableCVO(ctx context.Context) (*mutation, error) {
	_, live, err := r.cvoDeployment(ctx)
	if err != nil {
		return nil, err
	}
	original := r.cvoOriginal
	if original == nil {
		v := live
		if v == 0 {
			v = max(ptrValue(r.p.Cluster.CVOReplicas, 1), 1)
			r.warn("the CVO is already scaled to 0 (not by this run); restore-cvo will scale it to %d", v)
		}
		original = &v
	}
	m := &mutation{op: "scale", object: planfile.CVODeploymentRef.String(), critical: true,
		diff:   fmt.Sprintf("spec.replicas: %d -> 0 (the CVO ran %d replica(s); journaled before the change)", live, *original),
		intent: journal.Intent{Operation: "scale-down", Object: cvoRef, CVOReplicas: original},
	}
	m.dryRun = func(ctx context.Context) error {
		_, err := r.scaleCVO(ctx, 0, true)
		return err
	}
	m.commit = func(ctx context.Context) (*journal.Outcome, error) {
		// The intent with the replicas is on disk: from here the CVO may be down.
		r.cvoOriginal, r.cvoDisabled = original, true
		r.emit(Event{Type: EventCVO, Message: fmt.Sprintf("scaling the cluster-version operator to 0 (it ran %d replica(s))", *original), CVO: &CVOInfo{State: CVOScalingDown, OriginalReplicas: original}})
		d, err := r.scaleCVO(ctx, 0, false)
		if err != nil {
			return nil, err
		}
		r.emit(Event{Type: EventCVO, Message: "the cluster-version operator is disabled; the run restores it at restore-cvo", CVO: &CVOInfo{State: CVODisabled, OriginalReplicas: original}})
		return &journal.Outcome{Result: "scaled", UID: string(d.GetUID()), ResourceVersion: d.GetResourceVersion()}, nil
	}
	return m, nil
}

// prepareRestoreCVO scales the CVO back to the journaled replicas.
func (r *run) prepareRestoreCVO(ctx context.Context) (*mutation, error) {
	_, live, err := r.cvoDeployment(ctx)
	if err != nil {
		return nil, err
	}
	replicas := ptrValue(r.cvoOriginal, ptrValue(r.p.Cluster.CVOReplicas, 1))
	if replicas < 1 {
		replicas = 1
	}
	if r.cvoOriginal == nil {
		r.warn("no original CVO replicas in the journal (disable-cvo did not run in it); restoring to %d", replicas)
	}
	m := &mutation{op: "scale", object: planfile.CVODeploymentRef.String(), critical: true,
		diff:   fmt.Sprintf("spec.replicas: %d -> %d", live, replicas),
		intent: journal.Intent{Operation: "scale-up", Object: cvoRef, CVOReplicas: &replicas},
	}
	m.dryRun = func(ctx context.Context) error {
		_, err := r.scaleCVO(ctx, replicas, true)
		return err
	}
	m.commit = func(ctx context.Context) (*journal.Outcome, error) {
		d, err := r.scaleCVO(ctx, replicas, false)
		if err != nil {
			return nil, err
		}
		r.cvoDisabled = false
		r.emit(Event{Type: EventCVO, Message: fmt.Sprintf("scaled the cluster-version operator back to %d; waiting for it to run", replicas), CVO: &CVOInfo{State: CVORestoring, Replicas: replicas, OriginalReplicas: r.cvoOriginal}})
		return &journal.Outcome{Result: "scaled", UID: string(d.GetUID()), ResourceVersion: d.GetResourceVersion()}, nil
	}
	return m, nil
}

// preparePaused pauses or unpauses a MachineConfigPool.
func (r *run) preparePaused(ctx context.Context, pool string, paused bool) (*mutation, error) {
	client := r.e.dyn.Resource(poolsGVR)
	u, err := client.Get(ctx, pool, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading MachineConfigPool %s: %w", pool, err)
	}
	cur, _, _ := unstructured.NestedBool(u.Object, "spec", "paused")
	m := &mutation{op: "patch", object: "MachineConfigPool " + pool, noop: cur == paused,
		diff:   fmt.Sprintf("spec.paused: %t -> %t", cur, paused),
		intent: journal.Intent{Operation: "patch", Object: objectRef("machineconfiguration.openshift.io/v1", "MachineConfigPool", "", pool), Before: fmt.Sprint(cur), After: fmt.Sprint(paused), LiveUID: string(u.GetUID()), LiveResourceVersion: u.GetResourceVersion()},
	}
	if m.noop {
		m.op, m.diff = string(resource.OpUnchanged), ""
	}
	patch := fmt.Appendf(nil, `{"spec":{"paused":%t}}`, paused)
	m.dryRun = func(ctx context.Context) error {
		_, err := client.Patch(ctx, pool, types.MergePatchType, patch, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "recover"})
		return err
	}
	m.commit = func(ctx context.Context) (*journal.Outcome, error) {
		out, err := client.Patch(ctx, pool, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "recover"})
		if err != nil {
			return nil, fmt.Errorf("patching MachineConfigPool %s: %w", pool, err)
		}
		return &journal.Outcome{Result: "patched", UID: string(out.GetUID()), ResourceVersion: out.GetResourceVersion()}, nil
	}
	return m, nil
}

// prepareDesiredUpdate sets ClusterVersion spec.desiredUpdate to the target, by
// digest, replacing the whole field (so no stale architecture or version is
// kept) but for acceptRisks: the risks the cluster already accepts stay, and
// the step's are added (openshift/api: "This list may contain entries that
// apply to current, previous or future updates").
func (r *run) prepareDesiredUpdate(ctx context.Context, du *planfile.DesiredUpdate) (*mutation, error) {
	client := r.e.dyn.Resource(clusterVersionsGVR)
	cv, err := client.Get(ctx, openshift.ClusterVersionName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading ClusterVersion version: %w", err)
	}
	want := map[string]any{"version": du.Version, "image": du.Image}
	if du.Force {
		want["force"] = true
	}
	cur, _, _ := unstructured.NestedMap(cv.Object, "spec", "desiredUpdate")
	live := acceptedRiskNames(cur)
	risks := slices.Clone(live)
	for _, n := range du.AcceptRisks {
		if !slices.Contains(risks, n) {
			risks = append(risks, n)
		}
	}
	if len(risks) > 0 {
		list := make([]any, 0, len(risks))
		for _, n := range risks {
			list = append(list, map[string]any{"name": n})
		}
		want["acceptRisks"] = list
	}
	before, _ := json.Marshal(cur)
	after, _ := json.Marshal(want)
	same := cur != nil && cur["version"] == du.Version && cur["image"] == du.Image && (cur["force"] == true) == du.Force && len(cur) == len(want) && slices.Equal(live, risks)
	m := &mutation{op: "update", object: "ClusterVersion version", noop: same,
		diff:   fmt.Sprintf("spec.desiredUpdate: %s -> %s", orDash(string(before)), after),
		intent: journal.Intent{Operation: "update", Object: objectRef("config.openshift.io/v1", "ClusterVersion", "", openshift.ClusterVersionName), Before: string(before), After: string(after), LiveUID: string(cv.GetUID()), LiveResourceVersion: cv.GetResourceVersion()},
	}
	if same {
		m.op, m.diff = string(resource.OpUnchanged), ""
	}
	update := func(ctx context.Context, dry bool) (*unstructured.Unstructured, error) {
		for attempt := 0; ; attempt++ {
			obj, err := client.Get(ctx, openshift.ClusterVersionName, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			if err := unstructured.SetNestedMap(obj.Object, want, "spec", "desiredUpdate"); err != nil {
				return nil, err
			}
			opts := metav1.UpdateOptions{FieldManager: "recover"}
			if dry {
				opts.DryRun = []string{metav1.DryRunAll}
			}
			out, err := client.Update(ctx, obj, opts)
			if apierrors.IsConflict(err) && attempt < 4 {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("updating ClusterVersion spec.desiredUpdate: %w", err)
			}
			return out, nil
		}
	}
	m.dryRun = func(ctx context.Context) error {
		_, err := update(ctx, true)
		return err
	}
	m.commit = func(ctx context.Context) (*journal.Outcome, error) {
		out, err := update(ctx, false)
		if err != nil {
			return nil, err
		}
		if got, _, _ := unstructured.NestedMap(out.Object, "spec", "desiredUpdate"); len(risks) > 0 && len(acceptedRiskNames(got)) == 0 {
			// The API server pruned the field: this cluster's ClusterVersion
			// schema has no acceptRisks (feature gate ClusterUpdateAcceptRisks
			// off), and its CVO does not hold conditional updates on them.
			r.warn("ClusterVersion spec.desiredUpdate.acceptRisks (%s) was not kept: this cluster's ClusterVersion has no such field (feature gate ClusterUpdateAcceptRisks off), so its CVO does not hold the update on those risks", strings.Join(risks, ", "))
		}
		return &journal.Outcome{Result: "updated", UID: string(out.GetUID()), ResourceVersion: out.GetResourceVersion()}, nil
	}
	return m, nil
}

// acceptedRiskNames are the names in a desiredUpdate's acceptRisks, in order.
func acceptedRiskNames(du map[string]any) []string {
	list, _ := du["acceptRisks"].([]any)
	var out []string
	for _, item := range list {
		if e, ok := item.(map[string]any); ok {
			if n, _ := e["name"].(string); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}
