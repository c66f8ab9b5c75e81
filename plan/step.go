package plan

import "github.com/openshift-recover/recover/internal/openshift"

// Object names what a step acts on, for people: "Deployment ns/name",
// "MachineConfigPool master", "ClusterVersion version", "kubeapiservers/cluster".
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
	case s.Gate != nil && len(s.Gate.Nodes) > 0:
		return "Node " + capList(s.Gate.Nodes, 3)
	case s.Gate != nil && s.Gate.Kind == GateConditionCleared && s.Gate.Object != nil:
		return s.Gate.Object.Kind + " " + qualified(s.Gate.Object.Namespace, s.Gate.Object.Name)
	case s.Action == ActionDisableCVO || s.Action == ActionRestoreCVO:
		return "Deployment " + openshift.CVONamespace + "/" + openshift.CVODeployment
	case s.Action == ActionSetDesiredUpdate:
		return "ClusterVersion version"
	case s.Gate != nil && s.Gate.StaticPods != nil:
		return s.Gate.StaticPods.Resource + "/cluster"
	}
	return "-"
}
