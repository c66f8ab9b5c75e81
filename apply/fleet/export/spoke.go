package export

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/internal/nextcmd"
)

// The spoke objects' names.
const (
	InspectServiceAccount = "recover-inspect"
	ApplyServiceAccount   = "recover-apply"
)

// InspectJobName and ApplyJobName are the wave's Jobs: one per wave, since a
// Job's pod template cannot change and a finished Job does not run again.
func InspectJobName(wave string) string { return "recover-inspect-" + wave }
func ApplyJobName(wave string) string   { return "recover-apply-" + wave }

func labels(o Options) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "recover", verdict.WaveLabel: o.Wave}
}

// InspectArgs are the inspect Job's arguments: the verdict (and the plan, or
// why there is none) of this wave, into the spoke's namespace.
func InspectArgs(o Options) []string {
	args := []string{"inspect", "--" + nextcmd.FlagVerdict, "--" + nextcmd.FlagVerdictNamespace, o.Namespace, "--" + nextcmd.FlagVerdictName, verdict.DefaultName,
		"--" + nextcmd.FlagWave, o.Wave, "--" + nextcmd.FlagSavePlan}
	for _, a := range o.Accept {
		args = append(args, "--accept", a)
	}
	return append(args, stagedInspectArgs(o)...)
}

func namespace(o Options) *corev1.Namespace {
	return &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Namespace, Labels: map[string]string{"app.kubernetes.io/name": "recover"}}}
}

func serviceAccount(o Options, name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: name, Labels: map[string]string{"app.kubernetes.io/name": "recover"}}}
}

// configMapRef is a ConfigMap recover writes on the spoke: the templates name
// it to read it back (ReadOnly: the work agent never creates or overwrites it).
func configMapRef(o Options, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: name}}
}

// TerminationGracePeriodSeconds is the Jobs' pods' grace period: a drain's
// SIGTERM stops the run, which then reverts its outstanding temporary changes
// within apply.DefaultRevertTimeout (docs/apply.md, "The drain or reboot of its
// own node", asks at least that plus 30 s: 150).
var TerminationGracePeriodSeconds = int64((apply.DefaultRevertTimeout + 30*time.Second) / time.Second)

// job runs recover with args as the service account sa: non-root, no
// privilege, a read-only root filesystem and no local volume (the plan, the
// journal and the verdict are in the cluster; docs/apply.md asks no emptyDir,
// so a drain needs no --delete-emptydir-data), time to revert on SIGTERM,
// retried up to backoff times.
func job(o Options, name, sa string, args []string, backoff int32) *batchv1.Job {
	l := labels(o)
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: name, Labels: l},
		Spec: batchv1.JobSpec{
			// No ttlSecondsAfterFinished: a ManifestWork still in place would
			// create a collected Job again, and run it again.
			BackoffLimit: ptr.To(backoff),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{
					ServiceAccountName:            sa,
					RestartPolicy:                 corev1.RestartPolicyNever,
					TerminationGracePeriodSeconds: ptr.To(TerminationGracePeriodSeconds),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					// The control plane keeps running while worker pools drain.
					Tolerations: []corev1.Toleration{
						{Key: "node-role.kubernetes.io/master", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
						{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
					},
					Containers: []corev1.Container{{
						Name:  "recover",
						Image: o.Image,
						Args:  args,
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")},
						},
					}},
				},
			},
		},
	}
}

// manifests collects the objects a template or document embeds, as plain maps
// without the empty creationTimestamp and status a typed object marshals.
type manifests struct {
	items []map[string]any
	err   error
}

// add appends obj and returns its index (a ManifestWork's manifest ordinal).
func (m *manifests) add(obj runtime.Object) int {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil && m.err == nil {
		m.err = fmt.Errorf("converting %T: %w", obj, err)
	}
	prune(u)
	m.items = append(m.items, u)
	return len(m.items) - 1
}

// prune drops creationTimestamp: null and empty status maps, recursively.
func prune(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			if k == "creationTimestamp" {
				delete(m, k)
			}
		case map[string]any:
			prune(x)
			if k == "status" && len(x) == 0 {
				delete(m, k)
			}
		case []any:
			for _, e := range x {
				if em, ok := e.(map[string]any); ok {
					prune(em)
				}
			}
		}
	}
}
