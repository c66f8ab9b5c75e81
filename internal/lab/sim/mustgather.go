package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// objectKey identifies an object across files.
type objectKey struct {
	Group, Kind, Namespace, Name string
}

func keyOf(u *unstructured.Unstructured) objectKey {
	gvk := u.GroupVersionKind()
	return objectKey{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

func (k objectKey) String() string {
	kind := k.Kind
	if k.Group != "" {
		kind += "." + k.Group
	}
	if k.Namespace != "" {
		return kind + " " + k.Namespace + "/" + k.Name
	}
	return kind + " " + k.Name
}

// sourcedObject is an object with the file it came from.
type sourcedObject struct {
	Object *unstructured.Unstructured
	Path   string
}

// ReadMustGather reads every Kubernetes object under dir, a directory in
// `oc adm inspect` layout: cluster-scoped-resources/<group>/<resource>/<name>.yaml,
// namespaces/<ns>/<ns>.yaml, namespaces/<ns>/<group>/<resource>.yaml (lists) and
// namespaces/<ns>/<group>/<resource>/<name>.yaml ("core" is the core group). It
// reads every .yaml, .yml and .json file, whatever its place, expands lists, and
// keeps the first copy of an object that appears twice (a pod in both pods.yaml and
// pods/<name>/<name>.yaml). Events are left out. Files that hold no object (empty,
// or YAML without apiVersion and kind) are skipped; files that are not valid YAML
// are errors.
func ReadMustGather(dir string) ([]*unstructured.Unstructured, error) {
	objs, err := readObjects(dir)
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		out[i] = o.Object
	}
	return out, nil
}

func readObjects(dir string) ([]sourcedObject, error) {
	if err := isDir(dir); err != nil {
		return nil, &ScenarioError{Path: dir, Err: fmt.Errorf("must-gather: %w", err)}
	}
	var out []sourcedObject
	seen := map[objectKey]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		objs, err := decodeFile(path)
		if err != nil {
			return &ScenarioError{Path: path, Err: err}
		}
		for _, o := range objs {
			if o.GetKind() == "Event" {
				continue
			}
			k := keyOf(o)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, sourcedObject{Object: o, Path: path})
		}
		return nil
	})
	if err != nil {
		var se *ScenarioError
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, &ScenarioError{Path: dir, Err: err}
	}
	return out, nil
}

// decodeFile decodes every document of a YAML or JSON file, expanding lists.
func decodeFile(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("document %d is not valid YAML or JSON: %w", doc, err)
		}
		if m == nil {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			continue
		}
		if !u.IsList() {
			out = append(out, u)
			continue
		}
		items, err := listItems(u)
		if err != nil {
			return nil, fmt.Errorf("document %d (%s): %w", doc, u.GetKind(), err)
		}
		out = append(out, items...)
	}
}

// listItems expands a List, giving items without apiVersion/kind those of the list
// (DeploymentList items are Deployments).
func listItems(list *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	raw, _, err := unstructured.NestedSlice(list.Object, "items")
	if err != nil {
		return nil, err
	}
	itemGVK := schema.FromAPIVersionAndKind(list.GetAPIVersion(), strings.TrimSuffix(list.GetKind(), "List"))
	var out []*unstructured.Unstructured
	for i, it := range raw {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("items[%d] is not an object", i)
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "" {
			if itemGVK.Kind == "" || list.GetKind() == "List" {
				return nil, fmt.Errorf("items[%d] has no kind", i)
			}
			u.SetGroupVersionKind(itemGVK)
		}
		out = append(out, u)
	}
	return out, nil
}
