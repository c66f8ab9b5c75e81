package resource

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
)

// Mapper maps kinds to resources with a discovery cache that is reset, once, when a
// kind is not found, so a kind whose CRD a previous step created is found.
type Mapper struct {
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

// NewMapper returns a Mapper over the discovery client.
func NewMapper(dc discovery.DiscoveryInterface) *Mapper {
	return &Mapper{mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

// RESTMapper returns the underlying mapper.
func (m *Mapper) RESTMapper() meta.ResettableRESTMapper { return m.mapper }

// Reset drops the discovery cache (call it after CRDs change).
func (m *Mapper) Reset() { m.mapper.Reset() }

// Mapping returns the REST mapping of gvk, refreshing discovery once if the kind is
// unknown.
func (m *Mapper) Mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	mapping, err := m.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil && meta.IsNoMatchError(err) {
		m.mapper.Reset()
		mapping, err = m.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		if meta.IsNoMatchError(err) {
			return nil, &UnknownKindError{GVK: gvk}
		}
		return nil, fmt.Errorf("mapping %s: %w", gvk, err)
	}
	return mapping, nil
}

// UnknownKindError says the API server serves no resource for a kind.
type UnknownKindError struct{ GVK schema.GroupVersionKind }

func (e *UnknownKindError) Error() string {
	return fmt.Sprintf("the cluster serves no resource for kind %s (is its CRD applied by an earlier step?)", e.GVK)
}
