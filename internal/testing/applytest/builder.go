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

	"github.com/openshift-recover/recover/plan"
)

// Target release of the hand-built plans (4.4.4, by digest).
const (
	TargetVersion = "4.4.4"
	TargetImage   = "quay.io/openshift-release-dev/ocp-release@sha256:baa687f29b0ac155d8f4c6914056d36d68f343feb9c1e82b46eef95819d00be5"
)

// Builder builds a plan document step by step.
type Builder struct {
	p *plan.Plan
}

// NewPlan starts a plan to TargetVersion.
func NewPlan() *Builder {
	one := int32(1)
	return &Builder{p: &plan.Plan{
		APIVersion: plan.APIVersion, Kind: plan.Kind, FormatVersion: plan.FormatVersion,
		CreatedAt: time.Date(2020, 5, 24, 16, 30, 0, 0, time.UTC), Generator: "applytest",
		Cluster: plan.ClusterSummary{Fingerprint: "sha256:test", ClaimedVersion: "4.4.3", CVOReplicas: &one},
		Target:  plan.Target{Version: TargetVersion, Image: TargetImage, Reasons: []string{"hand-built test plan"}},
	}}
}

func (b *Builder) add(s plan.Step) *Builder {
	s.ID = fmt.Sprintf("%03d-%s", len(b.p.Steps)+1, s.ID)
	if s.Reason == "" {
		s.Reason = "test step"
	}
	b.p.Steps = append(b.p.Steps, s)
	return b
}

// DisableCVO adds a disable-cvo step gated on the CVO being scaled down.
func (b *Builder) DisableCVO() *Builder {
	return b.add(plan.Step{ID: "disable-cvo", Action: plan.ActionDisableCVO, Gate: &plan.Gate{Kind: plan.GateCVOScaledDown, Description: "no CVO pod left"}})
}

// RestoreCVO adds a restore-cvo step gated on the CVO running again.
func (b *Builder) RestoreCVO() *Builder {
	return b.add(plan.Step{ID: "restore-cvo", Action: plan.ActionRestoreCVO, Gate: &plan.Gate{Kind: plan.GateCVORunning, Description: "CVO running"}})
}

// SetDesiredUpdate adds set-desired-update to the target.
func (b *Builder) SetDesiredUpdate() *Builder {
	return b.add(plan.Step{ID: "set-desired-update", Action: plan.ActionSetDesiredUpdate, DesiredUpdate: &plan.DesiredUpdate{Version: TargetVersion, Image: TargetImage}})
}

// Apply adds an apply step for obj (a YAML or JSON document, or an object).
func (b *Builder) Apply(obj any, gate *plan.Gate) *Builder {
	m := ManifestOf(obj)
	return b.add(plan.Step{ID: "apply-" + slug(m), Action: plan.ActionApply, Manifest: m, Gate: gate})
}

// Delete adds a delete step for obj, which must carry the delete annotation.
func (b *Builder) Delete(obj any, gate *plan.Gate) *Builder {
	m := ManifestOf(obj)
	return b.add(plan.Step{ID: "delete-" + slug(m), Action: plan.ActionDelete, Manifest: m, Gate: gate})
}

// Wait adds a wait step.
func (b *Builder) Wait(name string, gate *plan.Gate) *Builder {
	return b.add(plan.Step{ID: "wait-" + name, Action: plan.ActionWait, Gate: gate})
}

// PausePool and UnpausePool add pool steps.
func (b *Builder) PausePool(pool string) *Builder {
	return b.add(plan.Step{ID: "pause-" + pool, Action: plan.ActionPausePool, Pool: pool})
}

// UnpausePool adds an unpause-pool step gated on the pool being updated.
func (b *Builder) UnpausePool(pool string) *Builder {
	return b.add(plan.Step{ID: "unpause-" + pool, Action: plan.ActionUnpausePool, Pool: pool, Gate: &plan.Gate{Kind: plan.GatePoolUpdated, Pool: pool}})
}

// Plan returns the plan.
func (b *Builder) Plan() *plan.Plan { return b.p }

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

func slug(m *plan.Manifest) string {
	return strings.ToLower(m.Kind + "-" + m.Name)
}

// ManifestOf makes a plan manifest from an object given as YAML/JSON text, a map
// or an *unstructured.Unstructured.
func ManifestOf(obj any) *plan.Manifest {
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
	digest, err := plan.ManifestDigest(raw)
	if err != nil {
		panic(err)
	}
	return &plan.Manifest{
		File: "0000_50_test_" + strings.ToLower(u.GetKind()) + ".yaml", APIVersion: u.GetAPIVersion(), Kind: u.GetKind(),
		Namespace: u.GetNamespace(), Name: u.GetName(), CreateOnly: openshift.CreateOnly(u.GetAnnotations()),
		Object: raw, Digest: digest,
	}
}
