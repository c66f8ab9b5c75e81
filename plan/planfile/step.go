package planfile

import "github.com/openshift-recover/recover/internal/openshift"

// ObjectRef returns the object a step acts on: its manifest's, its pool, its
// certificate signing request, its change's, or its action's one object
// (ActionSpec.Object: the CVO's Deployment, ClusterVersion); false for a step
// that names none (a wait, which names only what its gate watches).
func (s *Step) ObjectRef() (ObjectRef, bool) {
	switch {
	case s.Manifest != nil:
		return ObjectRef{APIVersion: s.Manifest.APIVersion, Kind: s.Manifest.Kind, Namespace: s.Manifest.Namespace, Name: s.Manifest.Name}, true
	case s.Pool != "":
		return PoolRef(s.Pool), true
	case s.CSR != nil:
		return *CSRRef(s.CSR.Name), true
	case s.Change != nil:
		return s.Change.Object, true
	case s.Spec().Object != nil:
		return *s.Spec().Object, true
	}
	return ObjectRef{}, false
}

// Object names what a step acts on, for people: "Deployment ns/name",
// "MachineConfigPool master", "ClusterVersion version", "kubeapiservers/cluster",
// "Node worker-0". The runbook, the table, the TUI and the engine's events all
// name a step's object with it (ObjectRef.String); "-" for a step that names none.
func (s *Step) Object() string {
	if o, ok := s.ObjectRef(); ok {
		return o.String()
	}
	if s.Gate != nil {
		return s.Gate.object()
	}
	return "-"
}

// CVODeploymentRef and ClusterVersionRef are the objects the CVO's own steps
// act on (disable-cvo and restore-cvo; set-desired-update).
var (
	CVODeploymentRef  = ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: openshift.CVONamespace, Name: openshift.CVODeployment}
	ClusterVersionRef = ObjectRef{APIVersion: "config.openshift.io/v1", Kind: "ClusterVersion", Name: openshift.ClusterVersionName}
)

// object names what a gate watches, for a step that is only its gate (a wait).
func (g *Gate) object() string {
	switch {
	case len(g.Nodes) > 0:
		return "Node " + CapList(g.Nodes, 3)
	case g.Object != nil:
		return g.Object.String()
	case g.ClusterOperator != "":
		return "ClusterOperator " + g.ClusterOperator
	case g.Pool != "":
		return "MachineConfigPool " + g.Pool
	case g.StaticPods != nil:
		return g.StaticPods.Resource + "/cluster"
	case g.Kind == GateCVOScaledDown || g.Kind == GateCVORunning:
		return CVODeploymentRef.String()
	case g.Kind == GateReleaseAccepted:
		return ClusterVersionRef.String()
	}
	return "-"
}
