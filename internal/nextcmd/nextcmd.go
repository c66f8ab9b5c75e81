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

// PausePool pauses (or, with paused false, unpauses) a MachineConfigPool.
func PausePool(pool string, paused bool) string {
	return MergePatch("machineconfigpool/"+pool, "", fmt.Sprintf(`{"spec":{"paused":%t}}`, paused))
}

// DesiredUpdate points ClusterVersion at a release.
func DesiredUpdate(version, image string, force bool) string {
	type update struct {
		Version string `json:"version"`
		Image   string `json:"image"`
		Force   bool   `json:"force"`
	}
	var patch struct {
		Spec struct {
			DesiredUpdate update `json:"desiredUpdate"`
		} `json:"spec"`
	}
	patch.Spec.DesiredUpdate = update{version, image, force}
	b, _ := json.Marshal(patch) // strings and a bool: cannot fail
	return MergePatch("clusterversion/"+openshift.ClusterVersionName, "", string(b))
}

// ResumeInCluster continues a stopped apply run inside the cluster: the plan
// from its ConfigMaps (planConfigMap; "" when unknown), the journal from
// its ConfigMaps in namespace. It is also the command a Job runs: a Job's next
// pod resumes the run this way.
func ResumeInCluster(namespace, planConfigMap, journal string) string {
	cmd := "recover apply --in-cluster --namespace " + shell.Quote(namespace)
	if planConfigMap != "" {
		cmd += " --plan-configmap " + shell.Quote(planConfigMap)
	}
	return cmd + " --journal " + shell.Quote(journal) + " --yes"
}
