package export

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan/planfile"
)

// The apply Job runs recover apply --in-cluster (apply/incluster): the plan
// the wave's inspect stored (verdict.PlanConfigMapName), the journal kept in
// the cluster beside it, a Job retry as a resume. Its arguments are spelled by
// internal/nextcmd, and its RBAC is incluster.RunAccess of the wave's plan, the
// permissions recover apply --print-rbac prints for the same plan.

// ApplyPlanConfigMap and ApplyJournal are where the wave's apply run finds its
// plan and keeps its journal, in the spoke namespace.
func ApplyPlanConfigMap(o Options) string { return verdict.PlanConfigMapName(o.Wave) }
func ApplyJournal(o Options) string       { return incluster.DefaultJournal(ApplyPlanConfigMap(o)) }

// ApplyArgs are the apply Job's arguments: apply, in the cluster, the plan the
// wave's inspect stored, without asking, keeping its progress in the verdict.
func ApplyArgs(o Options) []string {
	args := nextcmd.InClusterApply(o.Namespace, ApplyPlanConfigMap(o), ApplyJournal(o))
	return append(args, "--"+nextcmd.FlagVerdict, "--"+nextcmd.FlagVerdictNamespace, o.Namespace, "--"+nextcmd.FlagVerdictName, verdict.DefaultName,
		"--i-have-a-backup", "--yes")
}

// ApplyPushArgs are the apply arguments of a run pushed from a hub (the Argo
// Workflow): the same run, in the cluster of the kubeconfig instead of the
// pod's (--in-cluster takes its configuration from --kubeconfig when given),
// the plan and the journal kept in that cluster.
func ApplyPushArgs(o Options, kubeconfig string) []string {
	return append(ApplyArgs(o), "--kubeconfig", kubeconfig)
}

// ApplyAccess is what the apply Job's identity needs for the wave's plan:
// incluster.RunAccess (what preflight checks, the journal, the staleness
// check's reads, the verdict), its kinds mapped by inspect's catalog
// (apply.CatalogKinds), since the hub cannot reach the clusters. The plan is
// one cluster's plan of the wave's wedge group: the other clusters of the
// group have the same remedies on the same objects (their signature says so).
func ApplyAccess(o Options) ([]apply.Access, error) {
	p := o.Plan
	if p == nil {
		return nil, fmt.Errorf("the apply template's RBAC comes from a plan of the wave's wedge: pass --plan (recover plan -o json for one cluster of the group)")
	}
	if len(p.Stages) > 0 {
		// A staged wave's Jobs run every stage's steps.
		p = stagedSteps(p)
	} else if p.Mode != planfile.ModeRemediation {
		return nil, fmt.Errorf("--plan is a %q plan: the fleet applies the remediation plans each cluster's inspect makes, or a staged plan's stages (recover plan --to GOAL); plan and apply a one-hop new release per cluster", orWord(p.Mode, planfile.ModeUpdate))
	}
	access, problems := incluster.RunAccess(p, incluster.AccessOptions{
		AccessOptions: apply.AccessOptions{MapKind: apply.CatalogKinds},
		Namespace:     o.Namespace, VerdictNamespace: o.Namespace,
	})
	if len(problems) > 0 && len(o.Plan.Stages) > 0 {
		// A stage that pushes the release's manifests (the CVO replaced)
		// applies kinds the hub cannot map without the cluster.
		more := ""
		if len(problems) > 2 {
			problems, more = problems[:2], fmt.Sprintf(" (and %d more)", len(problems)-2)
		}
		return nil, fmt.Errorf("--plan: cannot derive the stage Jobs' RBAC: %s%s; a staged wave's RBAC is made on the hub for stages the CVO carries, and this plan pushes a release's manifests itself: run it with --for argo (its runs push with each cluster's kubeconfig), or apply it per cluster",
			strings.Join(problems, "; "), more)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("--plan: cannot derive the apply template's RBAC: %s", strings.Join(problems, "; "))
	}
	return access, nil
}

func orWord(s, w string) string {
	if s == "" {
		return w
	}
	return s
}
