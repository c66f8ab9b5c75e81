package stagedplan

import (
	"fmt"

	"github.com/openshift-recover/recover/plan/planfile"
)

// EUS is an EUS staged plan (formatVersion 1.4) of the shape
// plan.MakeStaged writes: a patch stage 4.18.3 -> 4.18.9 whose per-hop steps
// are the plan's Steps (the CVO driven there), the paused hop 4.18.9 ->
// 4.19.14 (the worker pool waited for, then paused, before its
// desiredUpdate) and 4.19.14 -> 4.20.3 (the unpause at the end).
func EUS() *planfile.Plan {
	cv := func(to string) planfile.Step {
		return planfile.Step{Action: planfile.ActionSetDesiredUpdate, DesiredUpdate: &planfile.DesiredUpdate{Version: to, Image: "quay.io/openshift-release-dev/ocp-release@sha256:" + fmt.Sprintf("%064x", len(to))},
			Reason: "the CVO carries the cluster to " + to, Gate: &planfile.Gate{Kind: planfile.GateCVORunning, Description: "ClusterVersion shows the CVO working on " + to}}
	}
	landed := func(to string) planfile.Step {
		return planfile.Step{Action: planfile.ActionWait, Reason: "the stage lands when the control plane runs " + to,
			Gate: &planfile.Gate{Kind: planfile.GateClusterOperator, ClusterOperator: "machine-config", Versions: []planfile.OperandVersion{{Name: "operator", Version: to}}}}
	}
	number := func(stage int, steps ...planfile.Step) []planfile.Step {
		for i := range steps {
			id := string(steps[i].Action)
			if steps[i].Pool != "" {
				id += "-" + steps[i].Pool
			}
			steps[i].ID = fmt.Sprintf("%03d-%s", i+1, id)
			if stage > 0 {
				steps[i].ID = fmt.Sprintf("stage%d-%s", stage, steps[i].ID)
			}
		}
		return steps
	}
	updated := planfile.Step{Action: planfile.ActionWait, Reason: "pool worker is paused only once it is Updated",
		Gate: &planfile.Gate{Kind: planfile.GatePoolUpdated, Pool: "worker", Description: "pool worker reports Updated"}}
	pause := planfile.Step{Action: planfile.ActionPausePool, Pool: "worker", Reason: "EUS control-plane-only path: pool worker keeps its kubelets until the control plane reaches 4.20.3"}
	unpause := planfile.Step{Action: planfile.ActionUnpausePool, Pool: "worker", Reason: "the control plane is at 4.20.3: pool worker updates straight to it",
		Gate: &planfile.Gate{Kind: planfile.GatePoolUpdated, Pool: "worker", Description: "pool worker reports Updated at 4.20.3"}}
	one := int32(1)
	return &planfile.Plan{
		APIVersion: planfile.APIVersion, Kind: planfile.Kind, FormatVersion: planfile.FormatVersionStages, Mode: planfile.ModeUpdate,
		Cluster: planfile.ClusterSummary{Fingerprint: "sha256:test", ClaimedVersion: "4.18.3", CVOReplicas: &one},
		Target:  planfile.Target{Version: "4.18.9", Reasons: []string{"stage 1 of 3"}},
		Goal:    "4.20.3", GoalReasons: []string{"Not in one hop: no edge 4.18.3 -> 4.20.3.", "3 stage(s): 4.18.3 -> 4.18.9 -> 4.19.14 -> 4.20.3."},
		Steps: number(0, cv("4.18.9"), landed("4.18.9")),
		Stages: []planfile.Stage{
			{Index: 1, From: "4.18.3", To: "4.18.9", Edge: "supported", Workers: planfile.WorkersFollow, Reasons: []string{"4.18.3 has no usable edge into a 4.19 release that leads to 4.20.3: first 4.18.9."}},
			{Index: 2, From: "4.18.9", To: "4.19.14", Edge: "conditional", Workers: planfile.WorkersPaused, Accept: []string{"PreRelease"},
				Steps:    number(2, updated, pause, cv("4.19.14"), landed("4.19.14")),
				Warnings: []string{"a paused pool does not get the rotated kubelet CA bundle (MCO #2802): unpause before 2026-12-20T00:00:00Z"}},
			{Index: 3, From: "4.19.14", To: "4.20.3", Edge: "supported", Workers: planfile.WorkersFollow, Steps: number(3, cv("4.20.3"), landed("4.20.3"), unpause)},
		},
	}
}
