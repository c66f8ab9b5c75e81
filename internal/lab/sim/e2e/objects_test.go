package e2e_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift-recover/recover/apply/lock"
	"github.com/openshift-recover/recover/internal/testing/faultproxy"
)

// What recover changed, checked against the audit: every object a run wrote is
// read before the plan is made and after the run, without its status and the
// metadata the API server keeps (resourceVersion, generation, managedFields, uid,
// creationTimestamp); the two must be equal but for the remedy's intended effect.

// objectPath is an object's API path, as the audit logs it.
type objectPath string

// The objects the remediation plans change.
const (
	cvoDeployment objectPath = "/apis/apps/v1/namespaces/openshift-cluster-version/deployments/cluster-version-operator"
	deckPDB       objectPath = "/apis/policy/v1/namespaces/ci/poddisruptionbudgets/deck"
	masterPool    objectPath = "/apis/machineconfiguration.openshift.io/v1/machineconfigpools/master"
	kubeAPIServer objectPath = "/apis/operator.openshift.io/v1/kubeapiservers/cluster"
	adminAcks     objectPath = "/api/v1/namespaces/openshift-config/configmaps/admin-acks"
)

func csrPath(name string) objectPath {
	return objectPath("/apis/certificates.k8s.io/v1/certificatesigningrequests/" + name)
}

// object reads the object at path, without status and server-kept metadata.
func (c *cluster) object(path objectPath) map[string]any {
	c.t.Helper()
	data, err := kubernetes.NewForConfigOrDie(c.cfg).Discovery().RESTClient().Get().AbsPath(string(path)).DoRaw(c.ctx)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		c.t.Fatal(err)
	}
	delete(obj, "status")
	if md, ok := obj["metadata"].(map[string]any); ok {
		for _, k := range []string{"resourceVersion", "generation", "managedFields", "uid", "creationTimestamp"} {
			delete(md, k)
		}
	}
	return obj
}

// objects reads every object of paths.
func (c *cluster) objects(paths ...objectPath) map[objectPath]map[string]any {
	c.t.Helper()
	out := map[objectPath]map[string]any{}
	for _, p := range paths {
		out[p] = c.object(p)
	}
	return out
}

// written are the objects an audit log shows the cluster changed (a write to a
// subresource counts for its object), with the number of writes each.
func written(log []faultproxy.Entry) map[objectPath]int {
	out := map[objectPath]int{}
	for _, w := range writes(log) {
		path := strings.SplitN(w, " ", 2)[1]
		for _, sub := range []string{"/status", "/approval", "/scale"} {
			path = strings.TrimSuffix(path, sub)
		}
		out[objectPath(path)]++
	}
	return out
}

// assertChangedOnly checks that recover wrote only the objects of before and
// that each is now as it was, but for what intended makes of it (the remedy's
// lasting effect; nil: none).
func (c *cluster) assertChangedOnly(log []faultproxy.Entry, before map[objectPath]map[string]any, intended map[objectPath]func(map[string]any)) {
	c.t.Helper()
	w := written(log)
	var paths []string
	for p := range w {
		paths = append(paths, string(p))
	}
	sort.Strings(paths)
	for _, p := range paths {
		if _, ok := before[objectPath(p)]; !ok {
			c.t.Errorf("recover wrote %s (%d times), which the remedy has no reason to change; writes: %v", p, w[objectPath(p)], writes(log))
		}
	}
	lease := "/apis/coordination.k8s.io/v1/namespaces/" + lock.Namespace + "/leases/" + lock.Name
	if _, err := dynamic.NewForConfigOrDie(c.cfg).Resource(coordinationv1.SchemeGroupVersion.WithResource("leases")).Namespace(lock.Namespace).Get(c.ctx, lock.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		c.t.Errorf("the apply lock %s is still there after the run (%v)", lease, err)
	}
	for p, was := range before {
		want := deepCopy(was)
		if f := intended[p]; f != nil {
			f(want)
		}
		if p == cvoDeployment {
			// Restored, the CVO reconciles its own Deployment from its
			// payload (the simulator's as the real one's): only the replicas
			// are recover's.
			if got := field(c.object(p), "spec.replicas"); !reflect.DeepEqual(got, field(want, "spec.replicas")) {
				c.t.Errorf("the CVO's replicas after the run: %v, want %v as before the plan", got, field(want, "spec.replicas"))
			}
			continue
		}
		if got := c.object(p); !reflect.DeepEqual(got, want) {
			c.t.Errorf("%s after the run differs from before the plan (but for the remedy's intended effect):\n got %s\nwant %s", p, js(got), js(want))
		}
	}
}

func deepCopy(m map[string]any) map[string]any {
	data, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

func js(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// field returns obj's value at a dotted path.
func field(obj map[string]any, path string) any {
	var cur any = obj
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// setField sets obj's value at a dotted path, creating maps on the way.
func setField(obj map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	cur := obj
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[keys[len(keys)-1]] = v
}
