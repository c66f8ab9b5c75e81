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
	case s.Action == ActionDisableCVO || s.Action == ActionRestoreCVO:
		return "Deployment " + openshift.CVONamespace + "/" + openshift.CVODeployment
	case s.Action == ActionSetDesiredUpdate:
		return "ClusterVersion version"
	case s.Gate != nil && s.Gate.StaticPods != nil:
		return s.Gate.StaticPods.Resource + "/cluster"
	}
	return "-"
}
