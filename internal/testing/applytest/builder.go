package applytest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift-recover/recover/plan/planfile"
)

// Target release of the hand-built plans (4.4.4, by digest).
const (
	TargetVersion = "4.4.4"
	TargetImage   = "quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5"
)

// Builder builds a plan document step by step.
type Builder struct {
	p *planfile.Plan
}

// NewPlan starts a plan to TargetVersion.
func NewPlan() *Builder {
	one := int32(1)
	return &Builder{p: &planfile.Plan{
		APIVersion: planfile.APIVersion, Kind: planfile.Kind, FormatVersion: planfile.FormatVersion,
		CreatedAt: time.Date(2020, 5, 24, 16, 30, 0, 0, time.UTC), Generator: "applytest",
		Cluster: planfile.ClusterSummary{Fingerprint: "sha256:test", ClaimedVersion: "4.4.3", CVOReplicas: &one},
		Target:  planfile.Target{Version: TargetVersion, Image: TargetImage, Reasons: []string{"hand-built test plan"}},
	}}
}

func (b *Builder) add(s planfile.Step) *Builder {
	s.ID = fmt.Sprintf("%03d-%s", len(b.p.Steps)+1, s.ID)
	if s.Reason == "" {
		s.Reason = "test step"
	}
	b.p.Steps = append(b.p.Steps, s)
	return b
}

// DisableCVO adds a disable-cvo step gated on the CVO being scaled down.
func (b *Builder) DisableCVO() *Builder {
	return b.add(planfile.Step{ID: "disable-cvo", Action: planfile.ActionDisableCVO, Gate: &planfile.Gate{Kind: planfile.GateCVOScaledDown, Description: "no CVO pod left"}})
}

// RestoreCVO adds a restore-cvo step gated on the CVO running again.
func (b *Builder) RestoreCVO() *Builder {
	return b.add(planfile.Step{ID: "restore-cvo", Action: planfile.ActionRestoreCVO, Gate: &planfile.Gate{Kind: planfile.GateCVORunning, Description: "CVO running"}})
}

// SetDesiredUpdate adds set-desired-update to the target.
func (b *Builder) SetDesiredUpdate() *Builder {
	return b.add(planfile.Step{ID: "set-desired-update", Action: planfile.ActionSetDesiredUpdate, DesiredUpdate: &planfile.DesiredUpdate{Version: TargetVersion, Image: TargetImage}})
}

// Apply adds an apply step for obj (a YAML or JSON document, or an object).
func (b *Builder) Apply(obj any, gate *planfile.Gate) *Builder {
	m := ManifestOf(obj)
	return b.add(planfile.Step{ID: "apply-" + slug(m), Action: planfile.ActionApply, Manifest: m, Gate: gate})
}

// Delete adds a delete step for obj, which must carry the delete annotation.
func (b *Builder) Delete(obj any, gate *planfile.Gate) *Builder {
	m := ManifestOf(obj)
	return b.add(planfile.Step{ID: "delete-" + slug(m), Action: planfile.ActionDelete, Manifest: m, Gate: gate})
}

// Wait adds a wait step.
func (b *Builder) Wait(name string, gate *planfile.Gate) *Builder {
	return b.add(planfile.Step{ID: "wait-" + name, Action: planfile.ActionWait, Gate: gate})
}

// PausePool and UnpausePool add pool steps.
func (b *Builder) PausePool(pool string) *Builder {
	return b.add(planfile.Step{ID: "pause-" + pool, Action: planfile.ActionPausePool, Pool: pool})
}

// UnpausePool adds an unpause-pool step gated on the pool being updated.
func (b *Builder) UnpausePool(pool string) *Builder {
	return b.add(planfile.Step{ID: "unpause-" + pool, Action: planfile.ActionUnpausePool, Pool: pool, Gate: &planfile.Gate{Kind: planfile.GatePoolUpdated, Pool: pool}})
}

// Plan returns the plan.
func (b *Builder) Plan() *planfile.Plan { return b.p }

// Write saves the plan as indented JSON (as recover plan -o json does) and returns
// its path.
func (b *Builder) Write(t testing.TB, dir string) string {
	t.Helper()
	data, err := json.MarshalIndent(b.p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func slug(m *planfile.Manifest) string {
	return strings.ToLower(m.Kind + "-" + m.Name)
}

// ManifestOf makes a plan manifest from an object given as YAML/JSON text, a map
// or an *unstructured.Unstructured.
func ManifestOf(obj any) *planfile.Manifest {
	var u *unstructured.Unstructured
	switch o := obj.(type) {
	case string:
		u = Object(o)
	case map[string]any:
		u = &unstructured.Unstructured{Object: o}
	case *unstructured.Unstructured:
		u = o
	default:
		panic(fmt.Sprintf("applytest: unsupported object %T", obj))
	}
	raw, err := json.Marshal(u.Object)
	if err != nil {
		panic(err)
	}
	digest, err := planfile.ManifestDigest(raw)
	if err != nil {
		panic(err)
	}
	return &planfile.Manifest{
		File: "0000_50_test_" + strings.ToLower(u.GetKind()) + ".yaml", APIVersion: u.GetAPIVersion(), Kind: u.GetKind(),
		Namespace: u.GetNamespace(), Name: u.GetName(), CreateOnly: openshift.CreateOnly(u.GetAnnotations()),
		Object: raw, Digest: digest,
	}
}
