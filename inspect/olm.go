package inspect

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
