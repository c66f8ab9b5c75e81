package export

import (
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan/planfile"
)

// A staged wave (--plan is a staged plan, recover plan --to GOAL [--eus]) takes
// every cluster of the wave along the plan's stages, one stage at a time
// across the fleet: each stage is its own ManifestWorkReplicaSet template
// whose Job runs the cluster's stored staged plan until that stage has landed
// (recover apply --in-cluster --until-stage N, resuming the journal the stage
// before it kept). A stage is done on a cluster when its Job succeeded and
// the cluster's ClusterVersion reports the stage's release Completed (and, on
// the last stage, the verdict says the run settled: the pools unpaused).
//
//   - TALM: one ClusterGroupUpgrade per stage, as TALM's own
//     ImageBasedGroupUpgrade makes one per plan item
//     (cluster-group-upgrades-operator controllers/imagebasedgroupupgrade.go,
//     ensureManifests: each CGU lists every earlier one in spec.blockingCRs),
//     with the partial completion mode and cluster filtering, so a stage
//     starts once the one before it finished and only on the clusters that
//     completed every earlier stage (controllers/clustergroupupgrade_controller.go,
//     blockingCRsNotCompleted and filterNonCompletedClustersInBlockingCRs).
//   - OCM: one template per stage; plain OCM does not sequence them, so the
//     SRE creates stage N+1's once stage N's rollout is done.
//   - Argo: one DAG task per stage, each depending on the one before it.

// The annotations of TALM's blocking-CR completion mode (cluster-group-upgrades-operator
// controllers/utils/constants.go): with "partial", a CGU starts once each of
// its blocking CGUs has a Succeeded condition, True or not; with cluster
// filtering, only on the clusters every blocking CGU completed.
const (
	BlockingCompletionModeAnnotation = "ran.openshift.io/blocking-cgu-completion-mode"
	BlockingClusterFilterAnnotation  = "ran.openshift.io/blocking-cgu-cluster-filtering"
	PartialBlockingCompletion        = "partial"
)

// The feedback names a stage template reads back, beside the verdict's: the
// Job's succeeded count and ClusterVersion's latest history entry
// (status.history[0] is the newest, openshift/api config/v1
// ClusterVersionStatus.History: "the most recent update is first").
const (
	FeedbackJobSucceeded = "jobSucceeded"
	FeedbackCVVersion    = "cvVersion"
	FeedbackCVState      = "cvState"
	// CVCompleted is the history state of an update the CVO finished
	// (configv1.CompletedUpdate).
	CVCompleted = "Completed"
)

// Staged reports whether the wave carries a staged plan.
func (o Options) Staged() bool { return o.Plan != nil && len(o.Plan.Stages) > 0 }

// StageTemplateName, StageJobName and StageCGUName are stage n's template, Job
// and ClusterGroupUpgrade.
func StageTemplateName(wave string, n int) string { return fmt.Sprintf("recover-stage%d-%s", n, wave) }
func StageJobName(wave string, n int) string      { return fmt.Sprintf("recover-stage%d-%s", n, wave) }
func StageCGUName(wave string, n int) string      { return fmt.Sprintf("%s-stage%d", CGUName(wave), n) }

// StageArgs are stage n's Job arguments: the apply Job's, until stage n has
// landed.
func StageArgs(o Options, n int) []string {
	return append(ApplyArgs(o), "--"+nextcmd.FlagUntilStage, strconv.Itoa(n))
}

// StagePushArgs are StageArgs of a run pushed from a hub (Argo).
func StagePushArgs(o Options, n int, kubeconfig string) []string {
	return append(StageArgs(o, n), "--kubeconfig", kubeconfig)
}

// stagedInspectArgs are what a staged wave's inspect adds: the goal (and the
// EUS path) the plan it stores goes to.
func stagedInspectArgs(o Options) []string {
	if !o.Staged() {
		return nil
	}
	args := []string{"--" + nextcmd.FlagTo, o.Plan.Goal}
	if eus(o.Plan) {
		args = append(args, "--"+nextcmd.FlagEUS)
	}
	return args
}

// stagedInspectJob gives a staged wave's inspect Job the scratch space its
// planning needs: the release payloads it pulls (recover plan --to's, into
// the payload cache under HOME) on an emptyDir, HOME=/tmp, as the Argo pods
// have; the root filesystem stays read-only. The Job ends before any drain
// (an inspect writes its verdict and plan and exits). A wave without stages
// keeps the Job as it is.
func stagedInspectJob(o Options, j *batchv1.Job) *batchv1.Job {
	if !o.Staged() {
		return j
	}
	spec := &j.Spec.Template.Spec
	c := &spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: "HOME", Value: "/tmp"})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "tmp", MountPath: "/tmp"})
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	return j
}

// eus reports whether a staged plan pauses the worker pools (--eus).
func eus(p *planfile.Plan) bool {
	for _, st := range p.Stages {
		if st.Workers == planfile.WorkersPaused {
			return true
		}
	}
	return false
}

// stagedSteps is the plan as a stage run needs access for: every stage's
// steps, in the order they run.
func stagedSteps(p *planfile.Plan) *planfile.Plan {
	q := *p
	q.Steps, q.Stages = nil, nil
	for _, st := range p.Stages {
		q.Steps = append(q.Steps, p.StageSteps(st.Index)...)
	}
	return &q
}

// StageTemplate is stage st's template: the apply Job's identity and RBAC
// (generated from every stage's steps), the plan ConfigMap, the stage's Job,
// the verdict, and ClusterVersion, read only. TALM completes the step when
// the Job succeeded, ClusterVersion's newest history entry is the stage's
// release Completed, the verdict is this wave's and, on the last stage,
// settled; the condition rules give OCM the same Progressing.
func StageTemplate(o Options, st planfile.Stage) (*Template, error) {
	m, err := applyRun(o)
	if err != nil {
		return nil, err
	}
	ji := m.add(job(o, StageJobName(o.Wave, st.Index), ApplyServiceAccount, StageArgs(o, st.Index), 10))
	vi := m.add(configMapRef(o, verdict.DefaultName))
	ci := len(m.items)
	m.items = append(m.items, clusterVersionRef())
	expected := []ExpectedValue{{ji, FeedbackJobSucceeded, "1"}, {ci, FeedbackCVVersion, st.To}, {ci, FeedbackCVState, CVCompleted}, {vi, verdict.FieldWave.Name, o.Wave}}
	if st.Index == len(o.Plan.Stages) {
		expected = append(expected, ExpectedValue{vi, verdict.FieldSettled.Name, "true"})
	}
	cv := manifestConfig{ResourceIdentifier: resourceIdentifier{Group: "config.openshift.io", Resource: "clusterversions", Name: "version"},
		UpdateStrategy: &updateStrategy{Type: StrategyReadOnly},
		FeedbackRules: []feedbackRule{{Type: "JSONPaths", JSONPaths: []jsonPath{
			{Name: FeedbackCVVersion, Path: ".status.history[0].version"}, {Name: FeedbackCVState, Path: ".status.history[0].state"}}}},
		ConditionRules: []conditionRule{{Condition: ConditionProgressing, Type: "CEL", CelExpressions: []string{StageLandedExpression(st.To)},
			Message: fmt.Sprintf("the CVO has not completed %s yet", st.To)}}}
	jobFeedback := []feedbackRule{{Type: "JSONPaths", JSONPaths: []jsonPath{{Name: FeedbackJobSucceeded, Path: ".status.succeeded"}}}}
	return templateWith(o, StageTemplateName(o.Wave, st.Index), m, vi, expected, jobFeedback, []manifestConfig{cv})
}

// clusterVersionRef names the cluster's ClusterVersion for the work agent to
// read (ReadOnly: it never writes it).
func clusterVersionRef() map[string]any {
	return map[string]any{"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": map[string]any{"name": "version"}}
}

// StageLandedExpression is the CEL expression (over ClusterVersion as object)
// of a stage template's Progressing rule: true until the newest history entry
// is version Completed, every field guarded by has() (an evaluation error
// would read as False, done).
func StageLandedExpression(version string) string {
	return fmt.Sprintf("!(has(object.status) && has(object.status.history) && size(object.status.history) > 0 && "+
		"has(object.status.history[0].version) && object.status.history[0].version == %[1]s && "+
		"has(object.status.history[0].state) && object.status.history[0].state == %[2]s)", strconv.Quote(version), strconv.Quote(CVCompleted))
}

// StagedClusterGroupUpgrades are a staged wave's ClusterGroupUpgrades, one per
// stage: stage 1 runs the inspect template then stage 1's, created disabled
// (the SRE's gate); stage n > 1 runs stage n's template, enabled, blocked by
// every earlier stage's CGU in the partial completion mode with cluster
// filtering. The last one labels the clusters that completed the wave.
func StagedClusterGroupUpgrades(o Options) ([]map[string]any, error) {
	var out []map[string]any
	var blocking []blockingCR
	for _, st := range o.Plan.Stages {
		templates := []string{StageTemplateName(o.Wave, st.Index)}
		if st.Index == 1 {
			templates = append([]string{InspectTemplateName(o.Wave)}, templates...)
		}
		c := cgu(o, StageCGUName(o.Wave, st.Index), templates)
		c.Spec.Enable = st.Index > 1
		c.Spec.BlockingCRs = append([]blockingCR(nil), blocking...)
		if st.Index > 1 {
			c.Metadata.Annotations = map[string]string{BlockingCompletionModeAnnotation: PartialBlockingCompletion, BlockingClusterFilterAnnotation: "true"}
		}
		if st.Index < len(o.Plan.Stages) {
			c.Spec.Actions.AfterCompletion.AddClusterLabels = nil
		}
		obj, err := toMap(c)
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
		blocking = append(blocking, blockingCR{Name: c.Metadata.Name, Namespace: o.HubNamespace})
	}
	return out, nil
}

// stagedDocuments are a staged wave's documents for o.Engine.
func stagedDocuments(o Options) ([]Document, error) {
	if o.Engine == EngineArgo {
		w, err := Workflow(o)
		if err != nil {
			return nil, err
		}
		return []Document{{"workflow.yaml", w}}, nil
	}
	in, err := InspectTemplate(o)
	if err != nil {
		return nil, err
	}
	docs := []Document{{"inspect.yaml", in.Object}}
	for _, st := range o.Plan.Stages {
		t, err := StageTemplate(o, st)
		if err != nil {
			return nil, err
		}
		docs = append(docs, Document{fmt.Sprintf("stage-%d.yaml", st.Index), t.Object})
	}
	if o.Engine == EngineTALM {
		cgus, err := StagedClusterGroupUpgrades(o)
		if err != nil {
			return nil, err
		}
		for i, c := range cgus {
			docs = append(docs, Document{fmt.Sprintf("clustergroupupgrade-stage-%d.yaml", i+1), c})
		}
	}
	return docs, nil
}

// expectedOn are the expected values of one manifest.
func expectedOn(expected []ExpectedValue, index int) []ExpectedValue {
	var out []ExpectedValue
	for _, e := range expected {
		if e.ManifestIndex == index {
			out = append(out, e)
		}
	}
	return out
}
