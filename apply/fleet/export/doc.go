// Package export writes the documents that run recover across a fleet with
// the engines that already fan out, instead of a fan-out of recover's own
// (docs/fleet.md):
//
//   - two ManifestWorkReplicaSet templates (work.open-cluster-management.io/v1alpha1),
//     one that inspects and one that applies, each holding what the spoke needs:
//     the Namespace, a ServiceAccount, its RBAC, the Job, and the verdict
//     ConfigMap (and the plan ConfigMap) read back through feedbackRules;
//     deleteOption Orphan, so that the journal, the plan and the verdict outlive
//     the ManifestWork; and the openshift-cluster-group-upgrades/expectedValues
//     annotation TALM completes a cluster's step on; per object the update
//     strategy the work agent re-applies it with at every resync (the Jobs
//     CreateOnly: their selector and pod template are immutable), and the
//     condition rules that give the work the Progressing (and Degraded)
//     condition a ManifestWorkReplicaSet rollout advances on, generated from
//     the same expected values (docs/fleet.md, "What the work agent does with
//     the templates"; the engines' rules are restated in
//     internal/testing/fleetengines);
//   - the ClusterGroupUpgrade (ran.openshift.io/v1alpha1) that runs inspect then
//     apply per cluster, canaries first, with maxConcurrency, a timeout and
//     enable: false (the human flips it);
//   - an Argo Workflow (argoproj.io/v1alpha1) for hubs without ACM: a DAG over
//     the clusters with parallelism, a suspend node as the approval gate after
//     the canaries, and an exit handler that hands the CVO back where a run left
//     it disabled.
//
// A staged plan as --plan (recover plan --to GOAL [--eus]) makes a staged wave
// (stages.go): the inspect step stores each cluster's own staged plan to the
// goal, and each stage is a template whose Job runs that plan until the stage
// has landed, complete when the Job succeeded and ClusterVersion reports the
// stage's release Completed; TALM gets one ClusterGroupUpgrade per stage, each
// blocked by the earlier ones (TALM's ImageBasedGroupUpgrade pattern), Argo one
// task per stage, OCM one template per stage created in turn.
//
// The types here are recover's own minimal ones (the engines' Go modules are not
// importable); the engines' real CRDs judge the documents in the tests. The
// verdict fields the templates read are verdict.Field values, so a template
// cannot wait for a value the verdict does not write.
//
// The Jobs run recover itself: the inspect Job recover inspect --verdict
// --save-plan, the apply Job recover apply --in-cluster on the plan the inspect
// stored (applyjob.go). Their arguments are spelled by internal/nextcmd, the
// flags recover defines. Their RBAC is generated, never written here: the
// inspect Job's from what the live source reads (inspect/live.Reads), the apply
// Job's from the wave's plan by apply/incluster.RunAccess, the list recover
// apply --print-rbac prints for the same plan, with the kinds mapped by
// inspect's catalog (apply.CatalogKinds) since the hub cannot reach the
// clusters.
//
// The package is export in apply/fleet, the fleet room: export.Options,
// export.Documents, export.Engine read as what recover fleet export does. It
// sits under apply because its Jobs run apply (apply/incluster.RunAccess) and
// inspect (inspect/live.Reads), and inspect must not import apply. The
// verdict the templates read is apply/fleet/verdict; inspect/fleet, which
// collects many snapshots for recover fleet, stays in inspect: it is a source,
// not a fleet engine's document. cmd/recover and this package's own tests name
// it fleetexport on import, where export alone would be ambiguous.
package export
