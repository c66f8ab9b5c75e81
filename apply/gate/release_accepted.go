package gate

import (
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/openshift"
	"github.com/openshift-recover/recover/plan/planfile"
)

// releaseAcceptedSpec builds a release-accepted gate: ClusterVersion reports
// ReleaseAccepted=True for the gate's image (inspect.ReleaseAcceptedFor).
func releaseAcceptedSpec(g *planfile.Gate) (*spec, error) {
	if g.Image == "" {
		return nil, fmt.Errorf("release-accepted gate needs image")
	}
	return &spec{
		sources: []source{{gvr: clusterVersions, name: openshift.ClusterVersionName}},
		eval: func(o [][]*unstructured.Unstructured, _ time.Duration) Progress {
			return evalReleaseAccepted(g.Image, first(o[0]))
		},
	}, nil
}

func evalReleaseAccepted(image string, u *unstructured.Unstructured) Progress {
	var cv *configv1.ClusterVersion
	if u != nil {
		cv = &configv1.ClusterVersion{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, cv); err != nil {
			return Progress{Message: "cannot read ClusterVersion version: " + err.Error()}
		}
	}
	if v := inspect.ReleaseAcceptedFor(cv, image); !v.OK {
		return Progress{Message: "the CVO has not accepted " + image + ": " + v.String(), Pending: v.Pending}
	}
	return Progress{Met: true, Message: "the CVO accepted " + image + " (ReleaseAccepted=True)"}
}
