package resource

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The pod template rules the Deployment, DaemonSet, Job and CronJob merges share
// (cluster-version-operator lib/resourcemerge/core.go). What the manifest does
// not name is the live object's: an injected or defaulted field survives, and
// the template's metadata is merged like any object's, so an annotation such as
// kubectl.kubernetes.io/restartedAt (oc rollout restart) stays and the pods do
// not roll for it.

// ensurePodTemplate (core.go ensurePodTemplateSpec).
func ensurePodTemplate(modified *bool, existing *corev1.PodTemplateSpec, required corev1.PodTemplateSpec) {
	ensureObjectMeta(modified, &existing.ObjectMeta, required.ObjectMeta)
	ensurePodSpec(modified, &existing.Spec, required.Spec)
}

// ensurePodSpec (core.go ensurePodSpec).
func ensurePodSpec(modified *bool, existing *corev1.PodSpec, required corev1.PodSpec) {
	ensureContainers(modified, &existing.InitContainers, required.InitContainers, required.HostNetwork)
	ensureContainers(modified, &existing.Containers, required.Containers, required.HostNetwork)
	ensureVolumes(modified, &existing.Volumes, required.Volumes)
	setStringIfSet(modified, &existing.RestartPolicy, required.RestartPolicy)
	setPtr(modified, &existing.AutomountServiceAccountToken, required.AutomountServiceAccountToken)
	setStringIfSet(modified, &existing.ServiceAccountName, required.ServiceAccountName)
	setValue(modified, &existing.HostNetwork, required.HostNetwork)
	setPtr(modified, &existing.HostUsers, required.HostUsers)
	mergeStringMap(modified, &existing.NodeSelector, required.NodeSelector)
	ensurePodSecurityContext(modified, &existing.SecurityContext, required.SecurityContext)
	ensureAffinity(modified, &existing.Affinity, required.Affinity)
	ensureTolerations(modified, &existing.Tolerations, required.Tolerations)
	setStringIfSet(modified, &existing.PriorityClassName, required.PriorityClassName)
	setPtr(modified, &existing.Priority, required.Priority)
	setPtr(modified, &existing.ShareProcessNamespace, required.ShareProcessNamespace)
	// An unset DNS policy is ClusterFirst, an unset grace period 30s
	// (core.go ensureDNSPolicy, ensureTerminationGracePeriod).
	dns := required.DNSPolicy
	if dns == "" {
		dns = corev1.DNSClusterFirst
	}
	setValue(modified, &existing.DNSPolicy, dns)
	grace := required.TerminationGracePeriodSeconds
	if grace == nil {
		grace = ptr.To(int64(corev1.DefaultTerminationGracePeriodSeconds))
	}
	setPtr(modified, &existing.TerminationGracePeriodSeconds, grace)
}

// ensureContainers matches containers by name: a live container the manifest
// does not name is removed, a named one merged, a missing one appended as the
// manifest has it (core.go ensureContainers).
func ensureContainers(modified *bool, existing *[]corev1.Container, required []corev1.Container, hostNetwork bool) {
	for i := len(*existing) - 1; i >= 0; i-- {
		kept := false
		for _, r := range required {
			if (*existing)[i].Name == r.Name {
				ensureContainer(modified, &(*existing)[i], r, hostNetwork)
				kept = true
				break
			}
		}
		if !kept {
			*existing = append((*existing)[:i], (*existing)[i+1:]...)
			*modified = true
		}
	}
	for _, r := range required {
		if !containsName(*existing, r.Name, func(c corev1.Container) string { return c.Name }) {
			*existing = append(*existing, r)
			*modified = true
		}
	}
}

func containsName[T any](list []T, name string, nameOf func(T) string) bool {
	for _, e := range list {
		if nameOf(e) == name {
			return true
		}
	}
	return false
}

// ensureContainer (core.go ensureContainer). Fields the CVO does not name
// (imagePullPolicy, terminationMessagePath, startupProbe, lifecycle, ...) are the
// live container's.
func ensureContainer(modified *bool, existing *corev1.Container, required corev1.Container, hostNetwork bool) {
	setStringIfSet(modified, &existing.Name, required.Name)
	setStringIfSet(modified, &existing.Image, required.Image)
	setSlice(modified, &existing.Command, required.Command)
	setSlice(modified, &existing.Args, required.Args)
	// core.go ensureEnvVar: a fieldRef without apiVersion is v1.
	for i := range required.Env {
		if vf := required.Env[i].ValueFrom; vf != nil && vf.FieldRef != nil && vf.FieldRef.APIVersion == "" {
			vf.FieldRef.APIVersion = "v1"
		}
	}
	setSemantic(modified, &existing.Env, required.Env)
	setSemantic(modified, &existing.EnvFrom, required.EnvFrom)
	setStringIfSet(modified, &existing.WorkingDir, required.WorkingDir)
	// core.go ensureResourceRequirements, ensureResourceList: limits and requests
	// each replaced when not equal.
	setSemantic(modified, &existing.Resources.Limits, required.Resources.Limits)
	setSemantic(modified, &existing.Resources.Requests, required.Resources.Requests)
	ensureContainerPorts(modified, &existing.Ports, required.Ports, hostNetwork)
	ensureVolumeMounts(modified, &existing.VolumeMounts, required.VolumeMounts)
	ensureProbe(modified, &existing.LivenessProbe, required.LivenessProbe)
	ensureProbe(modified, &existing.ReadinessProbe, required.ReadinessProbe)
	ensureContainerSecurityContext(modified, &existing.SecurityContext, required.SecurityContext)
}

// ensureProbe: a probe only one side has is the manifest's; both: the manifest's
// timings (defaults 1s, 10s, 1, 3) and handler (HTTP scheme defaults to HTTP)
// (core.go ensureProbePtr, ensureProbeDefaults, ensureProbe, ensureProbeHandler).
func ensureProbe(modified *bool, existing **corev1.Probe, required *corev1.Probe) {
	switch {
	case *existing == nil && required == nil:
		return
	case *existing == nil || required == nil:
		*existing = required
		*modified = true
		return
	}
	for _, d := range []struct {
		v   *int32
		def int32
	}{{&required.TimeoutSeconds, 1}, {&required.PeriodSeconds, 10}, {&required.SuccessThreshold, 1}, {&required.FailureThreshold, 3}} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	e := *existing
	setValue(modified, &e.InitialDelaySeconds, required.InitialDelaySeconds)
	setValue(modified, &e.TimeoutSeconds, required.TimeoutSeconds)
	setValue(modified, &e.PeriodSeconds, required.PeriodSeconds)
	setValue(modified, &e.SuccessThreshold, required.SuccessThreshold)
	setValue(modified, &e.FailureThreshold, required.FailureThreshold)
	handler := required.ProbeHandler
	if handler.HTTPGet != nil && handler.HTTPGet.Scheme == "" {
		handler.HTTPGet.Scheme = corev1.URISchemeHTTP
	}
	setSemantic(modified, &e.ProbeHandler, handler)
}

// ensureContainerPorts matches ports by name, removing unnamed live ones; a
// matched port takes the manifest's, protocol TCP and, on the host network, the
// host port defaulted (core.go ensureContainerPorts, ensureContainerPort,
// ensureContainerPortDefaults).
func ensureContainerPorts(modified *bool, existing *[]corev1.ContainerPort, required []corev1.ContainerPort, hostNetwork bool) {
	for i := len(*existing) - 1; i >= 0; i-- {
		kept := false
		for _, r := range required {
			if (*existing)[i].Name != r.Name {
				continue
			}
			if hostNetwork && r.HostPort == 0 {
				r.HostPort = r.ContainerPort
			}
			if r.Protocol == "" {
				r.Protocol = corev1.ProtocolTCP
			}
			setSemantic(modified, &(*existing)[i], r)
			kept = true
			break
		}
		if !kept {
			*existing = append((*existing)[:i], (*existing)[i+1:]...)
			*modified = true
		}
	}
	for _, r := range required {
		if !containsName(*existing, r.Name, func(p corev1.ContainerPort) string { return p.Name }) {
			*existing = append(*existing, r)
			*modified = true
		}
	}
}

// ensureVolumeMounts: every manifest mount (by mount path) is the manifest's,
// every other live mount is removed (core.go ensureVolumeMounts).
func ensureVolumeMounts(modified *bool, existing *[]corev1.VolumeMount, required []corev1.VolumeMount) {
	want := map[string]bool{}
	for _, r := range required {
		want[r.MountPath] = true
		i := indexOf(*existing, func(m corev1.VolumeMount) bool { return m.MountPath == r.MountPath })
		if i < 0 {
			*existing = append(*existing, corev1.VolumeMount{})
			i = len(*existing) - 1
			*modified = true
		}
		setSemantic(modified, &(*existing)[i], r)
	}
	for i := len(*existing) - 1; i >= 0; i-- {
		if !want[(*existing)[i].MountPath] {
			*existing = append((*existing)[:i], (*existing)[i+1:]...)
			*modified = true
		}
	}
}

func indexOf[T any](list []T, match func(T) bool) int {
	for i, e := range list {
		if match(e) {
			return i
		}
	}
	return -1
}

// ensureVolumes: every manifest volume (by name), with the API server's defaults
// filled in, is the manifest's; every other live volume is removed (core.go
// ensureVolumes, ensureVolume, ensureVolumeSourceDefaults).
func ensureVolumes(modified *bool, existing *[]corev1.Volume, required []corev1.Volume) {
	want := map[string]bool{}
	for _, r := range required {
		want[r.Name] = true
		i := indexOf(*existing, func(v corev1.Volume) bool { return v.Name == r.Name })
		if i < 0 {
			*existing = append(*existing, corev1.Volume{})
			i = len(*existing) - 1
			*modified = true
		}
		if ptr.AllPtrFieldsNil(&r.VolumeSource) {
			r.VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		}
		volumeSourceDefaults(&r.VolumeSource)
		setSemantic(modified, &(*existing)[i], r)
	}
	for i := len(*existing) - 1; i >= 0; i-- {
		if !want[(*existing)[i].Name] {
			*existing = append((*existing)[:i], (*existing)[i+1:]...)
			*modified = true
		}
	}
}

// volumeSourceDefaults fills in what the API server defaults, so that a
// manifest that leaves them out compares equal to the live volume (core.go
// ensureVolumeSourceDefaults). One difference: a projected volume's source that
// is not a service account token is left alone, where the CVO dereferences it
// and panics.
func volumeSourceDefaults(v *corev1.VolumeSource) {
	mode := func(p **int32, def int32) {
		if *p == nil {
			*p = ptr.To(def)
		}
	}
	if v.HostPath != nil && v.HostPath.Type == nil {
		v.HostPath.Type = ptr.To(corev1.HostPathUnset)
	}
	if v.Secret != nil {
		mode(&v.Secret.DefaultMode, corev1.SecretVolumeSourceDefaultMode)
	}
	if v.ISCSI != nil && v.ISCSI.ISCSIInterface == "" {
		v.ISCSI.ISCSIInterface = "default"
	}
	if v.RBD != nil {
		setStringIfSetDefault(&v.RBD.RBDPool, "rbd")
		setStringIfSetDefault(&v.RBD.RadosUser, "admin")
		setStringIfSetDefault(&v.RBD.Keyring, "/etc/ceph/keyring")
	}
	if v.ConfigMap != nil {
		mode(&v.ConfigMap.DefaultMode, corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if d := v.AzureDisk; d != nil {
		if d.CachingMode == nil {
			d.CachingMode = ptr.To(corev1.AzureDataDiskCachingReadWrite)
		}
		if d.Kind == nil {
			d.Kind = ptr.To(corev1.AzureSharedBlobDisk)
		}
		if d.FSType == nil {
			d.FSType = ptr.To("ext4")
		}
		if d.ReadOnly == nil {
			d.ReadOnly = ptr.To(false)
		}
	}
	if v.DownwardAPI != nil {
		mode(&v.DownwardAPI.DefaultMode, corev1.DownwardAPIVolumeSourceDefaultMode)
	}
	if v.Projected != nil && v.Projected.DefaultMode == nil {
		v.Projected.DefaultMode = ptr.To(corev1.ProjectedVolumeSourceDefaultMode)
		for i := range v.Projected.Sources {
			if t := v.Projected.Sources[i].ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				t.ExpirationSeconds = ptr.To(int64(time.Hour.Seconds()))
			}
		}
	}
	if v.ScaleIO != nil {
		setStringIfSetDefault(&v.ScaleIO.StorageMode, "ThinProvisioned")
		setStringIfSetDefault(&v.ScaleIO.FSType, "xfs")
	}
}

func setStringIfSetDefault(s *string, def string) {
	if *s == "" {
		*s = def
	}
}

// setOrMergePtr is the CVO's pattern for optional structs: both unset leaves it,
// one unset takes the manifest's (nil included), both set merges field by field.
func setOrMergePtr[T any](modified *bool, existing **T, required *T, merge func(*bool, *T, T)) {
	switch {
	case *existing == nil && required == nil:
	case *existing == nil || required == nil:
		*existing = required
		*modified = true
	default:
		merge(modified, *existing, *required)
	}
}

// ensureContainerSecurityContext: the manifest's security context wins field by
// field; capabilities the manifest adds or drops are added to the live lists
// (core.go ensureSecurityContextPtr, ensureSecurityContext, ensureCapabilities).
func ensureContainerSecurityContext(modified *bool, existing **corev1.SecurityContext, required *corev1.SecurityContext) {
	setOrMergePtr(modified, existing, required, func(modified *bool, e *corev1.SecurityContext, r corev1.SecurityContext) {
		setOrMergePtr(modified, &e.Capabilities, r.Capabilities, func(modified *bool, e *corev1.Capabilities, r corev1.Capabilities) {
			e.Add = appendMissing(modified, e.Add, r.Add)
			e.Drop = appendMissing(modified, e.Drop, r.Drop)
		})
		setOrMergePtr(modified, &e.SELinuxOptions, r.SELinuxOptions, ensureSELinuxOptions)
		setPtr(modified, &e.Privileged, r.Privileged)
		setPtr(modified, &e.RunAsUser, r.RunAsUser)
		setPtr(modified, &e.RunAsNonRoot, r.RunAsNonRoot)
		setPtr(modified, &e.ReadOnlyRootFilesystem, r.ReadOnlyRootFilesystem)
		setPtr(modified, &e.AllowPrivilegeEscalation, r.AllowPrivilegeEscalation)
		setOrMergePtr(modified, &e.SeccompProfile, r.SeccompProfile, func(modified *bool, e *corev1.SeccompProfile, r corev1.SeccompProfile) {
			setSemantic(modified, e, r)
		})
	})
}

// appendMissing appends each required item the live list lacks.
func appendMissing[T comparable](modified *bool, existing, required []T) []T {
	for _, r := range required {
		if indexOf(existing, func(e T) bool { return e == r }) < 0 {
			existing = append(existing, r)
			*modified = true
		}
	}
	return existing
}

// ensureSELinuxOptions (core.go ensureSELinuxOptions).
func ensureSELinuxOptions(modified *bool, e *corev1.SELinuxOptions, r corev1.SELinuxOptions) {
	setStringIfSet(modified, &e.User, r.User)
	setStringIfSet(modified, &e.Role, r.Role)
	setStringIfSet(modified, &e.Type, r.Type)
	setStringIfSet(modified, &e.Level, r.Level)
}

// ensurePodSecurityContext: an empty live context and no manifest one is left;
// one side unset takes the manifest's; else field by field, supplemental groups
// and sysctls added (core.go ensurePodSecurityContextPtr, ensurePodSecurityContext).
func ensurePodSecurityContext(modified *bool, existing **corev1.PodSecurityContext, required *corev1.PodSecurityContext) {
	if (*existing == nil || equality.Semantic.DeepEqual(*existing, &corev1.PodSecurityContext{})) && required == nil {
		return
	}
	if *existing == nil || required == nil {
		*existing = required
		*modified = true
		return
	}
	e, r := *existing, *required
	setOrMergePtr(modified, &e.SELinuxOptions, r.SELinuxOptions, ensureSELinuxOptions)
	setPtr(modified, &e.RunAsUser, r.RunAsUser)
	setPtr(modified, &e.RunAsGroup, r.RunAsGroup)
	setPtr(modified, &e.RunAsNonRoot, r.RunAsNonRoot)
	setOrMergePtr(modified, &e.SeccompProfile, r.SeccompProfile, func(modified *bool, e *corev1.SeccompProfile, r corev1.SeccompProfile) {
		setSemantic(modified, e, r)
	})
	e.SupplementalGroups = appendMissing(modified, e.SupplementalGroups, r.SupplementalGroups)
	setPtr(modified, &e.FSGroup, r.FSGroup)
	for _, s := range r.Sysctls {
		i := indexOf(e.Sysctls, func(c corev1.Sysctl) bool { return c.Name == s.Name })
		switch {
		case i < 0:
			e.Sysctls = append(e.Sysctls, s)
			*modified = true
		case e.Sysctls[i].Value != s.Value:
			e.Sysctls[i] = s
			*modified = true
		}
	}
}

// ensureAffinity: no manifest affinity leaves the live one; else node, pod and
// pod-anti affinity are each the manifest's (core.go ensureAffinityPtr,
// ensureAffinity).
func ensureAffinity(modified *bool, existing **corev1.Affinity, required *corev1.Affinity) {
	if required == nil {
		return
	}
	if *existing == nil {
		*existing = required
		*modified = true
		return
	}
	e := *existing
	setSemantic(modified, &e.NodeAffinity, required.NodeAffinity)
	setSemantic(modified, &e.PodAffinity, required.PodAffinity)
	setSemantic(modified, &e.PodAntiAffinity, required.PodAntiAffinity)
}

// ensureTolerations removes live duplicates of a manifest toleration and appends
// the manifest's missing ones; other live tolerations stay (core.go
// ensureTolerations).
func ensureTolerations(modified *bool, existing *[]corev1.Toleration, required []corev1.Toleration) {
	found := map[int]bool{}
	dups := map[int]bool{}
	for ri, r := range required {
		seen := false
		for ei, e := range *existing {
			if equality.Semantic.DeepEqual(e, r) {
				if seen {
					dups[ei] = true
				}
				seen = true
				found[ri] = true
			}
		}
	}
	for i := len(*existing) - 1; i >= 0; i-- {
		if dups[i] {
			*existing = append((*existing)[:i], (*existing)[i+1:]...)
			*modified = true
		}
	}
	for ri, r := range required {
		if !found[ri] {
			*existing = append(*existing, r)
			*modified = true
		}
	}
}

// ensureServicePorts matches service ports by name, removing unnamed live ones; a
// matched port is the manifest's with protocol TCP and target port = port
// defaulted (core.go EnsureServicePorts, ensureServicePort,
// ensureServicePortDefaults).
func ensureServicePorts(modified *bool, existing *[]corev1.ServicePort, required []corev1.ServicePort) {
	for i := len(*existing) - 1; i >= 0; i-- {
		kept := false
		for _, r := range required {
			if (*existing)[i].Name != r.Name {
				continue
			}
			if r.Protocol == "" {
				r.Protocol = corev1.ProtocolTCP
			}
			if r.TargetPort == intstr.FromInt(0) || r.TargetPort == intstr.FromString("") {
				r.TargetPort = intstr.FromInt(int(r.Port))
			}
			setSemantic(modified, &(*existing)[i], r)
			kept = true
			break
		}
		if !kept {
			*existing = append((*existing)[:i], (*existing)[i+1:]...)
			*modified = true
		}
	}
	for _, r := range required {
		if !containsName(*existing, r.Name, func(p corev1.ServicePort) string { return p.Name }) {
			*existing = append(*existing, r)
			*modified = true
		}
	}
}
