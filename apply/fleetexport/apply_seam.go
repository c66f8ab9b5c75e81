package fleetexport

import (
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/apply/lock"
	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/verdict"
)

// This file is the seam between the fleet templates and the in-cluster apply
// (issue 27 item 2, branch i27b), which brings `recover apply --in-cluster`
// (the plan from a ConfigMap, the journal kept in the cluster) and the
// least-privilege RBAC generated from a plan's actions. Until it merges:
//
//   - ApplyArgs (the Job in the cluster) and ApplyPushArgs (the Argo task with
//     a kubeconfig) spell the flags as this branch guesses them: --in-cluster,
//     --plan-configmap NAME and --plan-namespace NS (the ConfigMap inspect
//     --save-plan writes, key verdict.PlanKey); wire them to the real names.
//   - ApplyAccess derives the RBAC here, from the wave's plan's steps, by a
//     table of what each remediation action changes; replace its body with a
//     call to the generator, keeping the signature (the tests create the
//     result in a real API server and check the apply Job's identity is
//     allowed what the plan needs).
//
// Nothing else in this package knows how apply runs in a cluster.

// ApplyArgs are the apply Job's arguments: apply, in the cluster, the plan the
// wave's inspect stored (verdict.PlanConfigMapName), without asking, keeping
// its progress in the verdict.
func ApplyArgs(o Options) []string {
	return []string{"apply", "--in-cluster",
		"--plan-configmap", verdict.PlanConfigMapName(o.Wave), "--plan-namespace", o.Namespace,
		"--verdict", "--verdict-namespace", o.Namespace, "--verdict-name", verdict.DefaultName,
		"--i-have-a-backup", "--yes"}
}

// ApplyPushArgs are the apply arguments of a run pushed from a hub (the Argo
// Workflow): the same run against the cluster of a kubeconfig, the plan and the
// journal still kept in that cluster.
func ApplyPushArgs(o Options, kubeconfig string) []string {
	return []string{"apply", "--kubeconfig", kubeconfig,
		"--plan-configmap", verdict.PlanConfigMapName(o.Wave), "--plan-namespace", o.Namespace,
		"--verdict", "--verdict-namespace", o.Namespace, "--verdict-name", verdict.DefaultName,
		"--i-have-a-backup", "--yes"}
}

// ApplyAccess is what the apply Job's identity needs for the wave's plan: what
// inspect reads (preflight compares a live snapshot with the plan), the lock
// Lease, the verdict, the plan and the journal in its namespace, and what each
// step changes. The plan is one cluster's plan of the wave's wedge group: the
// other clusters of the group have the same remedies on the same objects (their
// signature says so).
func ApplyAccess(o Options) ([]Access, error) {
	p := o.Plan
	if p == nil {
		return nil, fmt.Errorf("the apply template's RBAC comes from a plan of the wave's wedge: pass --plan (recover plan -o json for one cluster of the group)")
	}
	if p.Mode != plan.ModeRemediation {
		return nil, fmt.Errorf("--plan is a %q plan: the fleet applies the remediation plans each cluster's inspect makes; plan and apply a new release per cluster", orWord(p.Mode, plan.ModeUpdate))
	}
	out := InspectAccess(o.Namespace)
	out = append(out,
		Access{Resource: "configmaps", Namespace: o.Namespace, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		Access{Group: "coordination.k8s.io", Resource: "leases", Namespace: lock.Namespace, Verbs: []string{"get", "create", "update", "delete"}},
		Access{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews", Verbs: []string{"create"}},
		Access{Group: inspect.ResClusterVersions.Group, Resource: inspect.ResClusterVersions.Resource, Verbs: []string{"get"}},
	)
	for i := range p.Steps {
		s := &p.Steps[i]
		switch s.Action {
		case plan.ActionDisableCVO, plan.ActionRestoreCVO:
			out = append(out, Access{Group: "apps", Resource: "deployments", Namespace: openshift.CVONamespace, Verbs: []string{"get", "patch"}})
		case plan.ActionPausePool, plan.ActionUnpausePool:
			out = append(out, Access{Group: inspect.ResMachineConfigPools.Group, Resource: inspect.ResMachineConfigPools.Resource, Verbs: []string{"get", "patch"}})
		case plan.ActionSetDesiredUpdate:
			out = append(out, Access{Group: inspect.ResClusterVersions.Group, Resource: inspect.ResClusterVersions.Resource, Verbs: []string{"get", "update"}})
		case plan.ActionRelaxPDB, plan.ActionForceRedeployment, plan.ActionAcknowledgeGate, plan.ActionRemoveOverrides, plan.ActionAnnotateUpgradeableTo, plan.ActionRevert:
			ch := s.Change
			if s.Action == plan.ActionRevert {
				ch = revertedChange(p, s)
			}
			if ch == nil {
				return nil, fmt.Errorf("--plan step %s changes no object; make the plan again with recover plan", s.ID)
			}
			group, _, _ := strings.Cut(ch.Object.APIVersion, "/")
			if !strings.Contains(ch.Object.APIVersion, "/") {
				group = ""
			}
			a := Access{Group: group, Resource: resourceOf(ch.Object.Kind), Verbs: []string{"get", "patch"}}
			if namespaced(ch.Object.Kind) {
				a.Namespace = ch.Object.Namespace
			}
			out = append(out, a)
		case plan.ActionApproveCSR:
			out = append(out,
				Access{Group: "certificates.k8s.io", Resource: "certificatesigningrequests", Verbs: []string{"get"}},
				Access{Group: "certificates.k8s.io", Resource: "certificatesigningrequests/approval", Verbs: []string{"update"}})
			if s.CSR != nil && s.CSR.SignerName != "" {
				out = append(out, Access{Group: "certificates.k8s.io", Resource: "signers", Verbs: []string{"approve"}, ResourceNames: []string{s.CSR.SignerName}})
			}
		case plan.ActionApply, plan.ActionDelete:
			return nil, fmt.Errorf("--plan step %s applies a release manifest: the fleet applies remediation plans only", s.ID)
		}
	}
	return out, nil
}

// revertedChange is the change a revert step undoes.
func revertedChange(p *plan.Plan, s *plan.Step) *plan.Change {
	for i := range p.Steps {
		if p.Steps[i].ID == s.Reverts {
			return p.Steps[i].Change
		}
	}
	return nil
}

// knownResources are the resources inspect knows, by kind.
var knownResources = func() map[string]inspect.Resource {
	m := map[string]inspect.Resource{}
	for _, in := range live.Reads() {
		m[in.Resource.Kind] = in.Resource
	}
	return m
}()

// resourceOf is the plural resource of a kind a remediation step patches.
func resourceOf(kind string) string {
	if r, ok := knownResources[kind]; ok {
		return r.Resource
	}
	return strings.ToLower(kind) + "s"
}

func namespaced(kind string) bool {
	if r, ok := knownResources[kind]; ok {
		return r.Namespaced
	}
	return true
}

func orWord(s, w string) string {
	if s == "" {
		return w
	}
	return s
}
