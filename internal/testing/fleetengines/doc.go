// Package fleetengines restates, for recover's tests, the rules of the fleet
// engines that decide whether a hub sees a cluster's verdict and moves on. The
// engines' modules cannot be imported here (the module proxy does not serve
// them), so the rules are written out from the sources named, read at
// open-cluster-management-io/ocm 00f84c3 and
// openshift-kni/cluster-group-upgrades-operator dacf199; nothing of the
// product imports this package.
//
//   - The OCM work agent's apply at every sync, its periodic resync (4 minutes
//     with jitter) and a restart included (Agent, agent.go): every manifest
//     with its manifestConfigs update strategy (Update, the default: a plain
//     update of the live object with the manifest, which an immutable Job
//     selector or pod template refuses; CreateOnly; ServerSideApply as the
//     field manager "work-agent"; ReadOnly), the manifests' and work's
//     Applied, Available, StatusFeedbackSynced and the conditions of
//     conditionRules, aggregated into the work's (Progressing True when any
//     manifest's is) (pkg/work/spoke/apply/*.go,
//     pkg/work/spoke/controllers/manifestcontroller/manifestwork_reconciler.go,
//     pkg/work/spoke/controllers/statuscontroller/availablestatus_controller.go,
//     pkg/work/spoke/conditions/{reader.go,helpers.go,rules/rule.go}).
//   - How it turns a feedbackRules JSONPath into a statusFeedback value
//     (FeedbackValue; pkg/work/spoke/statusfeedback/reader.go,
//     getValueByJsonPath: client-go's jsonpath over the live object with
//     missing keys allowed, the first result only, and only an int64, string
//     or bool becomes a value unless the RawFeedbackJsonString feature gate
//     is on).
//   - CEL condition rules (Conditions, conditions.go): the agent's
//     environment (object as a dynamic value, sdk-go's base libraries and
//     hasConditions), every expression must be true, and an expression that
//     fails makes the condition False, not Unknown.
//   - The ManifestWorkReplicaSet rollout (rollout.go): a cluster's status from
//     its work's Applied, Progressing and Degraded (ocm
//     pkg/work/hub/controllers/manifestworkreplicasetcontroller/manifestworkreplicaset_deploy_reconcile.go,
//     clusterRolloutStatusFunc, after ocm PR #1207: a work without
//     Progressing is ToApply for ever), and which clusters a Progressive
//     rollout gives the work to (sdk-go pkg/apis/cluster/v1alpha1/rollout.go).
//   - When TALM counts a cluster's ManifestWork step complete (Completed,
//     WorkStatus.TALMCompleted; controllers/utils/manifestwork.go,
//     IsManifestWorkCompleted, isManifestWorkReady, IsManifestConditionReady
//     and getFieldValue: the work is Applied and Available, and every
//     openshift-cluster-group-upgrades/expectedValues entry's named feedback
//     value of the manifest with that ordinal, rendered as a string, equals
//     the expected value, that manifest being applied, available and synced).
//   - When TALM starts a ClusterGroupUpgrade that names blocking CGUs, and on
//     which clusters (blocking.go; controllers/clustergroupupgrade_controller.go,
//     blockingCRsNotCompleted and filterNonCompletedClustersInBlockingCRs, read
//     at a later commit than the rest, as the file cites): the staged wave's
//     one CGU per stage.
package fleetengines
