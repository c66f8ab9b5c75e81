package inspect

import (
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift-recover/recover/internal/openshift"
)

// ReleaseAcceptedFor reports whether ClusterVersion has accepted the release
// image: status.desired names it and ReleaseAccepted is True (the CVO
// retrieved the payload, verified its signature and passed its
// preconditions). The signature remedy's release-accepted gate waits for it.
func ReleaseAcceptedFor(cv *configv1.ClusterVersion, image string) Verdict {
	if cv == nil {
		return verdict([]string{"ClusterVersion version does not exist"})
	}
	var pending []string
	if cv.Status.Desired.Image != image {
		pending = append(pending, "status.desired is "+orNone(cv.Status.Desired.Image)+", not "+image)
	}
	found := false
	for _, c := range cv.Status.Conditions {
		if c.Type != openshift.ConditionReleaseAccepted {
			continue
		}
		found = true
		if c.Status != configv1.ConditionTrue {
			what := "ReleaseAccepted=" + string(c.Status)
			if c.Reason != "" {
				what += " (" + c.Reason + ")"
			}
			if c.Message != "" {
				what += ": " + oneLine(c.Message)
			}
			pending = append(pending, what)
		}
	}
	if !found {
		pending = append(pending, "no ReleaseAccepted condition")
	}
	return verdict(pending)
}
