package sim

import (
	"fmt"
	"strings"
	"sync"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift-recover/recover/plan/payload"
)

// Release is a release as the fake controllers use it: its identity and, when the
// scenario has its payload, the payload loaded by plan/payload (filtered for the
// cluster profile and rendered with the release image).
type Release struct {
	Version string
	Image   string
	// Kubernetes is the release's Kubernetes version without the "v" (1.17.1).
	Kubernetes string
	// Payload is nil for a release without a payload.
	Payload *payload.Payload
	// Manifests are the included manifests in payload order.
	Manifests []*payload.Manifest
}

// manifestName names a manifest's object for events: "Deployment ns/name".
func manifestName(m *payload.Manifest) string {
	return m.Kind + " " + namespacedName(m.Namespace, m.Name)
}

func namespacedName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// clusterOperatorVersions returns the status.versions a ClusterOperator manifest
// of the release declares, and whether the payload has that manifest.
func (r *Release) clusterOperatorVersions(name string) ([]configv1.OperandVersion, bool) {
	for _, m := range r.Manifests {
		if m.Kind != "ClusterOperator" || m.Group != configv1.GroupName || m.Name != name {
			continue
		}
		co := &configv1.ClusterOperator{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m.Object.Object, co); err != nil {
			return nil, false
		}
		return co.Status.Versions, true
	}
	return nil, false
}

// operatorsOf maps each operator Deployment of the release ("ns/name", one whose
// containers carry env RELEASE_VERSION) to the ClusterOperator manifests of its
// payload component.
func (r *Release) operatorsOf() map[string][]string {
	byComponent := map[string][]string{}
	for _, m := range r.Manifests {
		if m.Kind == "ClusterOperator" && m.Group == configv1.GroupName && m.Component != "" {
			byComponent[m.Component] = append(byComponent[m.Component], m.Name)
		}
	}
	out := map[string][]string{}
	for _, m := range r.Manifests {
		if m.Kind != "Deployment" || m.Group != "apps" || m.Component == "" || m.Delete {
			continue
		}
		d := &appsv1.Deployment{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m.Object.Object, d); err != nil {
			continue
		}
		if releaseVersionOf(d) == "" {
			continue
		}
		if cos := byComponent[m.Component]; len(cos) > 0 {
			out[namespacedName(d.Namespace, d.Name)] = cos
		}
	}
	return out
}

// releaseVersionEnv is the environment variable through which OpenShift operators
// learn the release they belong to.
const releaseVersionEnv = "RELEASE_VERSION"

// operatorImageVersionEnv is the variable library-go's operators read their
// release from (status.VersionForOperatorFromEnv), the kube-apiserver
// operator's since 4.x: its Deployment carries it instead of RELEASE_VERSION.
const operatorImageVersionEnv = "OPERATOR_IMAGE_VERSION"

// releaseVersionOf returns the RELEASE_VERSION env of the Deployment's
// containers, else their OPERATOR_IMAGE_VERSION.
func releaseVersionOf(d *appsv1.Deployment) string {
	if v := containerEnv(d, releaseVersionEnv); v != "" {
		return v
	}
	return containerEnv(d, operatorImageVersionEnv)
}

// containerEnv returns the first literal value of env var name in the Deployment's
// containers.
func containerEnv(d *appsv1.Deployment, name string) string {
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == name && e.Value != "" {
				return e.Value
			}
		}
	}
	return ""
}

// kubeVersionOf returns the Kubernetes version a release's payload declares: the
// kube-apiserver operand version of its kube-apiserver ClusterOperator manifest.
func kubeVersionOf(r *Release) string {
	versions, _ := r.clusterOperatorVersions("kube-apiserver")
	for _, v := range versions {
		if v.Name == "kube-apiserver" {
			return strings.TrimPrefix(v.Version, "v")
		}
	}
	return ""
}

// payloadLoader loads a release payload directory.
type payloadLoader func(dir string, ref ReleaseRef) (*payload.Payload, error)

// releaseSet loads the scenario's releases on first use and caches them.
type releaseSet struct {
	scn  *Scenario
	load payloadLoader

	mu     sync.Mutex
	loaded map[string]*Release
	errs   map[string]error
}

func newReleaseSet(scn *Scenario) *releaseSet {
	return &releaseSet{scn: scn, load: loadPayloadDir, loaded: map[string]*Release{}, errs: map[string]error{}}
}

// byVersion returns the release with the given version, loading its payload.
func (rs *releaseSet) byVersion(version string) (*Release, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r, ok := rs.loaded[version]; ok {
		return r, nil
	}
	if err, ok := rs.errs[version]; ok {
		return nil, err
	}
	ref, ok := rs.scn.Release(version)
	if !ok {
		err := fmt.Errorf("release %s is not in the scenario's releases", version)
		rs.errs[version] = err
		return nil, err
	}
	r := &Release{Version: ref.Version, Image: ref.Image, Kubernetes: strings.TrimPrefix(ref.Kubernetes, "v")}
	if ref.Payload != "" {
		p, err := rs.load(rs.scn.Path(ref.Payload), ref)
		if err != nil {
			err = fmt.Errorf("loading the payload of %s: %w", ref.Version, err)
			rs.errs[version] = err
			return nil, err
		}
		r.Payload, r.Manifests = p, p.Included()
		if r.Kubernetes == "" {
			r.Kubernetes = kubeVersionOf(r)
		}
	}
	rs.loaded[version] = r
	return r, nil
}

// byImage returns the release with the given pull spec.
func (rs *releaseSet) byImage(image string) (*Release, error) {
	rs.mu.Lock()
	for _, r := range rs.loaded {
		if r.Image == image {
			rs.mu.Unlock()
			return r, nil
		}
	}
	rs.mu.Unlock()
	ref, ok := rs.scn.ReleaseByImage(image)
	if !ok {
		return nil, fmt.Errorf("release image %s is not in the scenario's releases", image)
	}
	return rs.byVersion(ref.Version)
}

// all returns every release that loads, for indexes over payloads.
func (rs *releaseSet) all() []*Release {
	var out []*Release
	seen := map[string]bool{}
	for _, ref := range rs.scn.Releases {
		if r, err := rs.byVersion(ref.Version); err == nil {
			out = append(out, r)
			seen[r.Version] = true
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for v, r := range rs.loaded {
		if !seen[v] {
			out = append(out, r)
		}
	}
	return out
}
