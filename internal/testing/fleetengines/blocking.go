package fleetengines

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TALM's sequencing of ClusterGroupUpgrades by spec.blockingCRs, read in
// openshift-kni/cluster-group-upgrades-operator
// controllers/clustergroupupgrade_controller.go (blockingCRsNotCompleted,
// filterNonCompletedClustersInBlockingCRs) and controllers/utils/constants.go
// (the annotations); TALM's ImageBasedGroupUpgrade makes one CGU per plan
// item, each blocked by every earlier one (controllers/imagebasedgroupupgrade.go,
// ensureManifests).

// The blocking-CR annotations and the cluster state TALM writes for a cluster
// that completed (utils.ClusterRemediationComplete).
const (
	BlockingCompletionModeAnnotation = "ran.openshift.io/blocking-cgu-completion-mode"
	BlockingClusterFilterAnnotation  = "ran.openshift.io/blocking-cgu-cluster-filtering"
	PartialBlockingCompletion        = "partial"
	ClusterComplete                  = "complete"
	// CGUSucceeded is the CGU condition TALM sets when it ends (True when every
	// cluster completed).
	CGUSucceeded = "Succeeded"
)

// CGUStatus is what TALM reads of a blocking CGU: its conditions and each
// cluster's state (status.clusters[].state).
type CGUStatus struct {
	Conditions []metav1.Condition
	Clusters   map[string]string
}

// BlockersNotCompleted is blockingCRsNotCompleted: of the blocking CGUs
// (names), those missing, and those not completed: without conditions, or,
// in the partial completion mode, without a Succeeded condition at all,
// otherwise without Succeeded True. A CGU starts only when both are empty.
func BlockersNotCompleted(annotations map[string]string, blocking []string, cgus map[string]*CGUStatus) (notCompleted, missing []string) {
	for _, name := range blocking {
		c, ok := cgus[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case c.Conditions == nil:
			notCompleted = append(notCompleted, name)
		case annotations[BlockingCompletionModeAnnotation] == PartialBlockingCompletion:
			if meta.FindStatusCondition(c.Conditions, CGUSucceeded) == nil {
				notCompleted = append(notCompleted, name)
			}
		case !meta.IsStatusConditionTrue(c.Conditions, CGUSucceeded):
			notCompleted = append(notCompleted, name)
		}
	}
	return notCompleted, missing
}

// ClustersPastBlockers is the clusters a started CGU works on: all of
// clusters, unless it is in the partial completion mode with cluster
// filtering, then only those every blocking CGU lists as complete
// (filterNonCompletedClustersInBlockingCRs).
func ClustersPastBlockers(annotations map[string]string, blocking []string, cgus map[string]*CGUStatus, clusters []string) []string {
	if annotations[BlockingCompletionModeAnnotation] != PartialBlockingCompletion || annotations[BlockingClusterFilterAnnotation] != "true" {
		return clusters
	}
	var out []string
	for _, cl := range clusters {
		n := 0
		for _, b := range blocking {
			if c, ok := cgus[b]; ok && c.Clusters[cl] == ClusterComplete {
				n++
			}
		}
		if n == len(blocking) {
			out = append(out, cl)
		}
	}
	return out
}
