package realpayload

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
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Key names an object across payloads and the cluster: group, kind, namespace
// and name.
type Key struct{ Group, Kind, Namespace, Name string }

// KeyOf is u's Key.
func KeyOf(u *unstructured.Unstructured) Key {
	gvk := u.GroupVersionKind()
	return Key{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
}

func (k Key) String() string {
	if k.Namespace == "" {
		return fmt.Sprintf("%s.%s %s", k.Kind, k.Group, k.Name)
	}
	return fmt.Sprintf("%s.%s %s/%s", k.Kind, k.Group, k.Namespace, k.Name)
}

// Restated are the objects Served restated in a served API version.
type Restated map[Key]string

// Served copies the payload directory src to dst, restating the manifests whose
// API version today's API server no longer serves (Restate). Files holding Go
// templates (the CVO's own Deployment) are copied as they are.
func Served(src, dst string) (Restated, error) {
	return ServedRendered(src, dst, "", nil)
}

// ServedRendered is Served of a payload rendered for release as oc adm release
// new renders it (Render); release "" leaves the placeholders.
func ServedRendered(src, dst, release string, components map[string]string) (Restated, error) {
	restated := Restated{}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if release != "" && isManifest(rel) {
			data = Render(data, release, components)
		}
		if isManifest(rel) && !bytes.Contains(data, []byte("{{")) {
			if data, err = restateFile(data, restated); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
		}
		return os.WriteFile(out, data, 0o644)
	})
	return restated, err
}

func isManifest(rel string) bool {
	dir := filepath.Dir(rel)
	ext := filepath.Ext(rel)
	return (dir == "manifests" || dir == "release-manifests") && (ext == ".yaml" || ext == ".yml" || ext == ".json")
}

// restateFile rewrites a manifest file whose documents need restating, document
// by document in order; other files are returned as they are.
func restateFile(data []byte, restated Restated) ([]byte, error) {
	docs, err := Documents(data)
	if err != nil {
		return nil, err
	}
	changed := false
	for i, u := range docs {
		if r, why := Restate(u); why != "" {
			docs[i], changed = r, true
			restated[KeyOf(u)] = why
		}
	}
	if !changed {
		return data, nil
	}
	var b bytes.Buffer
	for _, u := range docs {
		y, err := yaml.Marshal(u.Object)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.Bytes(), nil
}

// Documents decodes every non-empty document of a YAML or JSON stream.
func Documents(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{}
		raw, err := yaml.Marshal(m)
		if err != nil {
			return nil, err
		}
		j, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, err
		}
		if err := u.UnmarshalJSON(j); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
}

// Restate returns u in the API version today's API server serves, and why
// ("" when u needs nothing).
func Restate(u *unstructured.Unstructured) (*unstructured.Unstructured, string) {
	switch av, kind := u.GetAPIVersion(), u.GetKind(); {
	case av == "apiextensions.k8s.io/v1beta1" && kind == "CustomResourceDefinition":
		return crdV1(u), "apiextensions.k8s.io/v1beta1 is no longer served: restated as a v1 CRD that accepts any content"
	case av == "rbac.authorization.k8s.io/v1beta1":
		out := u.DeepCopy()
		out.SetAPIVersion("rbac.authorization.k8s.io/v1")
		return out, "rbac.authorization.k8s.io/v1beta1 is no longer served: restated as v1"
	case av == "policy/v1beta1" && kind == "PodDisruptionBudget":
		out := u.DeepCopy()
		out.SetAPIVersion("policy/v1")
		return out, "policy/v1beta1 is no longer served: restated as v1"
	}
	return u, ""
}

// crdV1 restates a v1beta1 CRD as v1: its names, scope, versions and
// subresources, every version's schema accepting any content.
func crdV1(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}}
	if md, ok := u.Object["metadata"]; ok {
		out.Object["metadata"] = runtimeCopy(md)
	}
	spec, _ := u.Object["spec"].(map[string]any)
	subresources, _ := spec["subresources"].(map[string]any)
	var versions []any
	if vs, ok := spec["versions"].([]any); ok && len(vs) > 0 {
		for _, v := range vs {
			vm, _ := v.(map[string]any)
			versions = append(versions, crdVersion(vm["name"], vm["served"], vm["storage"], firstMap(vm["subresources"], subresources)))
		}
	} else {
		versions = append(versions, crdVersion(spec["version"], true, true, subresources))
	}
	scope, _ := spec["scope"].(string)
	if scope == "" {
		scope = "Namespaced" // the v1beta1 default (some payload CRDs say scope: "")
	}
	out.Object["spec"] = map[string]any{
		"group":    spec["group"],
		"names":    runtimeCopy(spec["names"]),
		"scope":    scope,
		"versions": versions,
	}
	return out
}

func crdVersion(name, served, storage any, subresources map[string]any) map[string]any {
	v := map[string]any{
		"name": name, "served": served, "storage": storage,
		"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
	}
	if len(subresources) > 0 {
		v["subresources"] = runtimeCopy(subresources)
	}
	return v
}

func firstMap(a any, b map[string]any) map[string]any {
	if m, ok := a.(map[string]any); ok && len(m) > 0 {
		return m
	}
	return b
}

func runtimeCopy(v any) any {
	return (&unstructured.Unstructured{Object: map[string]any{"v": v}}).DeepCopy().Object["v"]
}

// PermissiveCRD is a v1 CRD serving group/version kind (plural: the lower-case
// kind plus "s", or plural) with any content and a status subresource.
func PermissiveCRD(group, version, kind, plural string, namespaced bool) *unstructured.Unstructured {
	if plural == "" {
		plural = strings.ToLower(kind) + "s"
	}
	scope := "Cluster"
	if namespaced {
		scope = "Namespaced"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "scope": scope,
			"names":    map[string]any{"kind": kind, "listKind": kind + "List", "plural": plural, "singular": strings.ToLower(kind)},
			"versions": []any{crdVersion(version, true, true, map[string]any{"status": map[string]any{}})},
		},
	}}
}

// CRDs returns the CustomResourceDefinitions of a payload directory.
func CRDs(dir string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, sub := range []string{"manifests", "release-manifests"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !isManifest(filepath.Join(sub, e.Name())) {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, sub, e.Name()))
			if err != nil {
				return nil, err
			}
			if bytes.Contains(data, []byte("{{")) {
				continue
			}
			docs, err := Documents(data)
			if err != nil {
				return nil, fmt.Errorf("%s/%s: %w", sub, e.Name(), err)
			}
			for _, u := range docs {
				if u.GetKind() == "CustomResourceDefinition" {
					out = append(out, u)
				}
			}
		}
	}
	return out, nil
}
