package sim

import (
	"fmt"
	"strings"
	"sync"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Release is a release as the fake controllers use it: its identity and its
// payload's manifests, filtered and rendered for this cluster, in payload order.
type Release struct {
	Version string
	Image   string
	// Kubernetes is the release's Kubernetes version without the "v" (1.17.1).
	Kubernetes string
	// Manifests are the payload's manifests in payload order (file name, then
	// document); nil for a release without a payload.
	Manifests []Manifest
}

// Manifest is one payload manifest.
type Manifest struct {
	// File is the payload file name; Index the document's position in it.
	File  string
	Index int
	// RunLevel and Component are parsed from File (0000_<level>_<component>_...);
	// RunLevel is -1 and Component "" for a file that does not follow the pattern.
	RunLevel  int
	Component string
	Object    *unstructured.Unstructured
	// CreateOnly is release.openshift.io/create-only=true; Delete is
	// release.openshift.io/delete=true.
	CreateOnly bool
	Delete     bool
}

// String names the manifest for events.
func (m Manifest) String() string {
	return fmt.Sprintf("%s %s", m.Object.GetKind(), namespacedName(m.Object.GetNamespace(), m.Object.GetName()))
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
		if m.Object.GetKind() != "ClusterOperator" || m.Object.GetName() != name {
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

// clusterOperators returns the names of the release's ClusterOperator manifests.
func (r *Release) clusterOperators() []string {
	var names []string
	for _, m := range r.Manifests {
		if m.Object.GetKind() == "ClusterOperator" && !m.Delete {
			names = append(names, m.Object.GetName())
		}
	}
	return names
}

// operatorsOf maps each operator Deployment of the release ("ns/name", one whose
// containers carry env RELEASE_VERSION) to the ClusterOperator manifests of its
// payload component.
func (r *Release) operatorsOf() map[string][]string {
	byComponent := map[string][]string{}
	for _, m := range r.Manifests {
		if m.Object.GetKind() == "ClusterOperator" && m.Component != "" {
			byComponent[m.Component] = append(byComponent[m.Component], m.Object.GetName())
		}
	}
	out := map[string][]string{}
	for _, m := range r.Manifests {
		if m.Object.GetKind() != "Deployment" || m.Component == "" || m.Delete {
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

// releaseVersionOf returns the RELEASE_VERSION env of the Deployment's containers.
func releaseVersionOf(d *appsv1.Deployment) string {
	return containerEnv(d, releaseVersionEnv)
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

// payloadLoader loads a release payload directory. It is a variable so that the
// payload package's loader plugs in in one place.
type payloadLoader func(dir string, ref ReleaseRef) ([]Manifest, error)

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

// add registers a release directly (tests build releases in Go).
func (rs *releaseSet) add(r *Release) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.loaded[r.Version] = r
	delete(rs.errs, r.Version)
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
		ms, err := rs.load(rs.scn.Path(ref.Payload), ref)
		if err != nil {
			err = fmt.Errorf("loading the payload of %s from %s: %w", ref.Version, rs.scn.Path(ref.Payload), err)
			rs.errs[version] = err
			return nil, err
		}
		r.Manifests = ms
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
