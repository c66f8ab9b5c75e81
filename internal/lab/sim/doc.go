// Package sim is a simulated OpenShift cluster for recover's end-to-end tests and
// its lab: a scenario (a must-gather, release payloads and a scenario.yaml) loaded
// into a real kube-apiserver, and fake controllers that react to what is applied
// the way OpenShift's do, with injectable faults.
//
//   - Load creates the must-gather's objects with their status.
//   - The simulator is the kubelet of the scenario's nodes: it runs the pods the
//     API server's controllers bind to them, so operator Deployments really roll out.
//   - A fake cluster-version operator runs while its Deployment has replicas: it
//     reconciles the desired payload in seeded, shuffled order, or updates to a new
//     desiredUpdate in the CVO's run-level order and records the history.
//   - Fake operators report a release once their Deployment runs it; static-pod
//     operators first roll a revision node by node (installer pods, mirror pods,
//     nodeStatuses, failed installers retried with backoff); the fake
//     machine-config operator rolls pools up to maxUnavailable nodes at a time,
//     honouring pause, its daemons draining each node through the Eviction API
//     (so a PodDisruptionBudget can block them), and reports after the required
//     pools, Degraded (RequiredPoolsFailed) when they fail its sync.
//   - Joining nodes: kubelets that wait for their client CSR to be approved and
//     issued before they register their Node.
//   - Faults: a Degraded operator, a rollout that never finishes, the kubelet
//     false success of the second incident, and installers that fail.
//   - WriteMustGather writes the live cluster back in must-gather layout.
//
// It models only what recover observes, with the real openshift/api types and in
// the order the real controllers change them. Payloads are loaded and ordered with
// plan/payload and applied with apply/resource, as recover itself does. It is test
// and demo machinery: product packages never import it. The format and behaviour
// are documented in docs/simulator.md.
package sim
