package resource

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// imageStreamSpec holds the fields of image.openshift.io/v1 ImageStreamSpec
// (openshift/api image/v1 types.go) the CVO merges, with the real type's JSON
// names and omitempty.
type imageStreamSpec struct {
	LookupPolicy struct {
		Local bool `json:"local"`
	} `json:"lookupPolicy,omitempty"`
	Tags []imageTag `json:"tags,omitempty"`
}

type imageTag struct {
	Name         string                  `json:"name"`
	Annotations  map[string]string       `json:"annotations"`
	From         *corev1.ObjectReference `json:"from,omitempty"`
	Reference    bool                    `json:"reference,omitempty"`
	Generation   *int64                  `json:"generation"`
	ImportPolicy struct {
		Insecure   bool   `json:"insecure,omitempty"`
		Scheduled  bool   `json:"scheduled,omitempty"`
		ImportMode string `json:"importMode,omitempty"`
	} `json:"importPolicy,omitempty"`
	ReferencePolicy struct {
		Type string `json:"type"`
	} `json:"referencePolicy,omitempty"`
}

func init() {
	registerPartial(schema.GroupVersionKind{Group: "image.openshift.io", Version: "v1", Kind: "ImageStream"}, []string{"spec"},
		[]string{"lookupPolicy", "tags"}, ensureImageStream)
}

// ensureImageStream (lib/resourcemerge/imagestream.go EnsureImagestreamv1,
// ensureTagReferencev1, ensureTagReferencev1Defaults): the lookup policy is the
// manifest's; each manifest tag is appended when missing, else its import
// policy (import mode Legacy defaulted) and from are the manifest's. Live tags
// the manifest does not name, and a tag's generation and reference policy,
// stay.
func ensureImageStream(modified *bool, e *imageStreamSpec, r imageStreamSpec) {
	setSemantic(modified, &e.LookupPolicy, r.LookupPolicy)
	for _, rt := range r.Tags {
		i := indexOf(e.Tags, func(t imageTag) bool { return t.Name == rt.Name })
		if i < 0 {
			e.Tags = append(e.Tags, rt)
			*modified = true
			continue
		}
		if rt.ImportPolicy.ImportMode == "" {
			rt.ImportPolicy.ImportMode = "Legacy"
		}
		setSemantic(modified, &e.Tags[i].ImportPolicy, rt.ImportPolicy)
		setSemantic(modified, &e.Tags[i].From, rt.From)
	}
}
