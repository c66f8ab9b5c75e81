package resource

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/openshift-recover/recover/internal/testing/applytest"
)

// An operator writing its object between recover's read and its dry run
// must not surface as an error: the dry run is re-merged and retried.
func TestPrepareRetriesADryRunThatConflicts(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "x.io", Version: "v1", Resource: "widgets"}
	live := applytest.Object(`{apiVersion: x.io/v1, kind: Widget, metadata: {name: kube-apiserver, resourceVersion: "7"}, spec: {a: 1}}`)
	scheme := runtime.NewScheme()
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{gvr: "WidgetList"}, live)
	conflicts := 2
	dryRuns := 0
	client.PrependReactor("update", "widgets", func(action k8stesting.Action) (bool, runtime.Object, error) {
		dryRuns++
		if conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(gvr.GroupResource(), "kube-apiserver", nil)
		}
		// A dry run: the object is returned, not stored.
		return true, action.(k8stesting.UpdateAction).GetObject(), nil
	})
	a := &Applier{dynamic: client, owner: Owner("cv-uid")}
	c := &Change{
		Mapping:  &meta.RESTMapping{Resource: gvr, Scope: meta.RESTScopeRoot},
		Name:     "kube-apiserver",
		manifest: applytest.Object(`{apiVersion: x.io/v1, kind: Widget, metadata: {name: kube-apiserver}, spec: {a: 2}}`),
		facts:    Facts{Owner: Owner("cv-uid")},
	}
	if err := a.prepareRetrying(context.Background(), c); err != nil {
		t.Fatalf("two conflicts then success must prepare cleanly, got %v", err)
	}
	if dryRuns != 3 || c.Operation != OpUpdate {
		t.Fatalf("want 3 dry runs ending in an update, got %d runs, operation %q", dryRuns, c.Operation)
	}

	conflicts = 100
	if err := a.prepareRetrying(context.Background(), c); !apierrors.IsConflict(err) {
		t.Fatalf("a conflict that never clears must be reported, got %v", err)
	}
}
