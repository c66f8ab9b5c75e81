package export

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
)

// The ManifestWorkReplicaSet as recover fills it (open-cluster-management-io/api
// work/v1alpha1 types_manifestworkreplicaset.go and work/v1 types.go).
type (
	manifestWorkReplicaSet struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   objectMeta `json:"metadata"`
		Spec       mwrsSpec   `json:"spec"`
	}
	objectMeta struct {
		Name         string            `json:"name,omitempty"`
		GenerateName string            `json:"generateName,omitempty"`
		Namespace    string            `json:"namespace,omitempty"`
		Labels       map[string]string `json:"labels,omitempty"`
		Annotations  map[string]string `json:"annotations,omitempty"`
	}
	mwrsSpec struct {
		ManifestWorkTemplate  manifestWorkSpec `json:"manifestWorkTemplate"`
		PlacementRefs         []placementRef   `json:"placementRefs"`
		CascadeDeletionPolicy string           `json:"cascadeDeletionPolicy"`
	}
	manifestWorkSpec struct {
		Workload        workload         `json:"workload"`
		DeleteOption    deleteOption     `json:"deleteOption"`
		ManifestConfigs []manifestConfig `json:"manifestConfigs,omitempty"`
	}
	workload struct {
		Manifests []map[string]any `json:"manifests"`
	}
	deleteOption struct {
		PropagationPolicy string `json:"propagationPolicy"`
	}
	manifestConfig struct {
		ResourceIdentifier resourceIdentifier `json:"resourceIdentifier"`
		FeedbackRules      []feedbackRule     `json:"feedbackRules,omitempty"`
		UpdateStrategy     *updateStrategy    `json:"updateStrategy,omitempty"`
		ConditionRules     []conditionRule    `json:"conditionRules,omitempty"`
	}
	conditionRule struct {
		Condition      string   `json:"condition"`
		Type           string   `json:"type"`
		CelExpressions []string `json:"celExpressions,omitempty"`
		Message        string   `json:"message,omitempty"`
	}
	resourceIdentifier struct {
		Group     string `json:"group"`
		Resource  string `json:"resource"`
		Name      string `json:"name"`
		Namespace string `json:"namespace,omitempty"`
	}
	feedbackRule struct {
		Type      string     `json:"type"`
		JSONPaths []jsonPath `json:"jsonPaths,omitempty"`
	}
	jsonPath struct {
		Name string `json:"name"`
		Path string `json:"path"`
	}
	updateStrategy struct {
		Type string `json:"type"`
	}
	placementRef struct {
		Name            string           `json:"name"`
		RolloutStrategy *rolloutStrategy `json:"rolloutStrategy,omitempty"`
	}
	rolloutStrategy struct {
		Type        string       `json:"type"`
		Progressive *progressive `json:"progressive,omitempty"`
	}
	progressive struct {
		MandatoryDecisionGroups []decisionGroup `json:"mandatoryDecisionGroups,omitempty"`
		MaxConcurrency          int             `json:"maxConcurrency"`
		MaxFailures             int             `json:"maxFailures"`
		ProgressDeadline        string          `json:"progressDeadline,omitempty"`
	}
	decisionGroup struct {
		GroupName string `json:"groupName"`
	}
)

// ExpectedValue is one entry of TALM's expectedValues annotation
// (cluster-group-upgrades-operator controllers/utils/manifestwork.go,
// ManifestWorkExpectedValues): the feedback value named Name of the manifest
// at ManifestIndex must equal Value.
type ExpectedValue struct {
	ManifestIndex int    `json:"manifestIndex"`
	Name          string `json:"name"`
	Value         string `json:"value"`
}

// The annotation TALM completes a cluster's step on, and the placement the TALM
// templates name: TALM creates the ManifestWorks itself, so no Placement of this
// name may exist (the hub's ManifestWorkReplicaSet controller would roll the
// templates out a second time).
const (
	ExpectedValuesAnnotation = "openshift-cluster-group-upgrades/expectedValues"
	// ReplicaSetLabel is the label the ManifestWorkReplicaSet controller puts
	// on each ManifestWork it makes, valued ReplicaSetLabelValue (ocm
	// pkg/work/hub/controllers/manifestworkreplicasetcontroller
	// manifestworkreplicaset_deploy_reconcile.go and manifestworkreplicaset_index.go,
	// manifestWorkReplicaSetKey; the key is the api's
	// ManifestWorkReplicaSetControllerNameLabelKey).
	ReplicaSetLabel = "work.open-cluster-management.io/manifestworkreplicaset"
	TALMPlacement   = "recover-talm-template-only"
	// CanaryGroup is the Placement decision group the OCM rollout runs first.
	CanaryGroup = "canaries"
)

// ReplicaSetLabelValue is ReplicaSetLabel's value on the works of the
// ManifestWorkReplicaSet name in the hub namespace: "<namespace>.<name>".
func ReplicaSetLabelValue(hubNamespace, name string) string { return hubNamespace + "." + name }

// The update strategies the templates choose (work/v1 UpdateStrategyType).
const (
	// StrategyReadOnly: the agent only reads the object (the ConfigMaps
	// recover writes).
	StrategyReadOnly = "ReadOnly"
	// StrategyCreateOnly: the agent creates the object when it is missing and
	// never updates it (the Jobs).
	StrategyCreateOnly = "CreateOnly"
)

// ConditionProgressing is the condition the ManifestWorkReplicaSet rollout
// decides on (ocm manifestworkreplicaset_deploy_reconcile.go,
// clusterRolloutStatusFunc): False is Succeeded, True or Unknown is still
// progressing, and a work without it is ToApply and holds the rollout.
const ConditionProgressing = "Progressing"

// ConditionDegraded with Progressing True makes the cluster Failed in the
// rollout (clusterRolloutStatusFunc).
const ConditionDegraded = "Degraded"

// JobRunningExpression and JobFailedExpression are CEL over a Job: it has not
// finished (no Complete or Failed condition True: the expression of the
// agent's well-known Complete rule, negated, pkg/work/spoke/conditions/rules/rule.go),
// and it failed (Failed True: backoffLimit spent).
const (
	JobRunningExpression = `!(hasConditions(object.status) && object.status.conditions.exists(c, (c.type == 'Complete' || c.type == 'Failed') && c.status == 'True'))`
	JobFailedExpression  = `hasConditions(object.status) && object.status.conditions.exists(c, c.type == 'Failed' && c.status == 'True')`
)

// InspectTemplateName and ApplyTemplateName are the wave's templates.
func InspectTemplateName(wave string) string { return "recover-inspect-" + wave }
func ApplyTemplateName(wave string) string   { return "recover-apply-" + wave }

// Template is a ManifestWorkReplicaSet with what the tests need to know of it.
type Template struct {
	Object map[string]any
	// VerdictIndex is the verdict ConfigMap's manifest ordinal; Expected the
	// values TALM waits for.
	VerdictIndex int
	Expected     []ExpectedValue
}

// InspectTemplate inspects each cluster and writes its verdict and plan: the
// step is complete when the verdict of this wave is there.
func InspectTemplate(o Options) (*Template, error) {
	var m manifests
	m.add(namespace(o))
	m.add(serviceAccount(o, InspectServiceAccount))
	for _, obj := range roles(o, InspectServiceAccount, "inspect", InspectAccess(o.Namespace)) {
		m.add(obj)
	}
	m.add(stagedInspectJob(o, job(o, InspectJobName(o.Wave), InspectServiceAccount, InspectArgs(o), 3)))
	vi := m.add(configMapRef(o, verdict.DefaultName))
	expected := []ExpectedValue{{vi, verdict.FieldWave.Name, o.Wave}}
	return template(o, InspectTemplateName(o.Wave), &m, vi, expected)
}

// ApplyTemplate applies each cluster's plan (the one its inspect stored) and
// keeps the run in the verdict: the step is complete when the verdict of this
// wave says the cluster is settled (nothing was wedged, or the plan completed).
func ApplyTemplate(o Options) (*Template, error) {
	m, err := applyRun(o)
	if err != nil {
		return nil, err
	}
	m.add(job(o, ApplyJobName(o.Wave), ApplyServiceAccount, ApplyArgs(o), 10))
	vi := m.add(configMapRef(o, verdict.DefaultName))
	expected := []ExpectedValue{{vi, verdict.FieldWave.Name, o.Wave}, {vi, verdict.FieldSettled.Name, "true"}}
	return template(o, ApplyTemplateName(o.Wave), m, vi, expected)
}

// applyRun are the manifests an apply run's Job needs before it: the
// Namespace, the apply identity and its RBAC for the wave's plan, the plan
// ConfigMap (read only).
func applyRun(o Options) (*manifests, error) {
	access, err := ApplyAccess(o)
	if err != nil {
		return nil, err
	}
	var m manifests
	m.add(namespace(o))
	m.add(serviceAccount(o, ApplyServiceAccount))
	for _, obj := range roles(o, ApplyServiceAccount, "apply", access) {
		m.add(obj)
	}
	m.add(configMapRef(o, ApplyPlanConfigMap(o)))
	return &m, nil
}

// template wraps the manifests: the ConfigMaps recover writes are read only
// (the work agent neither creates nor overwrites them), the verdict's fields
// come back by feedback rules, and deleting the ManifestWork orphans
// everything (the journal, plan and verdict outlive it).
func template(o Options, name string, m *manifests, verdictIndex int, expected []ExpectedValue) (*Template, error) {
	return templateWith(o, name, m, verdictIndex, expected, nil, nil)
}

// templateWith is template with feedback rules on the Jobs and more
// manifestConfigs (a stage template's ClusterVersion).
func templateWith(o Options, name string, m *manifests, verdictIndex int, expected []ExpectedValue, jobFeedback []feedbackRule, more []manifestConfig) (*Template, error) {
	if m.err != nil {
		return nil, m.err
	}
	var paths []jsonPath
	for _, f := range verdict.Fields() {
		paths = append(paths, jsonPath{Name: f.Name, Path: f.Path()})
	}
	readOnly := func(cmName string, rules []feedbackRule) manifestConfig {
		return manifestConfig{ResourceIdentifier: resourceIdentifier{Resource: "configmaps", Name: cmName, Namespace: o.Namespace},
			FeedbackRules: rules, UpdateStrategy: &updateStrategy{Type: StrategyReadOnly}}
	}
	verdictConfig := readOnly(verdict.DefaultName, []feedbackRule{{Type: "JSONPaths", JSONPaths: paths}})
	verdictConfig.ConditionRules = []conditionRule{{Condition: ConditionProgressing, Type: "CEL",
		CelExpressions: []string{ProgressingExpression(expectedOn(expected, verdictIndex))},
		Message:        "recover's verdict of this wave is not there yet, or not settled"}}
	configs := []manifestConfig{verdictConfig}
	for _, item := range m.items {
		switch {
		case item["kind"] == "ConfigMap" && nestedName(item) == verdict.PlanConfigMapName(o.Wave):
			configs = append(configs, readOnly(verdict.PlanConfigMapName(o.Wave), nil))
		case item["kind"] == "Job":
			// A Job's selector (set by the API server at creation) and pod
			// template are immutable: the agent's default strategy updates
			// the object with the manifest at every resync and restart and
			// is refused, leaving the work Applied=False (docs/fleet.md).
			// CreateOnly creates it once and never sends it again.
			// Its rules: progressing while it runs (so a run that never
			// writes its verdict still meets the rollout's
			// progressDeadline), degraded once it failed for good (with
			// maxFailures 0 the rollout stops there).
			configs = append(configs, manifestConfig{ResourceIdentifier: resourceIdentifier{Group: "batch", Resource: "jobs", Name: nestedName(item), Namespace: o.Namespace},
				UpdateStrategy: &updateStrategy{Type: StrategyCreateOnly}, FeedbackRules: jobFeedback,
				ConditionRules: []conditionRule{
					{Condition: ConditionProgressing, Type: "CEL", CelExpressions: []string{JobRunningExpression}, Message: "recover's Job has not finished"},
					{Condition: ConditionDegraded, Type: "CEL", CelExpressions: []string{JobFailedExpression}, Message: "recover's Job failed"},
				}})
		}
	}
	configs = append(configs, more...)
	ann, err := json.Marshal(expected)
	if err != nil {
		return nil, err
	}
	ref := placementRef{Name: TALMPlacement}
	if o.Engine == EngineOCM {
		ref = placementRef{Name: o.Placement, RolloutStrategy: &rolloutStrategy{Type: "Progressive", Progressive: &progressive{
			MaxConcurrency: o.MaxConcurrency, MaxFailures: 0, ProgressDeadline: minutes(o.Timeout)}}}
		if len(o.Canaries) > 0 {
			ref.RolloutStrategy.Progressive.MandatoryDecisionGroups = []decisionGroup{{GroupName: CanaryGroup}}
		}
	}
	w := manifestWorkReplicaSet{
		APIVersion: "work.open-cluster-management.io/v1alpha1", Kind: "ManifestWorkReplicaSet",
		Metadata: objectMeta{Name: name, Namespace: o.HubNamespace, Labels: labels(o), Annotations: map[string]string{ExpectedValuesAnnotation: string(ann)}},
		Spec: mwrsSpec{
			ManifestWorkTemplate: manifestWorkSpec{Workload: workload{Manifests: m.items}, DeleteOption: deleteOption{PropagationPolicy: "Orphan"}, ManifestConfigs: configs},
			PlacementRefs:        []placementRef{ref}, CascadeDeletionPolicy: "Background",
		},
	}
	obj, err := toMap(w)
	if err != nil {
		return nil, err
	}
	return &Template{Object: obj, VerdictIndex: verdictIndex, Expected: expected}, nil
}

// ProgressingExpression is the CEL expression (over the verdict ConfigMap as
// object) of the Progressing condition rule: true until every expected value
// is the verdict's, so the work stops progressing exactly when TALM would
// count the step complete. Every field is guarded by has(): the agent turns
// an evaluation error into False, which the rollout would read as done.
func ProgressingExpression(expected []ExpectedValue) string {
	terms := []string{"has(object.data)"}
	for _, e := range expected {
		terms = append(terms, fmt.Sprintf("has(object.data.%[1]s) && object.data.%[1]s == %[2]s", e.Name, strconv.Quote(e.Value)))
	}
	return "!(" + strings.Join(terms, " && ") + ")"
}

func nestedName(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	return n
}

// toMap turns one of this package's document types into the plain map the
// YAML writer and the tests' unstructured client take.
func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", v, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// minutes is d as OCM's rollout durations spell it ("240m").
func minutes(d time.Duration) string { return fmt.Sprintf("%dm", int(d.Minutes())) }
