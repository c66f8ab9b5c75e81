package fleetengines

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The condition types and update strategies of work/v1 (open-cluster-management-io/api
// work/v1/types.go, vendored in ocm at 00f84c3).
const (
	Applied              = "Applied"
	Available            = "Available"
	Progressing          = "Progressing"
	Degraded             = "Degraded"
	StatusFeedbackSynced = "StatusFeedbackSynced"

	StrategyUpdate          = "Update"
	StrategyCreateOnly      = "CreateOnly"
	StrategyServerSideApply = "ServerSideApply"
	StrategyReadOnly        = "ReadOnly"

	// FieldManager is the agent's server-side apply field manager
	// (work/v1 DefaultFieldManager).
	FieldManager = "work-agent"

	// conditionRuleReasonPrefix marks the conditions condition rules made
	// (ocm pkg/work/spoke/conditions/helpers.go).
	conditionRuleReasonPrefix = "ConditionRule"
)

// Agent restates what the OCM work agent does with one ManifestWork on its
// cluster, read in open-cluster-management-io/ocm at 00f84c3:
//
//   - at every sync (the work's creation, its periodic resync every
//     ResyncInterval of 4 minutes with jitter, an agent restart) it applies
//     every manifest with the update strategy of its manifestConfigs entry
//     (pkg/work/spoke/controllers/manifestcontroller/manifestwork_reconciler.go,
//     applyOneManifest; pkg/work/helper/helpers.go FindManifestConfiguration),
//     Update when none: pkg/work/spoke/apply/update_apply.go (a Job is not a
//     kind library-go's ApplyDirectly handles, so it takes applyUnstructured:
//     get, create when missing, else merge labels, annotations and owners
//     into the manifest, skip when the rest is semantically equal, and
//     otherwise Update the object with the manifest as it is); CreateOnly
//     (create_only_apply.go: create when missing, never update);
//     ServerSideApply (server_side_apply.go: an apply patch as the field
//     manager "work-agent", not forced); ReadOnly (read_only_apply.go: no
//     call at all). A manifest's Applied is its apply's error or not; the
//     work's Applied is True when every manifest's is;
//   - then (pkg/work/spoke/controllers/statuscontroller/availablestatus_controller.go)
//     reads each object: Available True when it exists, False when not found
//     (pkg/work/spoke/objectreader/reader.go); the feedback values
//     (FeedbackValue) and StatusFeedbackSynced; the manifest's condition
//     rules (Conditions, pkg/work/spoke/conditions/reader.go); and aggregates
//     the work's Available and rule conditions
//     (pkg/work/spoke/conditions/helpers.go AggregateManifestConditions).
//
// The agent's resource cache (update_apply.go's staticResourceCache) only
// skips an Update when neither the manifest nor the live object's
// resourceVersion changed since the last apply; a Job's status changes as it
// runs and a restart empties the cache, so Agent never skips.
//
// Owner references to the AppliedManifestWork are left out: recover's
// templates orphan everything (deleteOption Orphan).
type Agent struct {
	Dynamic dynamic.Interface
	Mapper  meta.RESTMapper
}

// WorkStatus is the status the agent writes on the ManifestWork.
type WorkStatus struct {
	Generation int64
	Conditions []metav1.Condition
	Manifests  []ManifestStatus
}

// ManifestStatus is one manifest's entry of status.resourceStatus.manifests.
type ManifestStatus struct {
	Ordinal    int32
	Resource   schema.GroupVersionResource
	Namespace  string
	Name       string
	Conditions []metav1.Condition
	Feedback   map[string]Value
}

// manifestConfig is the part of a manifestConfigs entry the agent uses.
type manifestConfig struct {
	strategy string
	rules    []ConditionRule
	jsonPath [][2]string
}

// Sync applies the work's spec (a ManifestWork's spec: workload.manifests,
// manifestConfigs) as the agent does at one sync and returns the status it
// writes. generation is the ManifestWork's.
func (a *Agent) Sync(ctx context.Context, spec map[string]any, generation int64) (*WorkStatus, error) {
	manifests, _, err := unstructured.NestedSlice(spec, "workload", "manifests")
	if err != nil {
		return nil, err
	}
	configs, _, err := unstructured.NestedSlice(spec, "manifestConfigs")
	if err != nil {
		return nil, err
	}
	st := &WorkStatus{Generation: generation}
	var mappings []*meta.RESTMapping
	allApplied := true
	for i, m := range manifests {
		obj, ok := m.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("manifest %d is not an object", i)
		}
		required := &unstructured.Unstructured{Object: obj}
		required = required.DeepCopy()
		gvk := required.GroupVersionKind()
		mapping, err := a.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return nil, fmt.Errorf("manifest %d (%s): %w", i, gvk, err)
		}
		mappings = append(mappings, mapping)
		ms := ManifestStatus{Ordinal: int32(i), Resource: mapping.Resource, Namespace: required.GetNamespace(), Name: required.GetName()}
		cfg, err := findConfig(configs, mapping.Resource, ms.Namespace, ms.Name)
		if err != nil {
			return nil, err
		}
		res := a.resource(mapping, ms.Namespace)
		applyErr := a.apply(ctx, res, cfg.strategy, required)
		cond := metav1.Condition{Type: Applied, Status: metav1.ConditionTrue, Reason: "AppliedManifestComplete", Message: "Apply manifest complete", ObservedGeneration: generation}
		if applyErr != nil {
			allApplied = false
			cond = metav1.Condition{Type: Applied, Status: metav1.ConditionFalse, Reason: "AppliedManifestFailed", Message: "Failed to apply manifest: " + applyErr.Error(), ObservedGeneration: generation}
		}
		meta.SetStatusCondition(&ms.Conditions, cond)
		st.Manifests = append(st.Manifests, ms)
	}
	applied := metav1.Condition{Type: Applied, Status: metav1.ConditionFalse, Reason: "AppliedManifestWorkFailed", Message: "Failed to apply manifest work", ObservedGeneration: generation}
	if allApplied {
		applied = metav1.Condition{Type: Applied, Status: metav1.ConditionTrue, Reason: "AppliedManifestWorkComplete", Message: "Apply manifest work complete", ObservedGeneration: generation}
	}
	meta.SetStatusCondition(&st.Conditions, applied)

	// The status controller.
	for i := range st.Manifests {
		ms := &st.Manifests[i]
		live, err := a.resource(mappings[i], ms.Namespace).Get(ctx, ms.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			meta.SetStatusCondition(&ms.Conditions, metav1.Condition{Type: Available, Status: metav1.ConditionFalse, Reason: "ResourceNotAvailable", Message: "Resource is not available"})
			continue
		case err != nil:
			meta.SetStatusCondition(&ms.Conditions, metav1.Condition{Type: Available, Status: metav1.ConditionUnknown, Reason: "FetchingResourceFailed", Message: err.Error()})
			continue
		}
		meta.SetStatusCondition(&ms.Conditions, metav1.Condition{Type: Available, Status: metav1.ConditionTrue, Reason: "ResourceAvailable", Message: "Resource is available"})
		cfg, _ := findConfig(configs, ms.Resource, ms.Namespace, ms.Name)
		ms.Feedback = map[string]Value{}
		synced := metav1.Condition{Type: StatusFeedbackSynced, Status: metav1.ConditionTrue, Reason: "NoStatusFeedbackSynced"}
		if len(cfg.jsonPath) > 0 {
			synced.Reason = "StatusFeedbackSynced"
			for _, p := range cfg.jsonPath {
				v, ok, err := FeedbackValue(live.Object, p[0], p[1])
				if err != nil {
					synced = metav1.Condition{Type: StatusFeedbackSynced, Status: metav1.ConditionFalse, Reason: "StatusFeedbackSyncFailed", Message: err.Error()}
				}
				if ok {
					ms.Feedback[p[0]] = v
				}
			}
		}
		meta.SetStatusCondition(&ms.Conditions, synced)
		for _, c := range Conditions(live.Object, cfg.rules) {
			c.ObservedGeneration = generation
			meta.SetStatusCondition(&ms.Conditions, c)
		}
	}
	for _, c := range aggregate(generation, st.Manifests) {
		meta.SetStatusCondition(&st.Conditions, c)
	}
	return st, nil
}

func (a *Agent) resource(m *meta.RESTMapping, namespace string) dynamic.ResourceInterface {
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return a.Dynamic.Resource(m.Resource).Namespace(namespace)
	}
	return a.Dynamic.Resource(m.Resource)
}

// apply is one manifest's apply with the strategy's applier.
func (a *Agent) apply(ctx context.Context, res dynamic.ResourceInterface, strategy string, required *unstructured.Unstructured) error {
	switch strategy {
	case StrategyReadOnly:
		return nil
	case StrategyCreateOnly:
		_, err := res.Get(ctx, required.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = res.Create(ctx, required, metav1.CreateOptions{})
		}
		return err
	case StrategyServerSideApply:
		unstructured.RemoveNestedField(required.Object, "metadata", "creationTimestamp")
		_, err := res.Apply(ctx, required.GetName(), required, metav1.ApplyOptions{FieldManager: FieldManager, Force: false})
		return err
	case StrategyUpdate:
		return updateApply(ctx, res, required)
	default:
		return fmt.Errorf("unknown update strategy %q", strategy)
	}
}

// updateApply is update_apply.go's applyUnstructured.
func updateApply(ctx context.Context, res dynamic.ResourceInterface, required *unstructured.Unstructured) error {
	existing, err := res.Get(ctx, required.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = res.Create(ctx, required, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	labels, annotations := existing.GetLabels(), existing.GetAnnotations()
	modified := mergeMap(&labels, required.GetLabels())
	modified = mergeMap(&annotations, required.GetAnnotations()) || modified
	required.SetOwnerReferences(existing.GetOwnerReferences())
	required.SetLabels(labels)
	required.SetAnnotations(annotations)
	required.SetFinalizers(existing.GetFinalizers())
	if !modified && sameUnstructured(required, existing) {
		return nil
	}
	required.SetResourceVersion(existing.GetResourceVersion())
	_, err = res.Update(ctx, required, metav1.UpdateOptions{})
	return err
}

// mergeMap is library-go resourcemerge.MergeMap: required's entries set on
// existing (a key ending in "-" removes it).
func mergeMap(existing *map[string]string, required map[string]string) bool {
	if *existing == nil {
		*existing = map[string]string{}
	}
	modified := false
	for k, v := range required {
		if len(k) > 0 && k[len(k)-1] == '-' {
			if _, ok := (*existing)[k[:len(k)-1]]; ok {
				delete(*existing, k[:len(k)-1])
				modified = true
			}
			continue
		}
		if ev, ok := (*existing)[k]; !ok || ev != v {
			(*existing)[k] = v
			modified = true
		}
	}
	return modified
}

// sameUnstructured is update_apply.go's isSameUnstructured: the same kind,
// name and namespace, and the rest but metadata and status semantically equal.
func sameUnstructured(a, b *unstructured.Unstructured) bool {
	if a.GroupVersionKind() != b.GroupVersionKind() || a.GetName() != b.GetName() || a.GetNamespace() != b.GetNamespace() {
		return false
	}
	ac, bc := a.DeepCopy().Object, b.DeepCopy().Object
	for _, k := range []string{"metadata", "status"} {
		delete(ac, k)
		delete(bc, k)
	}
	return apiequality.Semantic.DeepEqual(ac, bc)
}

// findConfig is FindManifestConfiguration: the first entry whose
// resourceIdentifier names the object (group, resource, name, namespace) gives
// the update strategy, the first with condition rules the rules, and every
// matching entry its feedback rules.
func findConfig(configs []any, gvr schema.GroupVersionResource, namespace, name string) (manifestConfig, error) {
	cfg := manifestConfig{strategy: StrategyUpdate}
	strategySet := false
	for _, c := range configs {
		m, ok := c.(map[string]any)
		if !ok {
			return cfg, fmt.Errorf("a manifestConfigs entry is not an object")
		}
		id, _, _ := unstructured.NestedStringMap(m, "resourceIdentifier")
		if id["group"] != gvr.Group || id["resource"] != gvr.Resource || id["name"] != name || id["namespace"] != namespace {
			continue
		}
		if s, ok, _ := unstructured.NestedString(m, "updateStrategy", "type"); ok && !strategySet {
			cfg.strategy, strategySet = s, true
		}
		if rules, _, _ := unstructured.NestedSlice(m, "conditionRules"); len(rules) > 0 && len(cfg.rules) == 0 {
			for _, r := range rules {
				rm := r.(map[string]any)
				var rule ConditionRule
				rule.Condition, _, _ = unstructured.NestedString(rm, "condition")
				rule.Type, _, _ = unstructured.NestedString(rm, "type")
				rule.CelExpressions, _, _ = unstructured.NestedStringSlice(rm, "celExpressions")
				rule.Message, _, _ = unstructured.NestedString(rm, "message")
				cfg.rules = append(cfg.rules, rule)
			}
		}
		rules, _, _ := unstructured.NestedSlice(m, "feedbackRules")
		for _, r := range rules {
			paths, _, _ := unstructured.NestedSlice(r.(map[string]any), "jsonPaths")
			for _, p := range paths {
				jp := p.(map[string]any)
				n, _ := jp["name"].(string)
				path, _ := jp["path"].(string)
				cfg.jsonPath = append(cfg.jsonPath, [2]string{n, path})
			}
		}
	}
	return cfg, nil
}

// aggregate is AggregateManifestConditions: the work's Available (False when
// any manifest's is False, Unknown when any is Unknown or none is True, else
// True) and, for each condition type a rule made, False wins, then Unknown,
// then True, except Progressing, True when any manifest's is True, else
// Unknown when any is Unknown, else False.
func aggregate(generation int64, manifests []ManifestStatus) []metav1.Condition {
	type counts struct{ t, f, u int }
	agg := map[string]*counts{Available: {}}
	for _, m := range manifests {
		for _, c := range m.Conditions {
			if c.Type != Available && !isRuleCondition(c) {
				continue
			}
			if agg[c.Type] == nil {
				agg[c.Type] = &counts{}
			}
			switch c.Status {
			case metav1.ConditionTrue:
				agg[c.Type].t++
			case metav1.ConditionFalse:
				agg[c.Type].f++
			default:
				agg[c.Type].u++
			}
		}
	}
	var out []metav1.Condition
	for typ, n := range agg {
		c := metav1.Condition{Type: typ, ObservedGeneration: generation, Reason: "ConditionRulesAggregated"}
		switch {
		case typ == Available:
			c.Reason = "ResourcesAvailable"
			switch {
			case n.f > 0:
				c.Status, c.Reason = metav1.ConditionFalse, "ResourcesNotAvailable"
			case n.u > 0 || n.t == 0:
				c.Status, c.Reason = metav1.ConditionUnknown, "ResourcesStatusUnknown"
			default:
				c.Status = metav1.ConditionTrue
			}
		case typ == Progressing:
			switch {
			case n.t > 0:
				c.Status = metav1.ConditionTrue
			case n.u > 0:
				c.Status = metav1.ConditionUnknown
			default:
				c.Status = metav1.ConditionFalse
			}
		default:
			switch {
			case n.f > 0:
				c.Status = metav1.ConditionFalse
			case n.u > 0 || n.t == 0:
				c.Status = metav1.ConditionUnknown
			default:
				c.Status = metav1.ConditionTrue
			}
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

func isRuleCondition(c metav1.Condition) bool {
	return len(c.Reason) >= len(conditionRuleReasonPrefix) && c.Reason[:len(conditionRuleReasonPrefix)] == conditionRuleReasonPrefix
}

// Object is the status as the ManifestWork's status field holds it
// (work/v1 ManifestWorkStatus: conditions, resourceStatus.manifests with
// resourceMeta, conditions and statusFeedback values).
func (s *WorkStatus) Object() map[string]any {
	conds := func(cs []metav1.Condition) []any {
		var out []any
		for _, c := range cs {
			out = append(out, map[string]any{"type": c.Type, "status": string(c.Status), "reason": c.Reason, "message": c.Message,
				"observedGeneration": c.ObservedGeneration, "lastTransitionTime": metav1.Now().UTC().Format(time.RFC3339)})
		}
		return out
	}
	var manifests []any
	for _, m := range s.Manifests {
		var values []any
		for _, name := range sortedKeys(m.Feedback) {
			v := m.Feedback[name]
			fv := map[string]any{"type": v.Type}
			switch v.Type {
			case "String":
				fv["string"] = v.Value
			case "Boolean":
				fv["boolean"] = v.Value == "true"
			case "Integer":
				n, _ := strconv.ParseInt(v.Value, 10, 64)
				fv["integer"] = n
			}
			values = append(values, map[string]any{"name": name, "fieldValue": fv})
		}
		entry := map[string]any{
			"resourceMeta": map[string]any{"ordinal": int64(m.Ordinal), "group": m.Resource.Group, "version": m.Resource.Version,
				"resource": m.Resource.Resource, "name": m.Name, "namespace": m.Namespace},
			"conditions": conds(m.Conditions),
		}
		if len(values) > 0 {
			entry["statusFeedback"] = map[string]any{"values": values}
		}
		manifests = append(manifests, entry)
	}
	return map[string]any{"conditions": conds(s.Conditions), "resourceStatus": map[string]any{"manifests": manifests}}
}

func sortedKeys(m map[string]Value) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
