// Package plan chooses the nearest safe next-hop release for a wedged cluster and
// orders that release's manifests into steps, each with the gate it waits for.
//
// The result is a planfile.Plan: a self-contained, versioned document (package
// plan/planfile and docs/plan-format.md) that `recover apply --plan` executes as
// it is, and that renders as a Markdown runbook for change review (plan/render).
// The document's types, its action specs' document half, Encode/Parse/Validate/
// Digest and the run order live in plan/planfile, which the engine, the journal
// and the TUI import instead of this package.
//
// Make is the entry point: Options carry the Snapshot (inspect), the update graph
// (plan/graph), the transition policy (plan/policy), the risks accepted with
// --accept, an optional force reason, and a PayloadSource that loads the chosen
// target's payload (plan/payload) with the cluster's inclusion inputs (Inclusion).
// Make runs in four stages:
//
//  1. Select evaluates every candidate (the graph's releases and ClusterVersion
//     history's) against the policy, from the versions that really run (operator
//     Deployments, mirror pods, kubelets; claims only where nothing verifies them),
//     and ranks them: the nearest safe one is the Target, every other one is a
//     Candidate with the rule that rejected or demoted it. Without a safe one the
//     error is a *NoTargetError (exit 3 or 6) that carries the ranked candidates.
//  2. The target payload is loaded; a payload of another release is a
//     *PayloadMismatchError that says what to pass instead.
//  3. The steps follow the CVO's update order (payload Order.Linear): disable-cvo,
//     pool pauses where a kubelet would get ahead of the kube-apiserver, the apply
//     and delete steps with their gates (and a static-pods gate after every
//     static-pod operator), the pool unpauses once kube-apiserver,
//     kube-controller-manager and kube-scheduler are verified at the target on every
//     master, set-desired-update and restore-cvo. Components verified at the target
//     are skipped and listed as such. That is the replace-cvo outcome's plan
//     (ModeUpdate); the drive-cvo outcome's (ModeDriveCVO, drive.go) keeps the
//     CVO running: the remedies and promises, then handToCVO's set-desired-update
//     and the wait for the control plane at the target, no manifest pushed.
//  4. Check (check.go; each action's model in check_actions.go) steps a model of the cluster through the plan and asserts the
//     invariants (skew, no forbidden downgrade, run-level order, gates, pools, CVO
//     bracketing, digests) after every step; a plan that breaks one is never
//     returned (*CheckError names the step and the rule).
//
// Before the steps, the remediation stage (remedy*.go) reads the snapshot's wedge
// findings (the details contract in inspect/finding.go) and plans each remedy, or
// refuses it with a reason: a PodDisruptionBudget relaxed, waited for and restored
// exactly; vouched-for CSRs approved (inspect.CSRVouch); a blocking paused pool
// unpaused; and, only when named with --accept, a forced static-pod redeployment,
// an admin-gate acknowledgement, removing overrides, the cloud-credential
// upgradeable-to. Without a Graph, Make makes a remediation-only plan
// (ModeRemediation: the remedies and the CVO hand-back) unless TargetNeeded says
// the snapshot needs a new release; with one, the remedies come first where they
// unblock. A blocking wedge left with refused remedies only is a
// *RemedyRefusedError (exit 12 when unsafe, 3 when --accept would allow it).
//
// MakeStaged (stage.go, recover plan --to) plans several hops: one stage per
// minor along graph.StagedPath (the newest release of each minor with an edge
// onward), stage 1 by Make on its own graph, later stages checked by the same
// rules on the cluster as it will be and outlined as CVO-driven desiredUpdates;
// --eus pauses the worker pools across the intermediate minor and unpauses them
// at the end. A refused stage is a *StageRefusedError (exit 6).
//
// This package imports neither apply nor tui.
package plan
