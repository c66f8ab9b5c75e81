package sim

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/plan/payload"
	"github.com/openshift-recover/recover/plan/planfile"
)

// applyManifest applies one payload manifest the way the CVO does, through
// apply/resource, the applier recover's engine uses (resource.Merge: the CVO's
// per-kind merge, its owner reference to ClusterVersion/version (cvUID), its
// create-only and delete annotations; delete manifests are deleted without
// waiting).
func (s *Sim) applyManifest(ctx context.Context, m *payload.Manifest, cvUID types.UID) (resource.Operation, error) {
	pm, err := planManifest(m)
	if err != nil {
		return "", err
	}
	var owner = resource.Owner(cvUID)
	if cvUID == "" {
		owner = nil
	}
	a := resource.NewApplier(s.dyn, s.mapper, owner)
	a.FieldManager = "cluster-version-operator"
	change, err := a.Prepare(ctx, pm, resource.PrepareOptions{Delete: m.Delete})
	if err != nil {
		return "", err
	}
	result, err := a.Commit(ctx, change)
	if err != nil {
		return "", err
	}
	return result.Operation, nil
}

// planManifest wraps a payload manifest as the plan manifest apply/resource takes.
func planManifest(m *payload.Manifest) (*planfile.Manifest, error) {
	digest, err := planfile.ManifestDigest(m.JSON)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Position(), err)
	}
	return &planfile.Manifest{
		File: m.File, Index: m.Index,
		APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Namespace, Name: m.Name,
		CreateOnly: m.CreateOnly, Object: m.JSON, Digest: digest,
	}, nil
}
