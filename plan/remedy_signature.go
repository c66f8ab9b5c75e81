package plan

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The signature remedy (W9): the CVO refuses a release it cannot verify
// (ReleaseAccepted=False, RetrievePayload, "The update cannot be verified"),
// typically in a restricted network where it cannot reach the signature
// store. Users fall back to --force, which skips verification and the
// preconditions. The expert remedy is to supply the signature: the admin
// downloads it (or names a signature store), recover verifies it offline
// against the release keyring before the plan is made, and the plan creates
// the signature ConfigMap the CVO reads (openshift-config-managed, labelled
// release.openshift.io/verification-signatures, binaryData sha256-<hex>-<n>);
// the restored CVO verifies and accepts the release. --force is never set.

// ReleaseSignatures are verified release signatures, by release digest
// ("sha256:<hex>"): what `recover plan --release-signature FILE` or
// `--signature-store` with `--release-keyring` verified before planning.
type ReleaseSignatures map[string][][]byte

// signatureConfigMap is the ConfigMap that carries a release's signatures.
func signatureConfigMap(digest string, sigs [][]byte) map[string]any {
	prefix := openshift.SignatureKeyPrefix(digest)
	data := map[string]any{}
	for i, s := range sigs {
		data[fmt.Sprintf("%s-%d", prefix, i+1)] = base64.StdEncoding.EncodeToString(s)
	}
	return map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":      prefix,
			"namespace": openshift.SignaturesNamespace,
			"labels":    map[string]any{openshift.LabelVerificationSignatures: ""},
			// apply creates it only when absent (resource.Applier reads this).
			"annotations": map[string]any{openshift.AnnotationCreateOnly: "true"},
		},
		"binaryData": data,
	}
}

// releaseSignature plans the signature remedy for a ReleaseNotAccepted finding
// of class signature, when the admin supplied verified signatures for its
// release; it reports whether it did.
func (rs *remedyStage) releaseSignature(fd inspect.Finding) bool {
	image := fd.Details["image"]
	_, digest, ok := strings.Cut(image, "@")
	sigs := rs.signatures[digest]
	if !ok || len(sigs) == 0 {
		return false
	}
	obj := planfile.MustJSON(signatureConfigMap(digest, sigs))
	d, err := planfile.ManifestDigest(obj)
	if err != nil {
		rs.warnf("the signature ConfigMap of %s cannot be digested (%v): no signature remedy is planned", image, err)
		return false
	}
	name := openshift.SignatureKeyPrefix(digest)
	version := orWord(fd.Details["version"], image)
	create := planfile.Step{Action: planfile.ActionCreateReleaseSignature, Remedy: planfile.RemedyReleaseSignature, Finding: fd.Code,
		Manifest: &planfile.Manifest{File: "release-signature/" + name, APIVersion: "v1", Kind: "ConfigMap", Namespace: openshift.SignaturesNamespace, Name: name,
			CreateOnly: true, Object: obj, Digest: d},
		Reason: fmt.Sprintf("The CVO cannot verify release %s (%s): it finds no signature it trusts. Create the signature ConfigMap it reads (library-go pkg/verify/store/configmap: namespace %s, label %s, binaryData %s-<n>) with the %d signature(s) the admin supplied, which recover verified against the release keyring before making this plan. The CVO verifies them again itself; --force, which would skip verification and the preconditions, is not set.",
			version, fd.Details["reason"], openshift.SignaturesNamespace, openshift.LabelVerificationSignatures, name, len(sigs))}
	wait := planfile.Step{Action: planfile.ActionWait, Remedy: planfile.RemedyReleaseSignature, Finding: fd.Code,
		Reason: fmt.Sprintf("Wait for the restored CVO to verify release %s with the supplied signature and accept it: ReleaseAccepted=True for its image.", version),
		Gate: &planfile.Gate{Kind: planfile.GateReleaseAccepted, Image: image,
			Description: fmt.Sprintf("ClusterVersion reports ReleaseAccepted=True for %s", image)}}
	r := remediation(planfile.RemedyReleaseSignature, fd, fmt.Sprintf("Create the signature ConfigMap %s/%s for release %s (verified offline against the release keyring); the CVO verifies and accepts it without --force.", openshift.SignaturesNamespace, name, version))
	rs.groups = append(rs.groups, &remedyGroup{phase: phasePromises, steps: []planfile.Step{create}, post: []planfile.Step{wait},
		rems: []remRef{{r: r, pre: []int{0}, posts: []int{0}}}})
	return true
}
