package fleetengines

import (
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RolloutStatus is a cluster's status in a ManifestWorkReplicaSet rollout
// (open-cluster-management.io/sdk-go pkg/apis/cluster/v1alpha1/rollout.go).
type RolloutStatus string

const (
	ToApply           RolloutStatus = "ToApply"
	RolloutProgessing RolloutStatus = "Progressing"
	Succeeded         RolloutStatus = "Succeeded"
	Failed            RolloutStatus = "Failed"
)

// ClusterRolloutStatus is the hub's reading of one cluster's ManifestWork
// (ocm pkg/work/hub/controllers/manifestworkreplicasetcontroller/
// manifestworkreplicaset_deploy_reconcile.go, clusterRolloutStatusFunc and
// shouldReturnToApply, after ocm PR #1207): ToApply unless Applied is True and
// both Applied and Progressing observed the work's generation (a work
// without a Progressing condition, which only condition rules make, stays
// ToApply for ever), and Degraded, when present, observed it too; then Failed
// when Progressing and Degraded are True, Progressing when Progressing is
// True, Succeeded when it is False, Progressing otherwise (Unknown).
func ClusterRolloutStatus(generation int64, conditions []metav1.Condition) RolloutStatus {
	applied := meta.FindStatusCondition(conditions, Applied)
	progressing := meta.FindStatusCondition(conditions, Progressing)
	degraded := meta.FindStatusCondition(conditions, Degraded)
	if applied == nil || applied.ObservedGeneration != generation || applied.Status != metav1.ConditionTrue ||
		progressing == nil || progressing.ObservedGeneration != generation ||
		(degraded != nil && degraded.ObservedGeneration != generation) {
		return ToApply
	}
	switch {
	case progressing.Status == metav1.ConditionTrue && degraded != nil && degraded.Status == metav1.ConditionTrue:
		return Failed
	case progressing.Status == metav1.ConditionTrue:
		return RolloutProgessing
	case progressing.Status == metav1.ConditionFalse:
		return Succeeded
	default:
		return RolloutProgessing
	}
}

// Progressive is the clusters a Progressive rollout gives the work to now
// (sdk-go rollout.go getProgressiveClusters, progressivePerGroup and
// progressivePerCluster, with no minSuccessTime and no progressDeadline passed):
// clusters are sorted by name; the mandatory clusters (the canary decision
// group) first: while any of them is not Succeeded (or has no work yet), the
// rollout is those clusters and every other cluster whose work is not
// ToApply; then the other clusters, keeping at most maxConcurrency that are
// not Succeeded: the existing works' clusters first, then new ones, and none
// once more than maxFailures are Failed. status holds the clusters that have
// a work.
func Progressive(mandatory, clusters []string, status map[string]RolloutStatus, maxConcurrency, maxFailures int) []string {
	mandatory, clusters = sorted(mandatory), sorted(clusters)
	isMandatory := map[string]bool{}
	for _, c := range mandatory {
		isMandatory[c] = true
	}
	existing := sorted(keys(status))
	if len(mandatory) > 0 {
		var out []string
		for _, c := range existing {
			if s := status[c]; s != ToApply && s != Succeeded {
				out = append(out, c)
			}
		}
		failures := 0
		for _, c := range mandatory {
			s, ok := status[c]
			switch {
			case ok && s == Failed:
				failures++
			case ok && s != ToApply:
			default:
				out = append(out, c)
			}
		}
		if len(out)-failures > 0 || failures > 0 {
			return out
		}
	}
	var rest []string
	for _, c := range clusters {
		if !isMandatory[c] {
			rest = append(rest, c)
		}
	}
	size := maxConcurrency
	if size <= 0 || size > len(rest) {
		size = len(rest)
	}
	var out []string
	failures := 0
	seen := map[string]bool{}
	for _, c := range existing {
		if isMandatory[c] {
			continue
		}
		seen[c] = true
		s := status[c]
		if s != Succeeded {
			out = append(out, c)
		}
		if s == Failed {
			failures++
		}
		if len(out) >= size {
			return out
		}
	}
	if failures > maxFailures {
		return out
	}
	for _, c := range rest {
		if seen[c] {
			continue
		}
		out = append(out, c)
		if len(out) >= size {
			return out
		}
	}
	return out
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func keys(m map[string]RolloutStatus) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TALMCompleted is TALM's IsManifestWorkCompleted (Completed) on the status
// the agent wrote: the work is ready when its Applied and Available are True
// (isManifestWorkReady), a manifest when its Applied, Available and
// StatusFeedbackSynced are (IsManifestConditionReady).
func (s *WorkStatus) TALMCompleted(annotation string) (bool, error) {
	ready := meta.IsStatusConditionTrue(s.Conditions, Applied) && meta.IsStatusConditionTrue(s.Conditions, Available)
	manifests := map[int32]Manifest{}
	for _, m := range s.Manifests {
		manifests[m.Ordinal] = Manifest{
			Ready: meta.IsStatusConditionTrue(m.Conditions, Applied) && meta.IsStatusConditionTrue(m.Conditions, Available) &&
				meta.IsStatusConditionTrue(m.Conditions, StatusFeedbackSynced),
			Feedback: m.Feedback,
		}
	}
	return Completed(ready, annotation, manifests)
}
