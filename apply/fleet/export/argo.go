package export

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/internal/openshift"
)

// The Workflow as recover fills it (argoproj/argo-workflows
// pkg/apis/workflow/v1alpha1/workflow_types.go).
type (
	workflow struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   objectMeta `json:"metadata"`
		Spec       wfSpec     `json:"spec"`
	}
	wfSpec struct {
		Entrypoint            string       `json:"entrypoint"`
		OnExit                string       `json:"onExit"`
		Parallelism           int          `json:"parallelism"`
		ActiveDeadlineSeconds int64        `json:"activeDeadlineSeconds"`
		Arguments             wfArguments  `json:"arguments"`
		Templates             []wfTemplate `json:"templates"`
	}
	wfArguments struct {
		Parameters []wfParameter `json:"parameters"`
	}
	wfParameter struct {
		Name        string `json:"name"`
		Value       string `json:"value,omitempty"`
		Description string `json:"description,omitempty"`
	}
	wfTemplate struct {
		Name          string            `json:"name"`
		Inputs        *wfArguments      `json:"inputs,omitempty"`
		DAG           *wfDAG            `json:"dag,omitempty"`
		Suspend       *struct{}         `json:"suspend,omitempty"`
		Container     *corev1.Container `json:"container,omitempty"`
		Volumes       []corev1.Volume   `json:"volumes,omitempty"`
		RetryStrategy *wfRetry          `json:"retryStrategy,omitempty"`
	}
	wfDAG struct {
		Tasks []wfTask `json:"tasks"`
	}
	wfTask struct {
		Name      string       `json:"name"`
		Template  string       `json:"template"`
		Depends   string       `json:"depends,omitempty"`
		WithParam string       `json:"withParam,omitempty"`
		When      string       `json:"when,omitempty"`
		Arguments *wfArguments `json:"arguments,omitempty"`
	}
	wfRetry struct {
		Limit       int    `json:"limit"`
		RetryPolicy string `json:"retryPolicy"`
	}
)

// The Workflow's parameters: the clusters as JSON lists, and whether the exit
// handler hands the CVO back.
const (
	ParamCanaries = "canaries"
	ParamClusters = "clusters"
	ParamHandBack = "hand-back"
	// kubeconfigDir is where each task's cluster kubeconfig is mounted.
	kubeconfigDir = "/kubeconfig"
)

// Workflow runs the wave from a hub without ACM, pushing to each cluster with
// its kubeconfig (the Secret KubeconfigSecret names, key "kubeconfig"): inspect
// and apply the canaries, wait at a suspend node for the SRE's approval (argo
// resume), inspect and apply the rest, at most MaxConcurrency pods at once,
// within Timeout. On exit, whatever happened, each cluster whose run left the
// CVO disabled gets it back (the verdict's cvoDisabled and cvoReplicas), unless
// the hand-back parameter is false.
func Workflow(o Options) (map[string]any, error) {
	canaries, err := json.Marshal(nonNil(o.Canaries))
	if err != nil {
		return nil, err
	}
	clusters, err := json.Marshal(nonNil(o.Clusters))
	if err != nil {
		return nil, err
	}
	perCluster := func(task, template, depends, list string) wfTask {
		return wfTask{Name: task, Template: template, Depends: depends, WithParam: "{{workflow.parameters." + list + "}}",
			Arguments: &wfArguments{Parameters: []wfParameter{{Name: "cluster", Value: "{{item}}"}}}}
	}
	// The steps each cluster runs after its inspect: apply, or a staged
	// wave's stages in order.
	after := []string{"apply"}
	if o.Staged() {
		after = nil
		for _, st := range o.Plan.Stages {
			after = append(after, StageTaskName(st.Index))
		}
	}
	chain := func(suffix, list, first string) []wfTask {
		out := []wfTask{perCluster("inspect"+suffix, "inspect", first, list)}
		for _, step := range after {
			out = append(out, perCluster(step+suffix, step, out[len(out)-1].Name, list))
		}
		return out
	}
	var tasks []wfTask
	approveAfter := ""
	if len(o.Canaries) > 0 {
		tasks = append(tasks, chain("-canaries", ParamCanaries, "")...)
		approveAfter = tasks[len(tasks)-1].Name
	}
	tasks = append(tasks, wfTask{Name: "approve", Template: "approve", Depends: approveAfter})
	tasks = append(tasks, chain("", ParamClusters, "approve")...)
	handBackWhen := "{{workflow.parameters." + ParamHandBack + "}} == true"
	exit := []wfTask{perCluster("hand-back-clusters", "hand-back", "", ParamClusters)}
	if len(o.Canaries) > 0 {
		exit = append(exit, perCluster("hand-back-canaries", "hand-back", "", ParamCanaries))
	}
	for i := range exit {
		exit[i].When = handBackWhen
	}
	clusterInput := &wfArguments{Parameters: []wfParameter{{Name: "cluster"}}}
	kubeconfig := kubeconfigDir + "/kubeconfig"
	w := workflow{
		APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow",
		Metadata: objectMeta{GenerateName: "recover-" + o.Wave + "-", Namespace: o.HubNamespace, Labels: labels(o)},
		Spec: wfSpec{
			Entrypoint: "wave", OnExit: "hand-back-all", Parallelism: o.MaxConcurrency, ActiveDeadlineSeconds: int64(o.Timeout.Seconds()),
			Arguments: wfArguments{Parameters: []wfParameter{
				{Name: ParamCanaries, Value: string(canaries), Description: "the clusters inspected and applied first, before the approval (a JSON list)"},
				{Name: ParamClusters, Value: string(clusters), Description: "the wave's other clusters (a JSON list)"},
				{Name: ParamHandBack, Value: "true", Description: "on exit, give the CVO back where recover's run left it disabled"},
			}},
			Templates: []wfTemplate{
				{Name: "wave", DAG: &wfDAG{Tasks: tasks}},
				{Name: "approve", Suspend: &struct{}{}},
				{Name: "inspect", Inputs: clusterInput, Container: argoContainer(o, o.Image, append(InspectArgs(o), "--kubeconfig", kubeconfig)),
					Volumes: kubeconfigVolume(o), RetryStrategy: &wfRetry{Limit: 2, RetryPolicy: "OnError"}},
				{Name: "apply", Inputs: clusterInput, Container: argoContainer(o, o.Image, ApplyPushArgs(o, kubeconfig)),
					Volumes: kubeconfigVolume(o), RetryStrategy: &wfRetry{Limit: 3, RetryPolicy: "Always"}},
				{Name: "hand-back-all", DAG: &wfDAG{Tasks: exit}},
				{Name: "hand-back", Inputs: clusterInput, Container: handBackContainer(o), Volumes: kubeconfigVolume(o)},
			},
		},
	}
	if o.Staged() {
		// Each stage's template in place of apply's: the same run, until
		// that stage has landed.
		ts := w.Spec.Templates[:3:3]
		for _, st := range o.Plan.Stages {
			ts = append(ts, wfTemplate{Name: StageTaskName(st.Index), Inputs: clusterInput, Container: argoContainer(o, o.Image, StagePushArgs(o, st.Index, kubeconfig)),
				Volumes: kubeconfigVolume(o), RetryStrategy: &wfRetry{Limit: 3, RetryPolicy: "Always"}})
		}
		w.Spec.Templates = append(ts, w.Spec.Templates[4:]...)
	}
	return toMap(w)
}

// StageTaskName is stage n's task and template in the Workflow.
func StageTaskName(n int) string { return fmt.Sprintf("stage-%d", n) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func argoContainer(o Options, image string, args []string) *corev1.Container {
	c := job(o, "x", "x", args, 0).Spec.Template.Spec.Containers[0]
	c.Image = image
	// The Workflow's pods run on the hub, not in the cluster they change (no
	// drain of theirs to survive): /tmp is writable for oc's and client-go's
	// caches under HOME.
	c.Env = append(c.Env, corev1.EnvVar{Name: "HOME", Value: "/tmp"})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "tmp", MountPath: "/tmp"},
		corev1.VolumeMount{Name: "kubeconfig", MountPath: kubeconfigDir, ReadOnly: true})
	return &c
}

func kubeconfigVolume(o Options) []corev1.Volume {
	secret := strings.ReplaceAll(o.KubeconfigSecret, "{cluster}", "{{inputs.parameters.cluster}}")
	return []corev1.Volume{
		{Name: "kubeconfig", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret,
			Items: []corev1.KeyToPath{{Key: "kubeconfig", Path: "kubeconfig"}}}}},
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
}

// HandBackScript is the exit handler's shell script for one cluster: when the
// cluster's verdict says recover's run left the CVO disabled, scale the CVO to
// the verdict's replicas (1 when they are not a number); otherwise do nothing.
// It reads only the verdict's flat fields, never runs text from the cluster.
func HandBackScript(o Options, cluster string) string {
	return fmt.Sprintf(`set -eu
field() { oc get configmap -n %[1]s %[2]s -o "jsonpath={.data.$1}" 2>/dev/null || true; }
if [ "$(field %[3]s)" != "true" ]; then
  echo "%[4]s: recover left the CVO running; nothing to hand back"
  exit 0
fi
replicas="$(field %[5]s)"
case "$replicas" in ''|*[!0-9]*) replicas=1 ;; esac
echo "%[4]s: recover's run stopped with the CVO disabled; handing it back ($replicas replicas)"
oc scale deployment/%[6]s -n %[7]s --replicas="$replicas"
`, o.Namespace, verdict.DefaultName, verdict.FieldCVODisabled.Name, cluster, verdict.FieldCVOReplicas.Name, openshift.CVODeployment, openshift.CVONamespace)
}

func handBackContainer(o Options) *corev1.Container {
	c := argoContainer(o, o.HandBackImage, []string{HandBackScript(o, "{{inputs.parameters.cluster}}")})
	c.Command = []string{"/bin/sh", "-c"}
	c.Env = append(c.Env, corev1.EnvVar{Name: "KUBECONFIG", Value: kubeconfigDir + "/kubeconfig"})
	return c
}
