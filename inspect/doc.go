// Package inspect models what an OpenShift cluster claims and what actually runs
// on it, and finds where the two disagree.
//
// A Snapshot is a versioned, JSON-serializable record of the state a recovery
// depends on: the ClusterVersion (spec and status), the cluster-version operator's
// Deployment, every ClusterOperator, the static-pod operators (kube-apiserver,
// kube-controller-manager, kube-scheduler, etcd) with their nodeStatuses beside the
// mirror pods and installer pods that really run, MachineConfigPools, nodes (lean
// records: kubelet version, machine-config annotations, readiness), the rendered
// MachineConfigs' release versions, the openshift-* operator Deployments (whose
// RELEASE_VERSION / OPERATOR_IMAGE_VERSION env verifies an operator's claimed
// version), and the FeatureGate and Infrastructure singletons.
//
// Snapshots come from a Source: the live cluster (inspect/live), a must-gather
// directory or archive (inspect/mustgather), an Insights archive (inspect/insights),
// a set of `oc get -o yaml|json` dumps (inspect/dump), or a snapshot saved earlier as
// JSON (FileSource). Every source reduces the upstream API objects with the same
// converters (NodeFromAPI, PodFromAPI, ...) into a Builder, so the same cluster gives
// the same Snapshot and the same Fingerprint whichever way it was read.
//
// Provenance: every resource type a source reads gets a ResourceStatus in
// Snapshot.Resources saying where it was read from, when, how many objects, and,
// when it could not be read, why (Forbidden, NotFound, Absent, Error). Nothing is
// left silently empty: a resource that was not collected yields a NotCollected
// finding.
//
// Findings are computed by Analyze, a pure function of the snapshot. Every source
// calls Builder.Finish, which runs Analyze and stores the result in
// Snapshot.Findings (and the claim-versus-reality Summary), so a collected or saved
// snapshot carries its findings; call Refresh after changing a snapshot by hand.
// The finding codes are stable and documented in docs/findings.md. Every finding
// has a Class: ClassBlocks when it holds the update, ClassInforms when it is
// context. The wedge findings (analyze_drains.go, analyze_csrs.go,
// analyze_certs.go, analyze_gates.go, analyze_cvo_wedges.go, analyze_pools.go,
// analyze_staticpods.go) classify the operators' own status texts (classify.go).
//
// Refresh also computes Snapshot.Wedges (wedges.go), "why this cluster is stuck":
// the findings grouped by cause, those a deeper cause explains folded into it,
// ranked by the layer of the update they hold first, each line with the command
// to run next. WhyStuck and Blocking read it; WriteReport and WriteMarkdown print
// it first.
//
// Accessors give the planner the verified view: OperatorVersion (claimed and
// verified version of a ClusterOperator and its operands), KubeletVersions,
// OldestKubeAPIServer, CVOMode (the mode a (re)started CVO would pick) and
// StaticPodTruth (per node: the revision claimed beside the revision running).
package inspect
