package inspect

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotation and label keys read from nodes, pods and MachineConfigs (the
// OpenShift ones are defined once, in internal/openshift).
const (
	annCurrentConfig       = openshift.AnnotationCurrentConfig
	annDesiredConfig       = openshift.AnnotationDesiredConfig
	annMCDState            = openshift.AnnotationMCDState
	annMCDReason           = openshift.AnnotationMCDReason
	annReleaseImageVersion = openshift.AnnotationReleaseImageVersion
	annControllerVersion   = openshift.AnnotationControllerVersion
	annMirrorPod           = corev1.MirrorPodAnnotationKey
	labelNodeRolePrefix    = openshift.LabelNodeRolePrefix
	labelRevision          = "revision"
)

// NodeFromAPI reduces a Node to the lean record a snapshot keeps.
func NodeFromAPI(n *corev1.Node) Node {
	out := Node{
		Name:           n.Name,
		KubeletVersion: n.Status.NodeInfo.KubeletVersion,
		OSImage:        n.Status.NodeInfo.OSImage,
		Unschedulable:  n.Spec.Unschedulable,
		CurrentConfig:  n.Annotations[annCurrentConfig],
		DesiredConfig:  n.Annotations[annDesiredConfig],
		MCDState:       n.Annotations[annMCDState],
		MCDReason:      n.Annotations[annMCDReason],
		// formatVersion 1.1
		DesiredDrain:     n.Annotations[openshift.AnnotationDesiredDrain],
		LastAppliedDrain: n.Annotations[openshift.AnnotationLastAppliedDrain],
		Addresses:        addressesFromAPI(n.Status.Addresses),
		Created:          utc(n.CreationTimestamp),
	}
	for k := range n.Labels {
		if role, ok := strings.CutPrefix(k, labelNodeRolePrefix); ok && role != "" {
			out.Roles = append(out.Roles, role)
		}
	}
	sort.Strings(out.Roles)
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Ready = string(c.Status)
			out.ReadySince = c.LastTransitionTime.UTC()
			if c.Status != corev1.ConditionTrue {
				out.ReadyReason, out.ReadyMessage = c.Reason, c.Message
			}
		}
	}
	return out
}

// ClusterOperatorFromAPI reduces a ClusterOperator to its claims.
func ClusterOperatorFromAPI(co *configv1.ClusterOperator) ClusterOperator {
	out := ClusterOperator{
		Name:           co.Name,
		Versions:       co.Status.Versions,
		Conditions:     co.Status.Conditions,
		RelatedObjects: co.Status.RelatedObjects,
		Annotations:    releaseAnnotations(co.Annotations),
	}
	if out.Versions == nil {
		out.Versions = []configv1.OperandVersion{}
	}
	if out.Conditions == nil {
		out.Conditions = []configv1.ClusterOperatorStatusCondition{}
	}
	return out
}

// releaseAnnotations keeps the include./exclude.release.openshift.io annotations.
func releaseAnnotations(in map[string]string) map[string]string {
	var out map[string]string
	for k, v := range in {
		if strings.Contains(k, openshift.ReleaseAnnotationInfix) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// MachineConfigPoolFromAPI reduces a MachineConfigPool.
func MachineConfigPoolFromAPI(p *mcfgv1.MachineConfigPool) MachineConfigPool {
	out := MachineConfigPool{
		Name:                    p.Name,
		Configuration:           p.Spec.Configuration.Name,
		StatusConfiguration:     p.Status.Configuration.Name,
		Paused:                  p.Spec.Paused,
		MachineCount:            p.Status.MachineCount,
		UpdatedMachineCount:     p.Status.UpdatedMachineCount,
		ReadyMachineCount:       p.Status.ReadyMachineCount,
		UnavailableMachineCount: p.Status.UnavailableMachineCount,
		DegradedMachineCount:    p.Status.DegradedMachineCount,
		Conditions:              p.Status.Conditions,
		Generation:              p.Generation,
		ObservedGeneration:      p.Status.ObservedGeneration,
		UID:                     string(p.UID),
	}
	_, out.RequiredForUpgrade = p.Labels[openshift.LabelRequiredForUpgradePool]
	if p.Spec.NodeSelector != nil && len(p.Spec.NodeSelector.MatchLabels) > 0 {
		out.NodeSelector = p.Spec.NodeSelector.MatchLabels
	}
	return out
}

// MachineConfigFromMeta reduces a MachineConfig to its release annotations; only
// its metadata is needed (the live source lists metadata only).
func MachineConfigFromMeta(m *metav1.ObjectMeta) MachineConfig {
	return MachineConfig{
		Name:                m.Name,
		ReleaseImageVersion: m.Annotations[annReleaseImageVersion],
		ControllerVersion:   m.Annotations[annControllerVersion],
	}
}

// DeploymentFromAPI reduces a Deployment to its rollout state and versions.
func DeploymentFromAPI(d *appsv1.Deployment) Deployment {
	out := Deployment{
		Namespace:          d.Namespace,
		Name:               d.Name,
		Replicas:           d.Spec.Replicas,
		ReadyReplicas:      d.Status.ReadyReplicas,
		UpdatedReplicas:    d.Status.UpdatedReplicas,
		AvailableReplicas:  d.Status.AvailableReplicas,
		Generation:         d.Generation,
		ObservedGeneration: d.Status.ObservedGeneration,
		Annotations:        releaseAnnotations(d.Annotations),
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		out.Containers = append(out.Containers, containerFromAPI(c))
	}
	return out
}

func containerFromAPI(c corev1.Container) Container {
	out := Container{Name: c.Name, Image: c.Image}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--release-image") {
			out.Args = append(out.Args, a)
		}
	}
	for _, e := range c.Env {
		if versionEnv[e.Name] && e.ValueFrom == nil {
			if out.Env == nil {
				out.Env = map[string]string{}
			}
			out.Env[e.Name] = e.Value
		}
	}
	return out
}

// isOperatorDeployment reports whether a reduced Deployment declares a release or
// operand version: the operators do, their operands mostly do not.
func isOperatorDeployment(d *Deployment) bool {
	for _, c := range d.Containers {
		for _, k := range releaseVersionEnv {
			if c.Env[k] != "" {
				return true
			}
		}
		if c.Env["OPERAND_IMAGE_VERSION"] != "" {
			return true
		}
	}
	return false
}

var installerName = regexp.MustCompile(`^installer-(\d+)-(?:retry-(\d+)-)?(.+)$`)

// StaticPodFromAPI classifies a pod of a static-pod operand namespace: the mirror
// pod of the component on its node, an installer pod, or neither (guards, pruners,
// startup monitors).
func StaticPodFromAPI(c *StaticPodComponent, p *corev1.Pod) (*StaticPod, *InstallerPod) {
	node := p.Spec.NodeName
	if m := installerName.FindStringSubmatch(p.Name); m != nil {
		rev, _ := strconv.Atoi(m[1])
		retry, _ := strconv.Atoi(m[2])
		if node == "" {
			node = m[3]
		}
		ip := &InstallerPod{Name: p.Name, Node: node, Revision: int32(rev), Retry: retry, Phase: string(p.Status.Phase)}
		for _, cs := range p.Status.ContainerStatuses {
			t := ContainerTerminus{Name: cs.Name}
			if cs.State.Terminated != nil {
				t.Terminated, t.ExitCode, t.Reason = true, cs.State.Terminated.ExitCode, cs.State.Terminated.Reason
				if f := cs.State.Terminated.FinishedAt.UTC(); f.After(ip.Finished) {
					ip.Finished = f
				}
			}
			ip.Containers = append(ip.Containers, t)
		}
		return nil, ip
	}
	_, mirror := p.Annotations[annMirrorPod]
	if node == "" || p.Name != c.PodPrefix+"-"+node {
		return nil, nil
	}
	if !mirror && p.Labels[labelRevision] == "" {
		return nil, nil
	}
	sp := &StaticPod{Name: p.Name, Node: node, Phase: string(p.Status.Phase)}
	if rev, err := strconv.Atoi(p.Labels[labelRevision]); err == nil {
		sp.Revision = int32(rev)
	}
	for i, ct := range p.Spec.Containers {
		if i == 0 || ct.Name == c.Container {
			sp.Image = ct.Image
		}
		if ct.Name == c.Container {
			break
		}
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			sp.Ready = cond.Status == corev1.ConditionTrue
		}
	}
	return sp, nil
}
