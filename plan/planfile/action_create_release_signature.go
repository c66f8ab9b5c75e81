package planfile

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"
)

// create-release-signature (W9): create the ConfigMap that carries a
// release's signatures where the CVO reads them (openshift-config-managed,
// label release.openshift.io/verification-signatures, binaryData
// sha256-<hex>-<n>), create-only: an existing one is never overwritten. A
// release-accepted wait on the restored CVO follows. The planner's half is
// remedy_signature.go; the engine's is apply/exec_create_release_signature.go.
func init() {
	register(&ActionSpec{
		Action:     ActionCreateReleaseSignature,
		Changes:    "creates ConfigMap openshift-config-managed/sha256-<hex> holding the release's signatures (binaryData sha256-<hex>-<n>)",
		Mutates:    true,
		Remedy:     true,
		RevertHint: "lasting (the CVO keeps using the signature); delete the ConfigMap by hand to withdraw it",
		validate: func(p *Plan, i int, at problemFunc) {
			s := &p.Steps[i]
			validateManifest(s, at)
			if s.Manifest == nil {
				return
			}
			if why := SignatureManifestProblem(s.Manifest); why != "" {
				at("create-release-signature: %s", why)
			}
		},
		note: func(_ *Plan, st *Step) string {
			if st.Manifest == nil {
				return ""
			}
			return "creates the release signature ConfigMap " + st.Manifest.Namespace + "/" + st.Manifest.Name
		},
	})
}

// signatureManifestProblem says why an embedded object is not a release
// signature ConfigMap as the CVO reads it ("" when it is one).
func SignatureManifestProblem(mf *Manifest) string {
	var cm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string            `json:"name"`
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		BinaryData map[string]string `json:"binaryData"`
		Data       map[string]string `json:"data"`
	}
	if err := json.Unmarshal(mf.Object, &cm); err != nil {
		return "the object is not JSON: " + err.Error()
	}
	switch {
	case cm.APIVersion != "v1" || cm.Kind != "ConfigMap" || cm.Metadata.Namespace != openshift.SignaturesNamespace:
		return "the object is not a ConfigMap in " + openshift.SignaturesNamespace
	case !mf.CreateOnly:
		return "the signature ConfigMap must be create-only (an existing one is never overwritten)"
	case !digestNameRE.MatchString(cm.Metadata.Name):
		return "the ConfigMap's name is not sha256-<64 hex> (the release digest)"
	case hasNoLabel(cm.Metadata.Labels):
		return "the ConfigMap lacks the label " + openshift.LabelVerificationSignatures
	case len(cm.BinaryData) == 0 || len(cm.Data) > 0:
		return "the signatures must be in binaryData, and only there"
	}
	for k, v := range cm.BinaryData {
		if !strings.HasPrefix(k, cm.Metadata.Name+"-") {
			return "binaryData key " + k + " is not " + cm.Metadata.Name + "-<n>"
		}
		if _, err := base64.StdEncoding.DecodeString(v); err != nil {
			return "binaryData " + k + " is not base64"
		}
	}
	return ""
}

// digestNameRE is a signature ConfigMap's name: the release digest's key prefix.
var digestNameRE = regexp.MustCompile(`^sha256-[0-9a-f]{64}$`)

func hasNoLabel(labels map[string]string) bool {
	_, ok := labels[openshift.LabelVerificationSignatures]
	return !ok
}
