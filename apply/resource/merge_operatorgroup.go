package resource

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// operatorGroupSpec holds the fields of operators.coreos.com/v1
// OperatorGroupSpec (operator-framework/api pkg/operators/v1
// operatorgroup_types.go) the CVO merges. The upgrade strategy is its name, as
// the type marshals it.
type operatorGroupSpec struct {
	Selector           *metav1.LabelSelector `json:"selector,omitempty"`
	TargetNamespaces   []string              `json:"targetNamespaces,omitempty"`
	ServiceAccountName string                `json:"serviceAccountName,omitempty"`
	StaticProvidedAPIs bool                  `json:"staticProvidedAPIs,omitempty"`
	UpgradeStrategy    string                `json:"upgradeStrategy,omitempty"`
}

func init() {
	registerPartial(schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v1", Kind: "OperatorGroup"}, []string{"spec"},
		[]string{"selector", "targetNamespaces", "serviceAccountName", "staticProvidedAPIs", "upgradeStrategy"}, ensureOperatorGroup)
}

// ensureOperatorGroup (lib/resourcemerge/operators.go EnsureOperatorGroup): the
// selector and target namespaces are the manifest's, the service account when
// it names one, staticProvidedAPIs, and the upgrade strategy ("Default" when
// unset, ensureUpgradeStrategyDefault). The group's status and OLM's
// annotations stay.
func ensureOperatorGroup(modified *bool, e *operatorGroupSpec, r operatorGroupSpec) {
	setSemantic(modified, &e.Selector, r.Selector)
	setSlice(modified, &e.TargetNamespaces, r.TargetNamespaces)
	setStringIfSet(modified, &e.ServiceAccountName, r.ServiceAccountName)
	setValue(modified, &e.StaticProvidedAPIs, r.StaticProvidedAPIs)
	if r.UpgradeStrategy == "" {
		r.UpgradeStrategy = "Default"
	}
	setValue(modified, &e.UpgradeStrategy, r.UpgradeStrategy)
}
