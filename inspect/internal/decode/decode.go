package decode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/bounded"
)

// Doc is one object read from a file.
type Doc struct {
	// Path is the file; Line the 1-based line where the document starts.
	Path string
	Line int
	// APIVersion and Kind are the object's, "" when the document has none (the
	// Insights operator writes some objects without them).
	APIVersion string
	Kind       string
	// JSON is the object as JSON.
	JSON []byte
}

type typeMeta struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []json.RawMessage `json:"items"`
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// Documents splits a YAML or JSON file into its objects; List kinds (List,
// PodList, ...) are expanded into their items. An empty file has no documents.
func Documents(path string, data []byte) ([]Doc, error) {
	var out []Doc
	for _, part := range splitYAML(data) {
		js, err := toJSON(part.data)
		if err != nil {
			line := part.line
			if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
				n, _ := strconv.Atoi(m[1])
				line += n - 1
			}
			return nil, &inspect.InputError{Path: path, Line: line, Err: fmt.Errorf("malformed YAML/JSON: %s", trimYAMLError(err))}
		}
		if len(bytes.TrimSpace(js)) == 0 || string(bytes.TrimSpace(js)) == "null" {
			continue
		}
		var tm typeMeta
		if err := json.Unmarshal(js, &tm); err != nil {
			return nil, &inspect.InputError{Path: path, Line: part.line, Err: fmt.Errorf("not a Kubernetes object: %v", err)}
		}
		if strings.HasSuffix(tm.Kind, "List") && tm.Items != nil {
			for i, item := range tm.Items {
				var im typeMeta
				if err := json.Unmarshal(item, &im); err != nil {
					return nil, &inspect.InputError{Path: path, Line: part.line, Err: fmt.Errorf("items[%d] is not a Kubernetes object: %v", i, err)}
				}
				kind := im.Kind
				if kind == "" && tm.Kind != "List" {
					kind = strings.TrimSuffix(tm.Kind, "List")
				}
				out = append(out, Doc{Path: path, Line: part.line, APIVersion: im.APIVersion, Kind: kind, JSON: item})
			}
			continue
		}
		out = append(out, Doc{Path: path, Line: part.line, APIVersion: tm.APIVersion, Kind: tm.Kind, JSON: js})
	}
	return out, nil
}

func trimYAMLError(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "error converting YAML to JSON: ")
	return s
}

type yamlPart struct {
	line int
	data []byte
}

// splitYAML splits multi-document YAML on "---" lines, keeping each document's
// first line number. JSON input is one document.
func splitYAML(data []byte) []yamlPart {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return []yamlPart{{line: 1, data: data}}
	}
	var parts []yamlPart
	line, startLine := 1, 1
	lines := bytes.SplitAfter(data, []byte("\n"))
	var cur bytes.Buffer
	for _, l := range lines {
		t := bytes.TrimRight(l, " \t\r\n")
		if bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- ")) {
			parts = append(parts, yamlPart{line: startLine, data: append([]byte(nil), cur.Bytes()...)})
			cur.Reset()
			line++
			startLine = line
			continue
		}
		cur.Write(l)
		line++
	}
	parts = append(parts, yamlPart{line: startLine, data: cur.Bytes()})
	return parts
}

func toJSON(data []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if !json.Valid(trimmed) {
			var v any
			err := json.Unmarshal(trimmed, &v)
			return nil, jsonSyntaxError(trimmed, err)
		}
		return trimmed, nil
	}
	return yaml.YAMLToJSON(data)
}

// jsonSyntaxError reports a JSON syntax error with its line.
func jsonSyntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if e, ok := err.(*json.SyntaxError); ok {
		se = e
	}
	if se == nil {
		return err
	}
	line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
	return fmt.Errorf("line %d: %v", line, se)
}

// Add decodes a document into the API type of its kind (or want, when it has no
// kind) and feeds it to the builder. It returns the resource the object counts
// for and false for kinds inspect does not read. A document whose kind
// contradicts want is an error.
func Add(b *inspect.Builder, d Doc, want string) (inspect.Resource, bool, error) {
	kind := d.Kind
	if kind == "" {
		kind = want
	}
	if want != "" && kind != want {
		return inspect.Resource{}, false, &inspect.InputError{Path: d.Path, Line: d.Line, Err: fmt.Errorf("expected a %s here, found kind %q", want, kind)}
	}
	fail := func(err error) (inspect.Resource, bool, error) {
		return inspect.Resource{}, false, &inspect.InputError{Path: d.Path, Line: d.Line, Err: fmt.Errorf("invalid %s: %v", kind, err)}
	}
	switch kind {
	case "ClusterVersion":
		var o configv1.ClusterVersion
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.SetClusterVersion(&o)
		return inspect.ResClusterVersions, true, nil
	case "ClusterOperator":
		var o configv1.ClusterOperator
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		if o.Name == "" {
			return fail(fmt.Errorf("metadata.name is empty"))
		}
		b.AddClusterOperator(&o)
		return inspect.ResClusterOperators, true, nil
	case "FeatureGate":
		var o configv1.FeatureGate
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.SetFeatureGate(&o)
		return inspect.ResFeatureGates, true, nil
	case "Infrastructure":
		var o configv1.Infrastructure
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.SetInfrastructure(&o)
		return inspect.ResInfrastructures, true, nil
	case "KubeAPIServer":
		var o operatorv1.KubeAPIServer
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.SetStaticPodOperator(inspect.ResKubeAPIServers.Resource, o.ObjectMeta, o.Spec.StaticPodOperatorSpec, o.Status.StaticPodOperatorStatus)
		return inspect.ResKubeAPIServers, true, nil
	case "KubeControllerManager":
		var o operatorv1.KubeControllerManager
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.SetStaticPodOperator(inspect.ResKubeControllerManagers.Resource, o.ObjectMeta, o.Spec.StaticPodOperatorSpec, o.Status.StaticPodOperatorStatus)
		return inspect.ResKubeControllerManagers, true, nil
	case "KubeScheduler":
		var o operatorv1.KubeScheduler
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.SetStaticPodOperator(inspect.ResKubeSchedulers.Resource, o.ObjectMeta, o.Spec.StaticPodOperatorSpec, o.Status.StaticPodOperatorStatus)
		return inspect.ResKubeSchedulers, true, nil
	case "Etcd":
		var o operatorv1.Etcd
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.SetStaticPodOperator(inspect.ResEtcds.Resource, o.ObjectMeta, o.Spec.StaticPodOperatorSpec, o.Status.StaticPodOperatorStatus)
		return inspect.ResEtcds, true, nil
	case "MachineConfigPool":
		var o mcfgv1.MachineConfigPool
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.AddMachineConfigPool(&o)
		return inspect.ResMachineConfigPools, true, nil
	case "MachineConfig":
		var o struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.AddMachineConfig(&o.Metadata)
		return inspect.ResMachineConfigs, true, nil
	case "Node":
		var o corev1.Node
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		if o.Name == "" {
			return fail(fmt.Errorf("metadata.name is empty"))
		}
		b.AddNode(&o)
		return inspect.ResNodes, true, nil
	case "Pod":
		var o corev1.Pod
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.AddPod(&o)
		return inspect.ResPods, true, nil
	case "Deployment":
		var o appsv1.Deployment
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			return fail(err)
		}
		b.AddDeployment(&o)
		return inspect.ResDeployments, true, nil
	}
	return addWedge(b, d, kind, fail)
}

// Namespace returns a document's metadata.namespace.
func Namespace(d Doc) string {
	var o struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(d.JSON, &o)
	return o.Metadata.Namespace
}

// Files decodes files of fsys (named relative to it, shown as display/<name> in
// errors) into the builder and returns how many objects inspect reads were found;
// want is the kind a document without one is taken to be. A file is refused
// above MaxFileBytes and counted against budget (nil counts nothing); one above
// MaxDocumentBytes is decoded object by object (Stream), so memory stays bounded
// by the largest object.
func Files(ctx context.Context, b *inspect.Builder, fsys fs.FS, display string, files []string, want string, budget *Budget) (int, error) {
	n := 0
	add := func(d Doc) error {
		_, ok, err := Add(b, d, want)
		if ok {
			n++
		}
		return err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		shown := path.Join(display, f)
		if err := decodeFile(fsys, f, shown, budget, add); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Each decodes one file of fsys (shown as shown in errors) and hands fn each of
// its objects, with the bounds of Files.
func Each(fsys fs.FS, name, shown string, budget *Budget, fn func(Doc) error) error {
	return decodeFile(fsys, name, shown, budget, fn)
}

// decodeFile decodes one file: whole when it is small, object by object when not.
func decodeFile(fsys fs.FS, name, shown string, budget *Budget, fn func(Doc) error) error {
	fh, err := fsys.Open(name)
	if err != nil {
		return &inspect.InputError{Path: shown, Err: err}
	}
	defer fh.Close()
	size := int64(-1)
	if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	if size > MaxFileBytes {
		return &inspect.InputError{Path: shown, Err: &bounded.LimitError{Limit: MaxFileBytes}}
	}
	if size >= 0 && size <= MaxDocumentBytes {
		if err := budget.charge(shown, size); err != nil {
			return err
		}
		data, err := bounded.ReadAll(fh, name, MaxDocumentBytes)
		if err != nil {
			return &inspect.InputError{Path: shown, Err: unwrapPath(err)}
		}
		docs, err := Documents(shown, data)
		if err != nil {
			return err
		}
		for _, d := range docs {
			if err := fn(d); err != nil {
				return err
			}
		}
		return nil
	}
	// Large (or not a regular file, whose size is known only once read): count
	// and cap what is read as it is read.
	cr := &bounded.Counter{R: io.LimitReader(fh, MaxFileBytes+1)}
	err = Stream(shown, cr, fn)
	if cr.N > MaxFileBytes {
		return &inspect.InputError{Path: shown, Err: &bounded.LimitError{Limit: MaxFileBytes}}
	}
	if err != nil {
		var ie *inspect.InputError
		if errors.As(err, &ie) {
			return err
		}
		return &inspect.InputError{Path: shown, Err: err}
	}
	return budget.charge(shown, cr.N)
}

// unwrapPath returns the error inside an *fs.PathError (the InputError names the
// file already).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// PodNodes maps the pods of the given files to the nodes they run on (the pod
// objects' spec.nodeName), with the bounds of Files: the node of a log's pod.
func PodNodes(fsys fs.FS, display string, files []string, budget *Budget) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range files {
		err := decodeFile(fsys, f, path.Join(display, f), budget, func(d Doc) error {
			var p struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
				Spec struct {
					NodeName string `json:"nodeName"`
				} `json:"spec"`
			}
			if json.Unmarshal(d.JSON, &p) == nil && p.Spec.NodeName != "" {
				out[p.Metadata.Name] = p.Spec.NodeName
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
