package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan/planfile"
)

// A remediation step's change (relax-pdb, force-redeployment,
// acknowledge-admin-gate, remove-overrides, annotate-upgradeable-to, and
// unpause-pool as a remedy) is one mechanism: a JSON merge patch of one object.
// The live values of the fields it sets, its pre-image, are journaled (fsync'd)
// before the patch; the patch carries the live resourceVersion, so a concurrent
// write makes it fail with a conflict and the step is prepared again from the
// live state. A revert step writes the journaled pre-image back.

// RefusedError is a step the engine refuses to take because the live cluster is
// not what the plan was made for: another object under the same name, a CSR that
// changed or that nobody vouches for any more. Nothing was changed for it.
type RefusedError struct {
	Step   string
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("step %s refused: %s", e.Step, e.Reason)
}

func refuse(s *planfile.Step, format string, args ...any) *RefusedError {
	return &RefusedError{Step: s.ID, Reason: fmt.Sprintf(format, args...)}
}

// changedObject is a Change's object, mapped and read live.
type changedObject struct {
	ref    journal.ObjectRef
	client dynamic.ResourceInterface
	live   *unstructured.Unstructured
}

func changeRef(o planfile.ObjectRef) journal.ObjectRef { return o }

// objectClient maps a Change's object to its resource.
func (r *run) objectClient(o planfile.ObjectRef) (dynamic.ResourceInterface, schema.GroupVersionResource, error) {
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return nil, schema.GroupVersionResource{}, fmt.Errorf("object %s %s: %w", o.Kind, o.Name, err)
	}
	mapping, err := r.e.mapper.Mapping(gv.WithKind(o.Kind))
	if err != nil {
		return nil, schema.GroupVersionResource{}, err
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		if o.Namespace == "" {
			return nil, schema.GroupVersionResource{}, fmt.Errorf("%s %s is namespaced but the change names no namespace", o.Kind, o.Name)
		}
		return r.e.dyn.Resource(mapping.Resource).Namespace(o.Namespace), mapping.Resource, nil
	}
	return r.e.dyn.Resource(mapping.Resource), mapping.Resource, nil
}

// readChanged reads a Change's object live.
func (r *run) readChanged(ctx context.Context, s *planfile.Step, o planfile.ObjectRef) (*changedObject, error) {
	client, _, err := r.objectClient(o)
	if err != nil {
		return nil, err
	}
	ref := changeRef(o)
	var live *unstructured.Unstructured
	err = retry.Do(ctx, func() (err error) {
		live, err = client.Get(ctx, o.Name, metav1.GetOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil, refuse(s, "%s does not exist (deleted since the plan was made): make a new plan with 'recover plan'", ref.String())
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", ref.String(), err)
	}
	return &changedObject{ref: ref, client: client, live: live}, nil
}

// journaledStep is what the journal written so far says about a step (nil
// without a journal, in a dry run).
func (r *run) journaledStep(id string) *journal.StepState {
	if r.j == nil {
		return nil
	}
	return r.j.State().Step(id)
}

// withFields returns a copy of obj with each field set to its value in vals
// (null: removed).
func withFields(obj map[string]any, fields [][]string, vals map[string]json.RawMessage) map[string]any {
	out := resource.ApplyMergePatch(obj, nil)
	for _, f := range fields {
		var v any
		_ = json.Unmarshal(vals[journal.FieldKey(f)], &v)
		m := out
		for _, p := range f[:len(f)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				if v == nil {
					m = nil
					break
				}
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		if m == nil {
			continue
		}
		if v == nil {
			delete(m, f[len(f)-1])
		} else {
			m[f[len(f)-1]] = v
		}
	}
	return out
}

// fieldChanges lists the fields whose value differs between from and to.
func fieldChanges(fields [][]string, from, to map[string]json.RawMessage) []FieldChange {
	var out []FieldChange
	for _, f := range fields {
		k := journal.FieldKey(f)
		if !resource.SameJSON(from[k], to[k]) {
			out = append(out, FieldChange{Path: k, From: from[k], To: to[k]})
		}
	}
	return out
}

func diffLines(fcs []FieldChange) string {
	var b strings.Builder
	for _, fc := range fcs {
		fmt.Fprintf(&b, "%s: %s -> %s\n", fc.Path, resource.ValueText(fc.From), resource.ValueText(fc.To))
	}
	return b.String()
}

func rawJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// mismatched returns the fields whose live value is neither of the two
// expected ones, described for an error ("spec.minAvailable is 2").
func mismatched(fields [][]string, live, a, b map[string]json.RawMessage) []string {
	var out []string
	for _, f := range fields {
		k := journal.FieldKey(f)
		if !resource.SameJSON(live[k], a[k]) && !resource.SameJSON(live[k], b[k]) {
			out = append(out, fmt.Sprintf("%s is %s", k, resource.ValueText(live[k])))
		}
	}
	return out
}

// withResourceVersion adds metadata.resourceVersion to a merge patch: the
// server applies it only to that version of the object.
func withResourceVersion(patch map[string]any, rv string) []byte {
	p := resource.ApplyMergePatch(patch, nil)
	md, _ := p["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		p["metadata"] = md
	}
	md["resourceVersion"] = rv
	data, _ := json.Marshal(p)
	return data
}

// prepareChange prepares a remediation step's merge patch.
func (r *run) prepareChange(ctx context.Context, s *planfile.Step) (*mutation, error) {
	ch := s.Change
	obj, err := r.readChanged(ctx, s, ch.Object)
	if err != nil {
		return nil, err
	}
	live := obj.live
	if ch.UID != "" && string(live.GetUID()) != ch.UID {
		return nil, refuse(s, "%s has UID %s, not the plan's %s: it was deleted and recreated since the plan was made; make a new plan with 'recover plan'", obj.ref.String(), live.GetUID(), ch.UID)
	}
	patch, err := resource.DecodePatch(ch.Patch)
	if err != nil {
		return nil, &Error{Outcome: OutcomeBadInput, Err: fmt.Errorf("step %s: %w", s.ID, err)}
	}
	liveVals := resource.FieldValues(live.Object, ch.Fields)
	pre := liveVals
	js := r.journaledStep(s.ID)
	resumed := js != nil && js.PreImage != nil
	if resumed {
		// An earlier attempt journaled its pre-image: that is the object as it
		// was before anything was changed; the live one may already be.
		pre = js.PreImage
		if js.ObjectUID != "" && string(live.GetUID()) != js.ObjectUID {
			return nil, refuse(s, "%s has UID %s, not %s as when its pre-image was journaled: it was recreated since; check it and make a new plan", obj.ref.String(), live.GetUID(), js.ObjectUID)
		}
	}
	after := resource.FieldValues(resource.ApplyMergePatch(withFields(live.Object, ch.Fields, pre), patch), ch.Fields)
	if bad := mismatched(ch.Fields, liveVals, pre, after); len(bad) > 0 {
		return nil, fmt.Errorf("%s changed since step %s journaled its pre-image: %s, neither its pre-image nor what the step sets; someone else edited it: check it, then resume, or make a new plan",
			obj.ref.String(), s.ID, strings.Join(bad, ", "))
	}
	changes := fieldChanges(ch.Fields, liveVals, after)
	m := &mutation{op: "patch", object: obj.ref.String(), noop: len(changes) == 0, diff: diffLines(changes),
		fields: changes, preImage: pre, remedy: s.Remedy, revertedBy: s.RevertedBy}
	m.intent = journal.Intent{Operation: "patch", Object: obj.ref, LiveUID: string(live.GetUID()), LiveResourceVersion: live.GetResourceVersion(),
		PreImage: pre, After: rawJSON(after), Temporary: s.RevertedBy != "", Diff: m.diff}
	if m.noop {
		m.op, m.diff = string(resource.OpUnchanged), ""
	}
	body := withResourceVersion(patch, live.GetResourceVersion())
	m.dryRun = func(ctx context.Context) error {
		_, err := obj.client.Patch(ctx, live.GetName(), types.MergePatchType, body, metav1.PatchOptions{FieldManager: "recover", DryRun: []string{metav1.DryRunAll}})
		return err
	}
	m.commit = func(ctx context.Context) (*journal.Outcome, error) {
		out, err := obj.client.Patch(ctx, live.GetName(), types.MergePatchType, body, metav1.PatchOptions{FieldManager: "recover"})
		if err != nil {
			return nil, fmt.Errorf("patching %s: %w", obj.ref.String(), err)
		}
		return &journal.Outcome{Result: "patched", UID: string(out.GetUID()), ResourceVersion: out.GetResourceVersion()}, nil
	}
	return m, nil
}

// revertTarget returns the step a revert undoes.
func (r *run) revertTarget(s *planfile.Step) (*planfile.Step, error) { return revertTarget(r.p, s) }

// revertTarget returns the step of p that the revert step s undoes.
func revertTarget(p *planfile.Plan, s *planfile.Step) (*planfile.Step, error) {
	for i := range p.Steps {
		if t := &p.Steps[i]; t.ID == s.Reverts {
			if t.Change == nil {
				return nil, &Error{Outcome: OutcomeBadInput, Err: fmt.Errorf("step %s reverts step %s, which changes no object", s.ID, s.Reverts)}
			}
			return t, nil
		}
	}
	return nil, &Error{Outcome: OutcomeBadInput, Err: fmt.Errorf("step %s reverts step %q, which the plan does not have", s.ID, s.Reverts)}
}

// prepareRevertStep is the revert executor's prepare.
func prepareRevertStep(ctx context.Context, r *run, s *planfile.Step) (*mutation, error) {
	return r.prepareRevert(ctx, s)
}

// prepareRevert prepares a revert step: the journaled pre-image of the step it
// undoes is written back. Fields already at their pre-image make it a no-op;
// fields that are neither the pre-image nor what the change set are someone
// else's edit, which the revert never overwrites.
func (r *run) prepareRevert(ctx context.Context, s *planfile.Step) (*mutation, error) {
	target, err := r.revertTarget(s)
	if err != nil {
		return nil, err
	}
	js := r.journaledStep(target.ID)
	if js == nil || js.PreImage == nil {
		// The change was never made in this journal (skipped, found made, or a
		// dry run): there is nothing of recover's to restore.
		what := "step " + target.ID + " made no change in this journal: nothing to restore"
		if r.opts.DryRun {
			what = "dry run: step " + target.ID + " journals its pre-image when it runs; this step writes it back"
		}
		return &mutation{op: string(resource.OpUnchanged), object: changeRef(target.Change.Object).String(), noop: true, diff: "", note: what, reverts: target.ID, remedy: s.Remedy, critical: true}, nil
	}
	return r.prepareRestore(ctx, s, target, js, false)
}

// prepareRestore builds the patch that writes target's journaled pre-image
// back. onStop: the engine reverts on its own because the run stopped.
func (r *run) prepareRestore(ctx context.Context, s, target *planfile.Step, js *journal.StepState, onStop bool) (*mutation, error) {
	ch := target.Change
	obj, err := r.readChanged(ctx, s, ch.Object)
	if err != nil {
		return nil, err
	}
	live := obj.live
	if js.ObjectUID != "" && string(live.GetUID()) != js.ObjectUID {
		return nil, refuse(s, "%s has UID %s, not %s as when step %s journaled its pre-image: it was recreated, so its pre-image is not this object's; restore it by hand if needed: %s",
			obj.ref.String(), live.GetUID(), js.ObjectUID, target.ID, journal.RestoreCommand(obj.ref, js.PreImage))
	}
	liveVals := resource.FieldValues(live.Object, ch.Fields)
	after := js.After
	if after == nil {
		patch, err := resource.DecodePatch(ch.Patch)
		if err != nil {
			return nil, &Error{Outcome: OutcomeBadInput, Err: fmt.Errorf("step %s: %w", target.ID, err)}
		}
		after = resource.FieldValues(resource.ApplyMergePatch(withFields(live.Object, ch.Fields, js.PreImage), patch), ch.Fields)
	}
	if bad := mismatched(ch.Fields, liveVals, js.PreImage, after); len(bad) > 0 {
		return nil, &EditedError{Step: s.ID, Object: obj.ref, Fields: bad, PreImage: js.PreImage}
	}
	restore, err := resource.RestorePatch(live.Object, ch.Fields, js.PreImage)
	if err != nil {
		return nil, fmt.Errorf("step %s: %w", s.ID, err)
	}
	changes := fieldChanges(ch.Fields, liveVals, js.PreImage)
	m := &mutation{op: "revert", object: obj.ref.String(), noop: restore == nil, diff: diffLines(changes), fields: changes,
		preImage: js.PreImage, remedy: target.Remedy, reverts: target.ID, critical: true}
	m.intent = journal.Intent{Operation: journal.OperationRevert, Object: obj.ref, LiveUID: string(live.GetUID()), LiveResourceVersion: live.GetResourceVersion(),
		Before: rawJSON(liveVals), After: rawJSON(js.PreImage), RevertOf: target.ID, Diff: m.diff}
	if m.noop {
		m.op, m.diff = string(resource.OpUnchanged), ""
		m.note = obj.ref.String() + " carries its pre-image already"
		// Say so in the journal, so that it knows the change is not in effect.
		m.recordNoop = js.ChangeOutstanding && !onStop
		return m, nil
	}
	body := withResourceVersion(restore, live.GetResourceVersion())
	m.dryRun = func(ctx context.Context) error {
		_, err := obj.client.Patch(ctx, live.GetName(), types.MergePatchType, body, metav1.PatchOptions{FieldManager: "recover", DryRun: []string{metav1.DryRunAll}})
		return err
	}
	m.commit = func(ctx context.Context) (*journal.Outcome, error) {
		out, err := obj.client.Patch(ctx, live.GetName(), types.MergePatchType, body, metav1.PatchOptions{FieldManager: "recover"})
		if err != nil {
			return nil, fmt.Errorf("restoring %s: %w", obj.ref.String(), err)
		}
		if got := resource.FieldValues(out.Object, ch.Fields); len(resource.DifferingFields(got, js.PreImage)) > 0 {
			return nil, fmt.Errorf("restoring %s: the server stored %s, not the pre-image %s (an admission webhook or a default changed it); restore it by hand: %s",
				obj.ref.String(), rawJSON(got), rawJSON(js.PreImage), journal.RestoreCommand(obj.ref, js.PreImage))
		}
		return &journal.Outcome{Result: journal.ResultReverted, UID: string(out.GetUID()), ResourceVersion: out.GetResourceVersion()}, nil
	}
	return m, nil
}

// EditedError is a revert that found someone else's edit: a field that is
// neither the journaled pre-image nor what the change set. The revert does not
// overwrite it; the error names the command to restore the pre-image by hand.
type EditedError struct {
	Step     string
	Object   journal.ObjectRef
	Fields   []string
	PreImage map[string]json.RawMessage
}

func (e *EditedError) Error() string {
	return fmt.Sprintf("%s was edited since the change: %s, neither its pre-image %s nor what the change set; not overwriting someone else's edit: check it, restore it by hand if needed (%s), then resume",
		e.Object.String(), strings.Join(e.Fields, ", "), preImageText(e.PreImage), journal.RestoreCommand(e.Object, e.PreImage))
}

func preImageText(pre map[string]json.RawMessage) string {
	keys := make([]string, 0, len(pre))
	for k := range pre {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+resource.ValueText(pre[k]))
	}
	return strings.Join(parts, ", ")
}

// isConflict reports an optimistic-concurrency failure: the object changed
// between the read and the write.
func isConflict(err error) bool {
	return apierrors.IsConflict(err) && !errors.As(err, new(*EditedError))
}
