package nextcmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/internal/shell"
)

// Resume continues a stopped apply run from its journal.
func Resume(journal string) string {
	return "recover apply --resume " + shell.Quote(journal) + " --yes"
}

// ApplyPlan runs a saved plan without prompts, as a script would.
func ApplyPlan(plan string) string {
	return "recover apply --plan " + shell.Quote(plan) + " --yes"
}

// ApplyDryRun sends every change of a saved plan to the API server as a
// server-side dry run and shows the diffs; nothing changes.
func ApplyDryRun(plan string) string {
	return "recover apply --plan " + shell.Quote(plan) + " --dry-run"
}

// ApplyConfirming runs a saved plan step by step, asking before each change,
// with the record of the etcd backup taken before.
func ApplyConfirming(plan, backupRecord string) string {
	return "recover apply --plan " + shell.Quote(plan) + " --backup-record " + shell.Quote(backupRecord)
}

// ApplyScripted runs a saved plan without prompts and prints JSON events, as
// a runbook script would.
func ApplyScripted(plan, backupRecord string) string {
	return ApplyConfirming(plan, backupRecord) + " --yes --events json"
}

// ScaleCVO sets the cluster-version operator's replicas: 0 disables it, its
// replicas before recovery give it control back.
func ScaleCVO(replicas int32) string {
	return fmt.Sprintf("oc scale deployment/%s -n %s --replicas=%d", openshift.CVODeployment, openshift.CVONamespace, replicas)
}

// RestoreCVO gives control back to the cluster-version operator: it scales it
// to the replicas it ran with before recovery, or to 1 when those are unknown or
// were 0 (a CVO scaled to 0 before recovery was already disabled; the command
// is how to give it control back).
func RestoreCVO(original *int32) string { return ScaleCVO(RestoreReplicas(original)) }

// RestoreReplicas are the replicas that give the CVO control back: those it
// ran with before recovery, or 1 when they are unknown or were 0.
func RestoreReplicas(original *int32) int32 {
	if original == nil || *original < 1 {
		return 1
	}
	return *original
}

// Resource is how oc names an object: "machineconfigpool/worker",
// "kubeapiserver.operator.openshift.io/cluster". The group is left out where
// the kind alone is unambiguous on an OpenShift cluster (the core group and the
// groups listed in shortGroups), as an admin would type it.
func Resource(apiVersion, kind, name string) string {
	k := strings.ToLower(kind)
	if group, _, ok := strings.Cut(apiVersion, "/"); ok && !shortGroups[group] {
		k += "." + group
	}
	return k + "/" + name
}

// shortGroups are the API groups whose kinds oc resolves without the group.
var shortGroups = map[string]bool{
	"": true, "policy": true, "apps": true, "batch": true, "config.openshift.io": true,
	"machineconfiguration.openshift.io": true, "certificates.k8s.io": true,
}

// MergePatch writes patch (JSON) onto the object with a merge patch.
func MergePatch(resource, namespace, patch string) string {
	cmd := "oc patch " + resource
	if namespace != "" {
		cmd += " -n " + shell.Quote(namespace)
	}
	return cmd + " --type=merge -p " + shell.Quote(patch)
}

// Delete removes an object (resource as Resource names it) by hand: how an
// object a remedy created is withdrawn.
func Delete(resource, namespace string) string {
	cmd := "oc delete " + resource
	if namespace != "" {
		cmd += " -n " + shell.Quote(namespace)
	}
	return cmd
}

// PausePool pauses (or, with paused false, unpauses) a MachineConfigPool.
func PausePool(pool string, paused bool) string {
	return MergePatch("machineconfigpool/"+pool, "", fmt.Sprintf(`{"spec":{"paused":%t}}`, paused))
}

// DesiredUpdate points ClusterVersion at a release, accepting the named
// conditional-update risks (spec.desiredUpdate.acceptRisks). A merge patch
// replaces the whole list: names the cluster accepted before and not passed
// here are dropped (recover apply keeps them).
func DesiredUpdate(version, image string, force bool, acceptRisks ...string) string {
	type risk struct {
		Name string `json:"name"`
	}
	type update struct {
		Version     string `json:"version"`
		Image       string `json:"image"`
		Force       bool   `json:"force"`
		AcceptRisks []risk `json:"acceptRisks,omitempty"`
	}
	var patch struct {
		Spec struct {
			DesiredUpdate update `json:"desiredUpdate"`
		} `json:"spec"`
	}
	patch.Spec.DesiredUpdate = update{Version: version, Image: image, Force: force}
	for _, r := range acceptRisks {
		patch.Spec.DesiredUpdate.AcceptRisks = append(patch.Spec.DesiredUpdate.AcceptRisks, risk{r})
	}
	b, _ := json.Marshal(patch) // strings and a bool: cannot fail
	return MergePatch("clusterversion/"+openshift.ClusterVersionName, "", string(b))
}

// The flags of a run inside the cluster, spelled once: recover apply defines
// them with these names (cmd/recover), and the commands below and the fleet's
// Jobs (apply/fleet/export) pass them.
const (
	FlagInCluster     = "in-cluster"
	FlagPlanConfigMap = "plan-configmap"
	FlagJournal       = "journal"
	// FlagNamespace is kubectl's --namespace (genericclioptions), which
	// names the run's namespace.
	FlagNamespace = "namespace"

	// The verdict's flags (recover inspect and recover apply): keep the
	// verdict, in which ConfigMap, for which wave, with the wave's plan.
	FlagVerdict          = "verdict"
	FlagVerdictNamespace = "verdict-namespace"
	FlagVerdictName      = "verdict-name"
	FlagWave             = "wave"
	FlagSavePlan         = "save-plan"

	// The flags of a staged wave (apply/fleet/export, docs/fleet.md): inspect
	// --save-plan stores the staged plan to the wave's goal (recover plan's
	// --to and --eus), and each stage's Job runs the stored plan until that
	// stage has landed, a resume of the run the stage before it journaled
	// (recover apply --until-stage N, beside --until-step).
	FlagTo         = "to"
	FlagEUS        = "eus"
	FlagUntilStage = "until-stage"
)

// InClusterApply are the arguments of recover apply inside the cluster: the
// plan from its ConfigMaps (planConfigMap; "" when unknown), the journal kept
// in ConfigMaps journal, both in namespace. It is the command a Job runs, and
// how a stopped run resumes: a Job's next pod resumes the run this way.
func InClusterApply(namespace, planConfigMap, journal string) []string {
	args := []string{"apply", "--" + FlagInCluster, "--" + FlagNamespace, namespace}
	if planConfigMap != "" {
		args = append(args, "--"+FlagPlanConfigMap, planConfigMap)
	}
	return append(args, "--"+FlagJournal, journal)
}

// ResumeInCluster continues a stopped apply run inside the cluster
// (InClusterApply, without asking).
func ResumeInCluster(namespace, planConfigMap, journal string) string {
	return "recover " + shell.Join(InClusterApply(namespace, planConfigMap, journal)...) + " --yes"
}
