package resource

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// sccPolicy holds the fields of security.openshift.io/v1
// SecurityContextConstraints (openshift/api security/v1 types.go) the CVO
// merges, with the real type's JSON names and omitempty.
type sccPolicy struct {
	Priority                        *int32               `json:"priority"`
	AllowPrivilegedContainer        bool                 `json:"allowPrivilegedContainer"`
	DefaultAddCapabilities          []corev1.Capability  `json:"defaultAddCapabilities"`
	RequiredDropCapabilities        []corev1.Capability  `json:"requiredDropCapabilities"`
	AllowedCapabilities             []corev1.Capability  `json:"allowedCapabilities"`
	AllowHostDirVolumePlugin        bool                 `json:"allowHostDirVolumePlugin"`
	Volumes                         []string             `json:"volumes"`
	AllowedFlexVolumes              []sccFlexVolume      `json:"allowedFlexVolumes,omitempty"`
	AllowHostNetwork                bool                 `json:"allowHostNetwork"`
	AllowHostPorts                  bool                 `json:"allowHostPorts"`
	AllowHostPID                    bool                 `json:"allowHostPID"`
	AllowHostIPC                    bool                 `json:"allowHostIPC"`
	DefaultAllowPrivilegeEscalation *bool                `json:"defaultAllowPrivilegeEscalation,omitempty"`
	AllowPrivilegeEscalation        *bool                `json:"allowPrivilegeEscalation,omitempty"`
	SELinuxContext                  sccSELinuxStrategy   `json:"seLinuxContext,omitempty"`
	RunAsUser                       sccRunAsUserStrategy `json:"runAsUser,omitempty"`
	SupplementalGroups              sccIDRangeStrategy   `json:"supplementalGroups,omitempty"`
	FSGroup                         sccIDRangeStrategy   `json:"fsGroup,omitempty"`
	ReadOnlyRootFilesystem          bool                 `json:"readOnlyRootFilesystem"`
	Users                           []string             `json:"users"`
	Groups                          []string             `json:"groups"`
	SeccompProfiles                 []string             `json:"seccompProfiles,omitempty"`
	AllowedUnsafeSysctls            []string             `json:"allowedUnsafeSysctls,omitempty"`
	ForbiddenSysctls                []string             `json:"forbiddenSysctls,omitempty"`
}

type sccFlexVolume struct {
	Driver string `json:"driver"`
}

type sccSELinuxStrategy struct {
	Type           string                 `json:"type,omitempty"`
	SELinuxOptions *corev1.SELinuxOptions `json:"seLinuxOptions,omitempty"`
}

type sccRunAsUserStrategy struct {
	Type        string `json:"type,omitempty"`
	UID         *int64 `json:"uid,omitempty"`
	UIDRangeMin *int64 `json:"uidRangeMin,omitempty"`
	UIDRangeMax *int64 `json:"uidRangeMax,omitempty"`
}

type sccIDRangeStrategy struct {
	Type   string       `json:"type,omitempty"`
	Ranges []sccIDRange `json:"ranges,omitempty"`
}

type sccIDRange struct {
	Min int64 `json:"min,omitempty"`
	Max int64 `json:"max,omitempty"`
}

func init() {
	registerPartial(schema.GroupVersionKind{Group: "security.openshift.io", Version: "v1", Kind: "SecurityContextConstraints"}, nil,
		[]string{"priority", "allowPrivilegedContainer", "defaultAddCapabilities", "requiredDropCapabilities", "allowedCapabilities",
			"allowHostDirVolumePlugin", "volumes", "allowedFlexVolumes", "allowHostNetwork", "allowHostPorts", "allowHostPID", "allowHostIPC",
			"defaultAllowPrivilegeEscalation", "allowPrivilegeEscalation", "seLinuxContext", "runAsUser", "supplementalGroups", "fsGroup",
			"readOnlyRootFilesystem", "users", "groups", "seccompProfiles", "allowedUnsafeSysctls", "forbiddenSysctls"},
		ensureSCC)
}

// ensureSCC (lib/resourcemerge/security.go EnsureSecurityContextConstraints):
// every policy field is the manifest's, allowPrivilegeEscalation true when it
// leaves it out; users and groups too, so a user an administrator added to a
// payload SCC is removed, as the CVO removes it (grant an SCC through RBAC "use"
// instead). userNamespaceLevel is not among the CVO's fields and stays.
func ensureSCC(modified *bool, e *sccPolicy, r sccPolicy) {
	setPtr(modified, &e.Priority, r.Priority)
	setValue(modified, &e.AllowPrivilegedContainer, r.AllowPrivilegedContainer)
	setSemantic(modified, &e.DefaultAddCapabilities, r.DefaultAddCapabilities)
	setSemantic(modified, &e.RequiredDropCapabilities, r.RequiredDropCapabilities)
	setSemantic(modified, &e.AllowedCapabilities, r.AllowedCapabilities)
	setValue(modified, &e.AllowHostDirVolumePlugin, r.AllowHostDirVolumePlugin)
	setSemantic(modified, &e.Volumes, r.Volumes)
	setSemantic(modified, &e.AllowedFlexVolumes, r.AllowedFlexVolumes)
	setValue(modified, &e.AllowHostNetwork, r.AllowHostNetwork)
	setValue(modified, &e.AllowHostPorts, r.AllowHostPorts)
	setValue(modified, &e.AllowHostPID, r.AllowHostPID)
	setValue(modified, &e.AllowHostIPC, r.AllowHostIPC)
	setPtr(modified, &e.DefaultAllowPrivilegeEscalation, r.DefaultAllowPrivilegeEscalation)
	escalation := r.AllowPrivilegeEscalation
	if escalation == nil {
		escalation = ptr.To(true)
	}
	setPtr(modified, &e.AllowPrivilegeEscalation, escalation)
	setSemantic(modified, &e.SELinuxContext, r.SELinuxContext)
	setSemantic(modified, &e.RunAsUser, r.RunAsUser)
	setSemantic(modified, &e.FSGroup, r.FSGroup)
	setSemantic(modified, &e.SupplementalGroups, r.SupplementalGroups)
	setValue(modified, &e.ReadOnlyRootFilesystem, r.ReadOnlyRootFilesystem)
	setSemantic(modified, &e.Users, r.Users)
	setSemantic(modified, &e.Groups, r.Groups)
	setSemantic(modified, &e.SeccompProfiles, r.SeccompProfiles)
	setSemantic(modified, &e.AllowedUnsafeSysctls, r.AllowedUnsafeSysctls)
	setSemantic(modified, &e.ForbiddenSysctls, r.ForbiddenSysctls)
}
