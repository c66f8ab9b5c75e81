package resource

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// registerPartial adds a kind the CVO merges with a Go type recover does not
// import (OpenShift's SecurityContextConstraints and ImageStream, whose
// packages pull in gogo/protobuf, and OLM's OperatorGroup): T holds the fields
// the CVO's merge touches, with the JSON names and omitempty of the real type;
// they are read from the object (at is the path of the part they live in: nil
// for the top level, "spec" for the spec), merged with ensure, and written
// back, every other field staying the live object's. Metadata is merged as for
// every kind (ensureObjectMeta). keys are T's JSON names.
func registerPartial[T any](gvk schema.GroupVersionKind, at []string, keys []string, ensure func(modified *bool, e *T, r T)) {
	typedRules[gvk] = kindRule{
		create: func(required *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			// The CVO creates its typed object: the part is written as
			// the Go type prints it.
			var r T
			if err := readPart(required, at, &r); err != nil {
				return nil, err
			}
			out := required.DeepCopy()
			return out, writePart(out, at, keys, &r)
		},
		update: func(required, live *unstructured.Unstructured) (*unstructured.Unstructured, bool, error) {
			var r, e T
			if err := readPart(required, at, &r); err != nil {
				return nil, false, err
			}
			if err := readPart(live, at, &e); err != nil {
				return nil, false, fmt.Errorf("reading the live object: %w", err)
			}
			out := live.DeepCopy()
			em, err := metaOf(out)
			if err != nil {
				return nil, false, err
			}
			rm, err := metaOf(required)
			if err != nil {
				return nil, false, err
			}
			modified := false
			ensureObjectMeta(&modified, &em, rm)
			ensure(&modified, &e, r)
			if err := setMeta(out, em); err != nil {
				return nil, false, err
			}
			return out, modified, writePart(out, at, keys, &e)
		},
	}
}

func readPart(u *unstructured.Unstructured, at []string, into any) error {
	m := u.Object
	if len(at) > 0 {
		m, _, _ = unstructured.NestedMap(u.Object, at...)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, into); err != nil {
		return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
	}
	return nil
}

func writePart(u *unstructured.Unstructured, at []string, keys []string, part any) error {
	enc, err := runtime.DefaultUnstructuredConverter.ToUnstructured(part)
	if err != nil {
		return err
	}
	target := u.Object
	if len(at) > 0 {
		m, _, _ := unstructured.NestedMap(u.Object, at...)
		if m == nil {
			m = map[string]any{}
		}
		target = m
		defer func() { _ = unstructured.SetNestedMap(u.Object, target, at...) }()
	}
	for _, k := range keys {
		if v, ok := enc[k]; ok {
			target[k] = v
		} else {
			delete(target, k)
		}
	}
	return nil
}

// metaOf and setMeta move an object's metadata through metav1.ObjectMeta.
func metaOf(u *unstructured.Unstructured) (metav1.ObjectMeta, error) {
	var m metav1.ObjectMeta
	raw, _ := u.Object["metadata"].(map[string]any)
	if raw == nil {
		return m, nil
	}
	return m, fromUnstructured(&unstructured.Unstructured{Object: raw}, &m)
}

func setMeta(u *unstructured.Unstructured, m metav1.ObjectMeta) error {
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&m)
	if err != nil {
		return err
	}
	if raw["creationTimestamp"] == nil {
		delete(raw, "creationTimestamp")
	}
	u.Object["metadata"] = raw
	return nil
}
