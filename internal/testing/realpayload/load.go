package realpayload

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	configv1 "github.com/openshift/api/config/v1"
	securityv1 "github.com/openshift/api/security/v1"

	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/internal/testing/referee"
)

// The cluster the referee's live objects come from (merge-cases.jsonl).
const (
	// CurrentVersion is the release the loaded cluster runs.
	CurrentVersion = "4.3.19"
	CurrentImage   = "quay.io/openshift-release-dev/ocp-release@sha256:28c451bfb531e5af71332a933073a2d97673ed157150bacb014a4358501f05ad"
	// TargetVersion is the hop the test plans; TargetImage is the release
	// image the referee rendered the CVO's own manifests with.
	TargetVersion = "4.4.4"
	TargetImage   = "quay.io/openshift-release-dev/ocp-release@sha256:4444444444444444444444444444444444444444444444444444444444444444"
	// InternalAPI is the Infrastructure status.apiServerInternalURI the
	// referee's CVO pointed its own Deployment at.
	InternalAPI = "https://api-int.example.com:6443"
)

// Hop is the update a loaded cluster is for: the release it runs and the one
// the test plans, how their manifests are rendered, and what its ClusterVersion
// reports.
type Hop struct {
	CurrentVersion, CurrentImage string
	TargetVersion, TargetImage   string
	Channel                      string
	// Render renders the loaded live objects' version placeholders as oc adm
	// release new renders a payload (Render), with CurrentComponents;
	// without it only operator Deployments' env is substituted (the 4.4 run).
	Render            bool
	CurrentComponents map[string]string
	// KnownCapabilities and EnabledCapabilities are ClusterVersion
	// status.capabilities (none: a cluster before 4.11).
	KnownCapabilities, EnabledCapabilities []string
}

// Hop44 is the first incident's hop, 4.3.19 -> 4.4.4 (merge-cases.jsonl).
var Hop44 = Hop{CurrentVersion: CurrentVersion, CurrentImage: CurrentImage, TargetVersion: TargetVersion, TargetImage: TargetImage, Channel: "stable-4.4"}

// Cluster is the loaded cluster: the objects as created, by key.
type Cluster struct {
	Config  *rest.Config
	Dynamic dynamic.Interface
	Mapper  *resource.Mapper
	// OwnerUID is the real ClusterVersion's UID; the referee's owner
	// references (RefereeUID) point at it.
	OwnerUID, RefereeUID types.UID
	// Loaded are the live objects as the API server stored them, by key.
	Loaded map[Key]*unstructured.Unstructured
	// ServiceCA is the CA bundle (PEM) the service-ca controller injected
	// here, in place of the referee's stand-in (InjectedCAStandIn).
	ServiceCA []byte
	hop       Hop
}

// InjectedCAStandIn is the caBundle the referee's live objects carry where the
// service-ca controller injects one ("ca-bundle", not a certificate).
const InjectedCAStandIn = "ca-bundle"

// Load fills an empty API server (the OpenShift CRDs of kubetest installed)
// with a 4.3.19 cluster: ClusterVersion, every live object of the referee's
// update pairs that comes from the 4.3 payload (liveFrom "old", with what a real
// cluster adds), restated where needed and with its owner references pointing at
// the real ClusterVersion, the 4.3 CRDs restated as v1, a permissive CRD for every
// other kind the 4.3 and 4.4 payloads hold that the server does not serve, the
// cluster proxy and the internal API endpoint. Server-allocated Service IPs are
// left to this server.
func Load(ctx context.Context, cfg *rest.Config, rctx referee.Context, cases []referee.MergeCase, payloadCRDs []*unstructured.Unstructured) (*Cluster, error) {
	return LoadHop(ctx, cfg, Hop44, rctx, cases, payloadCRDs)
}

// LoadHop is Load for any hop: the cluster runs hop.CurrentVersion, its live
// objects rendered for it.
func LoadHop(ctx context.Context, cfg *rest.Config, hop Hop, rctx referee.Context, cases []referee.MergeCase, payloadCRDs []*unstructured.Unstructured) (*Cluster, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Config: cfg, Dynamic: dyn, Mapper: resource.NewMapper(dc), RefereeUID: types.UID(rctx.CVUID), Loaded: map[Key]*unstructured.Unstructured{}, hop: hop}
	if c.ServiceCA, err = selfSignedCA("openshift-service-serving-signer"); err != nil {
		return nil, err
	}
	if err := c.clusterVersion(ctx); err != nil {
		return nil, fmt.Errorf("ClusterVersion: %w", err)
	}
	var crds, rest []*unstructured.Unstructured
	kinds := map[schema.GroupVersionKind]bool{}
	for _, cs := range cases {
		served, _ := Restate(cs.Required.Unstructured)
		kinds[served.GroupVersionKind()] = true
		if cs.Mode != "update" || cs.LiveFrom != "old" || cs.Live.Unstructured == nil {
			continue
		}
		u, _ := Restate(cs.Live.Unstructured)
		u = c.forCreate(u)
		if u.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, u)
		} else {
			rest = append(rest, u)
		}
	}
	// The 4.3 cluster's CRDs (kubetest's own, from openshift/api, stay where
	// they exist), then a permissive CRD for each kind left unserved.
	for _, crd := range crds {
		if _, err := c.create(ctx, crd); err != nil {
			return nil, err
		}
	}
	defined := map[schema.GroupKind]bool{}
	for _, crd := range append(crds, payloadCRDs...) {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		defined[schema.GroupKind{Group: group, Kind: kind}] = true
	}
	if err := c.waitEstablished(ctx); err != nil {
		return nil, err
	}
	c.Mapper.Reset()
	for gvk := range kinds {
		if _, err := c.Mapper.Mapping(gvk); err == nil || defined[gvk.GroupKind()] {
			continue
		}
		if _, err := c.create(ctx, PermissiveCRD(gvk.Group, gvk.Version, gvk.Kind, "", namespacedKind(cases, gvk))); err != nil {
			return nil, err
		}
	}
	if err := c.waitEstablished(ctx); err != nil {
		return nil, err
	}
	c.Mapper.Reset()
	// Namespaces first, then the rest in payload order.
	sort.SliceStable(rest, func(i, j int) bool {
		return rest[i].GetKind() == "Namespace" && rest[j].GetKind() != "Namespace"
	})
	// Namespaces a real cluster has without a manifest (openshift, made by
	// openshift-apiserver), for the objects of both payloads.
	have := map[string]bool{}
	for _, cs := range cases {
		if cs.Required.GetKind() == "Namespace" && cs.Required.GetAPIVersion() == "v1" {
			have[cs.Required.GetName()] = true // the 4.4 payload's or the loaded 4.3 one
		}
	}
	for _, cs := range cases {
		if ns := cs.Required.GetNamespace(); ns != "" && !have[ns] {
			have[ns] = true
			if _, err := c.create(ctx, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}); err != nil {
				return nil, err
			}
		}
	}
	for _, u := range rest {
		if _, err := c.create(ctx, u); err != nil {
			return nil, err
		}
	}
	return c, c.clusterFacts(ctx, rctx)
}

func namespacedKind(cases []referee.MergeCase, gvk schema.GroupVersionKind) bool {
	for _, cs := range cases {
		if cs.Required.GroupVersionKind() == gvk {
			return cs.Required.GetNamespace() != ""
		}
	}
	return false
}

var (
	clusterVersions = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}
	crdsResource    = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

func (c *Cluster) clusterVersion(ctx context.Context) error {
	cv := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
		"metadata": map[string]any{"name": "version"},
		"spec":     map[string]any{"clusterID": "5c2d3e0a-9b1f-4f6e-8d8a-1f2b3c4d5e6f", "channel": c.hop.Channel},
	}}
	created, err := c.Dynamic.Resource(clusterVersions).Create(ctx, cv, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	c.OwnerUID = created.GetUID()
	started := "2020-05-04T10:00:00Z"
	status := map[string]any{
		"desired":            map[string]any{"version": c.hop.CurrentVersion, "image": c.hop.CurrentImage},
		"history":            []any{map[string]any{"state": "Completed", "version": c.hop.CurrentVersion, "image": c.hop.CurrentImage, "startedTime": started, "completionTime": started, "verified": false}},
		"observedGeneration": created.GetGeneration(),
		"versionHash":        "test",
		"availableUpdates":   nil,
	}
	if len(c.hop.KnownCapabilities) > 0 {
		status["capabilities"] = map[string]any{"knownCapabilities": strs(c.hop.KnownCapabilities), "enabledCapabilities": strs(c.hop.EnabledCapabilities)}
	}
	created.Object["status"] = status
	_, err = c.Dynamic.Resource(clusterVersions).UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}

// forCreate is a live object as it may be created here: server-set metadata
// dropped, owner references moved to the real ClusterVersion, a Service's
// allocated addresses left to this server, the CVO running.
func (c *Cluster) forCreate(live *unstructured.Unstructured) *unstructured.Unstructured {
	u := live.DeepCopy()
	for _, f := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	c.MapLoaded(u)
	if u.GetKind() == "Service" && u.GetAPIVersion() == "v1" {
		for _, f := range []string{"clusterIP", "clusterIPs"} {
			unstructured.RemoveNestedField(u.Object, "spec", f)
		}
	}
	if u.GetKind() == "Deployment" && u.GetNamespace() == "openshift-cluster-version" {
		_ = unstructured.SetNestedField(u.Object, int64(1), "spec", "replicas")
	}
	switch u.GroupVersionKind().GroupKind().String() {
	case "SecurityContextConstraints.security.openshift.io":
		u = typed(u, &securityv1.SecurityContextConstraints{})
	case "ClusterOperator.config.openshift.io":
		u = typed(u, &configv1.ClusterOperator{})
	}
	if c.hop.Render {
		if u.GetKind() == "ClusterOperator" {
			// The referee's live ClusterOperators report 4.3.19 whatever
			// the payload: a cluster at rest reports its own release.
			versions, _, _ := unstructured.NestedSlice(u.Object, "status", "versions")
			for _, v := range versions {
				if m, ok := v.(map[string]any); ok {
					m["version"] = c.hop.CurrentVersion
				}
			}
			if versions != nil {
				_ = unstructured.SetNestedSlice(u.Object, versions, "status", "versions")
			}
		}
		if r, err := RenderObject(u, c.hop.CurrentVersion, c.hop.CurrentComponents); err == nil {
			return r
		}
	} else if u.GetKind() == "Deployment" {
		substituteVersion(u)
	}
	return u
}

// typed is a live object as the CVO that created it wrote it: through
// openshift/api's type (lib/resourcebuilder's typed builder for an SCC,
// pkg/cvo/internal/operatorstatus.go's for a ClusterOperator), whose required
// fields have no omitempty (an SCC's allowedCapabilities,
// defaultAddCapabilities, priority print null; a ClusterOperator's spec
// prints {}). The modern payloads' CRDs require them; the referee's live
// objects leave them out.
func typed(u *unstructured.Unstructured, obj any) *unstructured.Unstructured {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return u
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return u
	}
	out := &unstructured.Unstructured{Object: m}
	out.SetAPIVersion(u.GetAPIVersion())
	out.SetKind(u.GetKind())
	unstructured.RemoveNestedField(out.Object, "metadata", "creationTimestamp")
	return out
}

func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// substituteVersion does to a 4.3 operator Deployment what oc adm release new
// did to the release's manifests: the placeholder version 0.0.1-snapshot in its
// containers' env (RELEASE_VERSION, OPERATOR_IMAGE_VERSION, ...) becomes the
// release's, so the operators run 4.3.19 as a real cluster's do. (The payload
// copies here were never substituted; the 4.4 target is applied as it is.)
func substituteVersion(u *unstructured.Unstructured) {
	for _, field := range []string{"containers", "initContainers"} {
		list, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", field)
		for _, c := range list {
			cm, _ := c.(map[string]any)
			env, _ := cm["env"].([]any)
			for _, e := range env {
				em, _ := e.(map[string]any)
				if v, ok := em["value"].(string); ok && strings.Contains(v, placeholderVersion) {
					em["value"] = strings.ReplaceAll(v, placeholderVersion, CurrentVersion)
				}
			}
		}
		if list != nil {
			_ = unstructured.SetNestedSlice(u.Object, list, "spec", "template", "spec", field)
		}
	}
}

// placeholderVersion is the version component repositories' manifests carry
// until oc adm release new substitutes the release's.
const placeholderVersion = "0.0.1-snapshot"

// MapLoaded makes the referee's cluster-specific values in u this cluster's:
// owner references to the referee's ClusterVersion point at the real one, and a
// CRD's injected conversion caBundle, the referee's stand-in, is the service CA
// (a bare API server never establishes a CRD whose conversion webhook's CA
// bundle is not PEM; on a real cluster service-ca injects a certificate). The
// loaded objects and the test's comparison objects alike.
func (c *Cluster) MapLoaded(u *unstructured.Unstructured) {
	refs := u.GetOwnerReferences()
	for i := range refs {
		if refs[i].UID == c.RefereeUID {
			refs[i].UID = c.OwnerUID
		}
	}
	if refs != nil {
		u.SetOwnerReferences(refs)
	}
	if u.GetKind() == "CustomResourceDefinition" {
		path := []string{"spec", "conversion", "webhook", "clientConfig", "caBundle"}
		if b, ok, _ := unstructured.NestedString(u.Object, path...); ok && b == base64.StdEncoding.EncodeToString([]byte(InjectedCAStandIn)) {
			_ = unstructured.SetNestedField(u.Object, base64.StdEncoding.EncodeToString(c.ServiceCA), path...)
		}
	}
}

// selfSignedCA is a self-signed CA certificate (PEM) named name.
func selfSignedCA(name string) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("the service CA: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// create creates u and writes its status where the kind has a status
// subresource and u carries one (ClusterOperators, operator CRs).
func (c *Cluster) create(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	mapping, err := c.Mapper.Mapping(u.GroupVersionKind())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", KeyOf(u), err)
	}
	var client dynamic.ResourceInterface = c.Dynamic.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		client = c.Dynamic.Resource(mapping.Resource).Namespace(u.GetNamespace())
	}
	created, err := client.Create(ctx, u, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// kubetest's own (its openshift/api CRDs, a namespace): the 4.3
		// cluster's object replaces it.
		existing, gerr := client.Get(ctx, u.GetName(), metav1.GetOptions{})
		if gerr != nil {
			return nil, gerr
		}
		u = u.DeepCopy()
		u.SetResourceVersion(existing.GetResourceVersion())
		if created, err = client.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
			return nil, fmt.Errorf("updating %s: %w", KeyOf(u), err)
		}
	}
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating %s: %w", KeyOf(u), err)
	}
	if st, ok := u.Object["status"].(map[string]any); ok && len(st) > 0 && !strings.HasSuffix(mapping.Resource.Group, "k8s.io") && mapping.Resource.Group != "" && mapping.Resource.Group != "apps" {
		created.Object["status"] = st
		if updated, err := client.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err == nil {
			created = updated
		} else if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("writing the status of %s: %w", KeyOf(u), err)
		}
	}
	c.Loaded[KeyOf(u)] = created
	return created, nil
}

// waitEstablished waits until every CRD is Established, watching them: the
// 4.19 CRDs are some 5 MB of schema, and a list of them all every poll slowed
// the API server that was establishing them.
func (c *Cluster) waitEstablished(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	client := c.Dynamic.Resource(crdsResource)
	pending := map[string]string{}
	for {
		list, err := client.List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing CRDs: %w", err)
		}
		clear(pending)
		for i := range list.Items {
			if why, ok := notEstablished(&list.Items[i]); ok {
				pending[list.Items[i].GetName()] = why
			}
		}
		if len(pending) == 0 {
			return nil
		}
		w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
		if err != nil {
			return fmt.Errorf("watching CRDs: %w", err)
		}
		for open := true; open && len(pending) > 0; {
			select {
			case <-ctx.Done():
				w.Stop()
				var names []string
				for n, why := range pending {
					names = append(names, n+why)
				}
				sort.Strings(names)
				return fmt.Errorf("CRDs not established: %v: %w", names, ctx.Err())
			case ev, ok := <-w.ResultChan():
				u, isObj := ev.Object.(*unstructured.Unstructured)
				switch {
				case !ok:
					open = false // the server ended the watch: list again
				case !isObj:
				case ev.Type == watch.Deleted:
					delete(pending, u.GetName())
				default:
					if why, ok := notEstablished(u); ok {
						pending[u.GetName()] = why
					} else {
						delete(pending, u.GetName())
					}
				}
			}
		}
		w.Stop()
		if len(pending) == 0 {
			return nil
		}
	}
}

// notEstablished says why a CRD is not Established yet (false: it is). Every
// CRD here is established: a conversion webhook's CA bundle, the referee's
// stand-in, is a certificate (MapLoaded).
func notEstablished(crd *unstructured.Unstructured) (string, bool) {
	why := ""
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, cond := range conds {
		m, _ := cond.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return "", false
		}
		if m["status"] != "True" || m["type"] == "NamesAccepted" {
			why += fmt.Sprintf(" %v=%v %v", m["type"], m["status"], m["message"])
		}
	}
	return why, true
}

// clusterFacts writes what the CVO reads besides the objects: the cluster
// proxy's status (the referee's context) and Infrastructure's internal API
// endpoint.
func (c *Cluster) clusterFacts(ctx context.Context, rctx referee.Context) error {
	for _, f := range []struct {
		resource string
		status   map[string]any
	}{
		{"proxies", map[string]any{"httpProxy": rctx.Proxy.HTTPProxy, "httpsProxy": rctx.Proxy.HTTPSProxy, "noProxy": rctx.Proxy.NoProxy}},
		{"infrastructures", map[string]any{"apiServerInternalURI": InternalAPI, "apiServerURL": "https://api.example.com:6443", "platform": "None", "infrastructureName": "example", "etcdDiscoveryDomain": "example.com"}},
	} {
		client := c.Dynamic.Resource(schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: f.resource})
		// Both come from the 4.3 payload (the referee's live objects).
		u, err := client.Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("%s/cluster: %w", f.resource, err)
		}
		u.Object["status"] = f.status
		_, err = client.UpdateStatus(ctx, u, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			// The 4.3 CRD has no status subresource: status is written with
			// the object.
			_, err = client.Update(ctx, u, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("%s/cluster status: %w", f.resource, err)
		}
	}
	return nil
}

// Reconciled models the first incident on the loaded cluster: the 4.3.19 ->
// 4.4.3 update the CVO declared done and reconciled out of order reached one
// operator, whose Deployment (namespace/name) now runs release and whose
// ClusterOperator reports it. A cluster so wedged cannot go back to 4.3.19 (a
// cross-minor downgrade for that operator): recover plans the hop forward.
func (c *Cluster) Reconciled(ctx context.Context, clusterOperator, namespace, name, release string) error {
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	d, err := c.Dynamic.Resource(deployments).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	list, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	for _, ct := range list {
		env, _ := ct.(map[string]any)["env"].([]any)
		for _, e := range env {
			if em := e.(map[string]any); em["name"] == "RELEASE_VERSION" {
				em["value"] = release
			}
		}
	}
	_ = unstructured.SetNestedSlice(d.Object, list, "spec", "template", "spec", "containers")
	if d, err = c.Dynamic.Resource(deployments).Namespace(namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		return err
	}
	c.Loaded[KeyOf(d)] = d
	co, err := c.Dynamic.Resource(clusterOperators).Get(ctx, clusterOperator, metav1.GetOptions{})
	if err != nil {
		return err
	}
	_ = unstructured.SetNestedSlice(co.Object, []any{map[string]any{"name": "operator", "version": release}}, "status", "versions")
	if co, err = c.Dynamic.Resource(clusterOperators).UpdateStatus(ctx, co, metav1.UpdateOptions{}); err != nil {
		return err
	}
	c.Loaded[KeyOf(co)] = co
	// The Deployment rolls out its new template before the snapshot.
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		d, err := c.Dynamic.Resource(deployments).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		gen := d.GetGeneration()
		observed, _, _ := unstructured.NestedInt64(d.Object, "status", "observedGeneration")
		updated, _, _ := unstructured.NestedInt64(d.Object, "status", "updatedReplicas")
		available, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
		return observed == gen && updated >= 1 && available >= 1, nil
	})
}

// Updating models an update the CVO started to release (image) and that moved
// no operator yet: ClusterVersion spec.desiredUpdate and status.desired are the
// target, its history a Partial entry over the Completed current release.
func (c *Cluster) Updating(ctx context.Context, release, image string) error {
	cv, err := c.Dynamic.Resource(clusterVersions).Get(ctx, "version", metav1.GetOptions{})
	if err != nil {
		return err
	}
	_ = unstructured.SetNestedMap(cv.Object, map[string]any{"version": release, "image": image}, "spec", "desiredUpdate")
	if cv, err = c.Dynamic.Resource(clusterVersions).Update(ctx, cv, metav1.UpdateOptions{}); err != nil {
		return err
	}
	history, _, _ := unstructured.NestedSlice(cv.Object, "status", "history")
	started := "2026-12-01T10:00:00Z"
	history = append([]any{map[string]any{"state": "Partial", "version": release, "image": image, "startedTime": started, "completionTime": nil, "verified": false}}, history...)
	_ = unstructured.SetNestedSlice(cv.Object, history, "status", "history")
	_ = unstructured.SetNestedMap(cv.Object, map[string]any{"version": release, "image": image}, "status", "desired")
	_ = unstructured.SetNestedField(cv.Object, cv.GetGeneration(), "status", "observedGeneration")
	_, err = c.Dynamic.Resource(clusterVersions).UpdateStatus(ctx, cv, metav1.UpdateOptions{})
	return err
}
