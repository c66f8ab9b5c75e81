package sim

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/apply/resource"
	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// boundWorkloads finds the must-gather's pods that must stay where they are: pods
// on a node, controlled by a ReplicaSet the must-gather also holds, whose
// controller (if any) is a Deployment it holds. A PodDisruptionBudget's pods are
// such pods: a drain is blocked only on the nodes they run on, so the scheduler
// must not place their replacements anew. It returns the keys of those pods and of
// their ReplicaSets.
//
// They are loaded in an order the real controllers adopt rather than replace: the
// pods first (bound to their nodes, without owners), then their ReplicaSets (the
// ReplicaSet controller adopts the pods its selector matches and creates none
// while they count), then everything else, Deployments among them (the Deployment
// controller adopts the ReplicaSet whose template is its own, pod-template-hash
// aside, and creates no other). Other workload-owned pods and ReplicaSets are left
// to the controllers, as before.
func boundWorkloads(objs []sourcedObject) (pods, replicaSets map[objectKey]bool) {
	present := map[objectKey]*unstructured.Unstructured{}
	for _, o := range objs {
		present[keyOf(o.Object)] = o.Object
	}
	keep := func(u *unstructured.Unstructured) bool {
		ref := controllerRef(u)
		if ref == nil {
			return true
		}
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || ref.Kind != "Deployment" {
			return false
		}
		_, ok := present[objectKey{Group: gv.Group, Kind: ref.Kind, Namespace: u.GetNamespace(), Name: ref.Name}]
		return ok
	}
	pods, replicaSets = map[objectKey]bool{}, map[objectKey]bool{}
	for _, o := range objs {
		u := o.Object
		if u.GetKind() != "Pod" || u.GroupVersionKind().Group != "" {
			continue
		}
		if node, _, _ := unstructured.NestedString(u.Object, "spec", "nodeName"); node == "" {
			continue
		}
		ref := controllerRef(u)
		if ref == nil || ref.Kind != "ReplicaSet" {
			continue
		}
		rsKey := objectKey{Group: "apps", Kind: "ReplicaSet", Namespace: u.GetNamespace(), Name: ref.Name}
		rs, ok := present[rsKey]
		if !ok || !keep(rs) {
			continue
		}
		pods[keyOf(u)] = true
		replicaSets[rsKey] = true
	}
	return pods, replicaSets
}

// controllerRef returns the owner reference marked controller, or nil.
func controllerRef(u *unstructured.Unstructured) *ownerRef {
	for _, ref := range u.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			return &ownerRef{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name}
		}
	}
	return nil
}

type ownerRef struct{ APIVersion, Kind, Name string }

// ensureCRDsFor installs the CRDs the simulator knows how to find for kinds the
// must-gather holds and the API server does not serve: the Machine API, which
// clusters on a cloud (and their CSR approvals) have.
func (s *Sim) ensureCRDsFor(ctx context.Context, objs []sourcedObject) error {
	for _, o := range objs {
		gvk := o.Object.GroupVersionKind()
		if gvk.Group != "machine.openshift.io" || gvk.Kind != "Machine" {
			continue
		}
		_, err := s.mapper.Mapping(gvk)
		var unknown *resource.UnknownKindError
		if !errors.As(err, &unknown) {
			return nil
		}
		if err := kubetest.InstallMachineCRD(ctx, s.restConfig()); err != nil {
			return fmt.Errorf("installing the Machine CRD for %s: %w", o.Path, err)
		}
		s.mapper.Reset()
		return nil
	}
	return nil
}
