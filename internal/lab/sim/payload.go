package sim

import (
	"fmt"

	"github.com/openshift-recover/recover/plan/payload"
)

// loadPayloadDir loads an extracted release payload with plan/payload, the loader
// recover's planner uses: the CVO's own manifests rendered with the release's pull
// spec, the default cluster profile's inclusion rules, and the CVO's update order.
func loadPayloadDir(dir string, ref ReleaseRef) (*payload.Payload, error) {
	p, err := payload.LoadDir(dir, payload.Options{ReleaseImage: ref.Image})
	if err != nil {
		return nil, err
	}
	if p.Release.Version != ref.Version {
		return nil, fmt.Errorf("%s holds release %s, but the scenario lists it as %s", dir, p.Release.Version, ref.Version)
	}
	return p, nil
}
