package plan

import "github.com/openshift-recover/recover/internal/openshift"

// Object names what a step acts on, for people: "Deployment ns/name",
// "MachineConfigPool master", "ClusterVersion version", "kubeapiservers/cluster",
// "Node worker-0". The runbook, the table, the TUI and the engine's events all
// name a step's object with it; "-" for a step that names none.
func (s *Step) Object() string {
	switch {
	case s.Manifest != nil:
		return s.Manifest.Kind + " " + qualified(s.Manifest.Namespace, s.Manifest.Name)
	case s.Pool != "":
		return "MachineConfigPool " + s.Pool
	case s.CSR != nil:
		return "CertificateSigningRequest " + s.CSR.Name
	case s.Change != nil:
		return s.Change.Object.Kind + " " + qualified(s.Change.Object.Namespace, s.Change.Object.Name)
	case s.Action == ActionDisableCVO || s.Action == ActionRestoreCVO:
		return cvoDeployment
	case s.Action == ActionSetDesiredUpdate:
		return clusterVersion
	case s.Gate != nil:
		return s.Gate.object()
	}
	return "-"
}

const (
	cvoDeployment  = "Deployment " + openshift.CVONamespace + "/" + openshift.CVODeployment
	clusterVersion = "ClusterVersion " + openshift.ClusterVersionName
)

// object names what a gate watches, for a step that is only its gate (a wait).
func (g *Gate) object() string {
	switch {
	case len(g.Nodes) > 0:
		return "Node " + capList(g.Nodes, 3)
	case g.Object != nil:
		return g.Object.Kind + " " + qualified(g.Object.Namespace, g.Object.Name)
	case g.ClusterOperator != "":
		return "ClusterOperator " + g.ClusterOperator
	case g.Pool != "":
		return "MachineConfigPool " + g.Pool
	case g.StaticPods != nil:
		return g.StaticPods.Resource + "/cluster"
	case g.Kind == GateCVOScaledDown || g.Kind == GateCVORunning:
		return cvoDeployment
	case g.Kind == GateReleaseAccepted:
		return clusterVersion
	}
	return "-"
}
