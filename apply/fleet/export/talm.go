package export

import "github.com/openshift-recover/recover/apply/fleet/verdict"

// The ClusterGroupUpgrade as recover fills it (openshift-kni/cluster-group-upgrades-operator
// pkg/api/clustergroupupgrades/v1alpha1/types.go).
type (
	clusterGroupUpgrade struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   objectMeta `json:"metadata"`
		Spec       cguSpec    `json:"spec"`
	}
	cguSpec struct {
		Clusters              []string            `json:"clusters,omitempty"`
		ClusterLabelSelectors []labelSelector     `json:"clusterLabelSelectors,omitempty"`
		ManifestWorkTemplates []string            `json:"manifestWorkTemplates"`
		BlockingCRs           []blockingCR        `json:"blockingCRs,omitempty"`
		RemediationStrategy   remediationStrategy `json:"remediationStrategy"`
		BatchTimeoutAction    string              `json:"batchTimeoutAction"`
		Enable                bool                `json:"enable"`
		Actions               cguActions          `json:"actions"`
	}
	blockingCR struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	}
	labelSelector struct {
		MatchLabels map[string]string `json:"matchLabels"`
	}
	remediationStrategy struct {
		Canaries       []string `json:"canaries,omitempty"`
		MaxConcurrency int      `json:"maxConcurrency"`
		// Timeout is in minutes.
		Timeout int `json:"timeout"`
	}
	cguActions struct {
		AfterCompletion afterCompletion `json:"afterCompletion"`
	}
	afterCompletion struct {
		AddClusterLabels map[string]string `json:"addClusterLabels,omitempty"`
		DeleteObjects    bool              `json:"deleteObjects"`
	}
)

// CGUName is the wave's ClusterGroupUpgrade.
func CGUName(wave string) string { return "recover-" + wave }

// ClusterGroupUpgrade runs the inspect template, then the apply template, on
// each cluster of the wave: the canaries first, then maxConcurrency at a time,
// the whole wave within the timeout, aborting on a batch that times out. It is
// created disabled: the SRE reviews the wave and sets spec.enable to true.
// A cluster that completes both steps is labelled with the wave.
func ClusterGroupUpgrade(o Options) (map[string]any, error) {
	return toMap(cgu(o, CGUName(o.Wave), []string{InspectTemplateName(o.Wave), ApplyTemplateName(o.Wave)}))
}

// cgu is a ClusterGroupUpgrade of the wave that runs templates on each
// cluster, in order: the canaries first, then maxConcurrency at a time, within
// the timeout, aborting on a batch that times out; disabled, and labelling the
// clusters that complete it with the wave.
func cgu(o Options, name string, templates []string) *clusterGroupUpgrade {
	c := clusterGroupUpgrade{
		APIVersion: "ran.openshift.io/v1alpha1", Kind: "ClusterGroupUpgrade",
		Metadata: objectMeta{Name: name, Namespace: o.HubNamespace, Labels: labels(o)},
		Spec: cguSpec{
			Clusters:              o.Clusters,
			ManifestWorkTemplates: templates,
			RemediationStrategy:   remediationStrategy{Canaries: o.Canaries, MaxConcurrency: o.MaxConcurrency, Timeout: int(o.Timeout.Minutes())},
			BatchTimeoutAction:    "Abort",
			Enable:                false,
			Actions:               cguActions{AfterCompletion: afterCompletion{AddClusterLabels: map[string]string{verdict.WaveLabel: o.Wave}, DeleteObjects: true}},
		},
	}
	if len(o.ClusterLabels) > 0 {
		c.Spec.ClusterLabelSelectors = []labelSelector{{MatchLabels: o.ClusterLabels}}
	}
	return &c
}
