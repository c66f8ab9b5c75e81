package apply

import (
	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan"
)

// stepObject names a step's object for events.
func stepObject(s *plan.Step) string {
	switch {
	case s.Manifest != nil:
		if s.Manifest.Namespace != "" {
			return s.Manifest.Kind + " " + s.Manifest.Namespace + "/" + s.Manifest.Name
		}
		return s.Manifest.Kind + " " + s.Manifest.Name
	case s.Change != nil:
		return changeRef(s.Change.Object).Describe()
	case s.CSR != nil:
		return "CertificateSigningRequest " + s.CSR.Name
	case s.Pool != "":
		return "MachineConfigPool " + s.Pool
	case s.Action == plan.ActionDisableCVO || s.Action == plan.ActionRestoreCVO:
		return "Deployment " + openshift.CVONamespace + "/" + openshift.CVODeployment
	case s.Action == plan.ActionSetDesiredUpdate:
		return "ClusterVersion version"
	case s.Gate != nil:
		return gate.Subject(s.Gate)
	}
	return ""
}
