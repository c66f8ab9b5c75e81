package inspect

import (
	"encoding/json"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OLMOperator is an installed operator's ClusterServiceVersion that declares
// the newest OpenShift it runs on (metadata.annotations
// olm.properties / olm.maxOpenShiftVersion). OLM's operator-lifecycle-manager
// ClusterOperator turns Upgradeable=False (IncompatibleOperatorsInstalled) on a
// cluster whose next minor is newer than it (OLM #2081,
// operator-framework-olm #120); the staged planner refuses the stage that
// would cross it.
type OLMOperator struct {
	Namespace string `json:"namespace"`
	// Name is the CSV's name ("elasticsearch-operator.v5.8.1").
	Name string `json:"name"`
	// MaxOpenShiftVersion is the declared maximum ("4.19"), as written.
	MaxOpenShiftVersion string `json:"maxOpenShiftVersion"`
}

// ResClusterServiceVersions are OLM's installed operators (metadata read for
// olm.maxOpenShiftVersion).
var ResClusterServiceVersions = Resource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "clusterserviceversions", Kind: "ClusterServiceVersion", Namespaced: true}

// Where OLM reads an operator's maximum OpenShift version: the CSV's
// olm.properties annotation, a JSON list of {type, value}, with the type
// olm.maxOpenShiftVersion (operator-framework-olm
// pkg/controller/operators/openshift/helpers.go); a CSV OLM copied into another
// namespace carries the label olm.copiedFrom and is the same operator.
const (
	annotationOLMProperties = "olm.properties"
	propertyMaxOpenShift    = "olm.maxOpenShiftVersion"
	labelOLMCopiedFrom      = "olm.copiedFrom"
)

// OLMOperatorFromMetadata reads a CSV's metadata: ok is false for a copied CSV
// and for one that declares no maximum.
func OLMOperatorFromMetadata(namespace, name string, labels, annotations map[string]string) (OLMOperator, bool) {
	if labels[labelOLMCopiedFrom] != "" {
		return OLMOperator{}, false
	}
	var props []struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal([]byte(annotations[annotationOLMProperties]), &props) != nil {
		return OLMOperator{}, false
	}
	for _, p := range props {
		if p.Type != propertyMaxOpenShift {
			continue
		}
		v := strings.Trim(strings.TrimSpace(string(p.Value)), `"`)
		if v == "" {
			return OLMOperator{}, false
		}
		return OLMOperator{Namespace: namespace, Name: name, MaxOpenShiftVersion: v}, true
	}
	return OLMOperator{}, false
}

// AddClusterServiceVersion adds an installed operator's maximum OpenShift
// version, when its CSV declares one.
func (b *Builder) AddClusterServiceVersion(m *metav1.ObjectMeta) {
	o, ok := OLMOperatorFromMetadata(m.Namespace, m.Name, m.Labels, m.Annotations)
	if !ok {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.seen("ClusterServiceVersion", m.Namespace, m.Name) {
		return
	}
	b.s.OLMOperators = append(b.s.OLMOperators, o)
	sort.Slice(b.s.OLMOperators, func(i, j int) bool {
		a, c := b.s.OLMOperators[i], b.s.OLMOperators[j]
		return a.Namespace < c.Namespace || a.Namespace == c.Namespace && a.Name < c.Name
	})
}
