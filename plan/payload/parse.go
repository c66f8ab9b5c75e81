package payload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift-recover/recover/internal/openshift"
)

// reRunLevel is the CVO's file-name pattern (pkg/payload/task_graph.go): group 1 is
// the run-level, group 2 the dash-separated component.
var reRunLevel = regexp.MustCompile(`^0000_(\d+)_([a-zA-Z0-9]+(-[a-zA-Z0-9]+)*?)_`)

// ParseFileName returns the run-level and component of a payload file name, and
// false when the name does not match the CVO's pattern.
func ParseFileName(name string) (runLevel, component string, ok bool) {
	m := reRunLevel.FindStringSubmatch(name)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// hasManifestExtension is the CVO's filter.
func hasManifestExtension(name string) bool {
	switch {
	case strings.HasSuffix(name, ".yaml"), strings.HasSuffix(name, ".yml"), strings.HasSuffix(name, ".json"):
		return true
	}
	return false
}

// document is one raw document of a file and the line it starts on.
type document struct {
	data []byte
	line int
}

// splitYAML splits a YAML stream on "---" lines, as apimachinery's YAMLReader does
// (a line starting with "---" followed by nothing but blanks or a comment).
func splitYAML(data []byte) []document {
	var docs []document
	start, startLine, line := 0, 1, 1
	for pos := 0; pos <= len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data) + 1
		if end >= 0 {
			end += pos
			next = end + 1
		} else {
			end = len(data)
		}
		l := data[pos:end]
		if bytes.HasPrefix(l, []byte("---")) {
			rest := strings.TrimSpace(string(l[3:]))
			if rest == "" || rest[0] == '#' {
				docs = append(docs, document{data: data[start:pos], line: startLine})
				start, startLine = next, line+1
				if start > len(data) {
					start = len(data)
				}
			}
		}
		pos = next
		line++
	}
	if start < len(data) {
		docs = append(docs, document{data: data[start:], line: startLine})
	}
	// The bytes of each document are the ones apimachinery's YAMLReader hands
	// the YAML parser, which the CVO reads payloads with (library-go
	// pkg/manifest ParseManifests: yaml.NewYAMLOrJSONDecoder): its LineReader
	// ends every line with one '\n', a "\r\n" too and the last line of a file
	// that has none. The difference shows in a block scalar that keeps its
	// final line break (|+) at the end of such a file (the 4.20 insights
	// operator's kube-rbac-proxy ConfigMap).
	for i := range docs {
		d := docs[i].data
		if bytes.Contains(d, []byte("\r\n")) {
			d = bytes.ReplaceAll(d, []byte("\r\n"), []byte("\n"))
		}
		if len(d) > 0 && d[len(d)-1] != '\n' {
			d = append(d[:len(d):len(d)], '\n')
		}
		docs[i].data = d
	}
	return docs
}

var yamlErrLine = regexp.MustCompile(`line (\d+)`)

// decodedDoc is one document of a file: its compact JSON and, for YAML, the
// object already decoded (nil: decode JSON).
type decodedDoc struct {
	j    []byte
	obj  map[string]any
	line int
}

// decodeFile parses every document of one payload file into manifests.
func decodeFile(dir, file string, data []byte) ([]*Manifest, error) {
	path := dir + "/" + file
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	isJSON := strings.HasSuffix(file, ".json") || bytes.HasPrefix(trimmed, []byte("{"))
	var docs []decodedDoc
	if isJSON {
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var raw json.RawMessage
			off := dec.InputOffset()
			if err := dec.Decode(&raw); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				ie := &InputError{Path: path, Msg: "malformed JSON: " + err.Error(), Err: err}
				var syn *json.SyntaxError
				if errors.As(err, &syn) {
					ie.Line = bytes.Count(data[:min(int(syn.Offset), len(data))], []byte{'\n'}) + 1
				}
				return nil, ie
			}
			docs = append(docs, decodedDoc{j: raw, line: bytes.Count(data[:off], []byte{'\n'}) + 1 + leadingNewlines(data[off:])})
		}
	} else {
		for _, d := range splitYAML(data) {
			line := d.line + leadingBlank(d.data)
			j, obj, err := decodeYAMLDocument(d.data)
			var notObj *notObjectError
			if errors.As(err, &notObj) {
				// Reported in document order after every document parsed, as before.
				docs = append(docs, decodedDoc{j: j, line: line})
				continue
			}
			if err != nil {
				msg := strings.TrimPrefix(err.Error(), "yaml: ")
				line := d.line
				if m := yamlErrLine.FindStringSubmatchIndex(msg); m != nil {
					n, _ := strconv.Atoi(msg[m[2]:m[3]])
					line = d.line + n - 1
					msg = strings.TrimLeft(msg[:m[0]]+msg[m[1]:], ": ")
				}
				ie := &InputError{Path: path, Line: line, Msg: "malformed YAML: " + msg, Err: err}
				return nil, ie
			}
			docs = append(docs, decodedDoc{j: j, obj: obj, line: line})
		}
	}
	var out []*Manifest
	seen := map[string]int{}
	for _, d := range docs {
		j := bytes.TrimSpace(d.j)
		if len(j) == 0 || bytes.Equal(j, []byte("null")) {
			continue
		}
		obj := d.obj
		if obj == nil {
			if err := json.Unmarshal(j, &obj); err != nil {
				return nil, &InputError{Path: path, Line: d.line, Msg: "a manifest must be an object: " + err.Error(), Err: err}
			}
		}
		m, err := newManifest(dir, file, len(out), d.line, j, obj)
		if err != nil {
			return nil, err
		}
		id := m.Group + "|" + m.Kind + "|" + m.Namespace + "|" + m.Name
		if j, dup := seen[id]; dup {
			return nil, &InputError{Path: path, Line: m.Line, Msg: fmt.Sprintf("duplicate resource %s (also document %d)", m.Ref(), j), Hint: "library-go refuses a file that declares one object twice"}
		}
		seen[id] = m.Index
		out = append(out, m)
	}
	return out, nil
}

// newManifest makes the manifest of one decoded document (obj decoded from j) and
// checks what every manifest needs: kind, name, a valid apiVersion and valid apply
// annotations. The decoded-payload cache rebuilds manifests with it too.
func newManifest(dir, file string, index, line int, j []byte, obj map[string]any) (*Manifest, error) {
	path := dir + "/" + file
	u := &unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	m := &Manifest{
		Dir: dir, File: file, Index: index, Line: line,
		APIVersion: u.GetAPIVersion(), Group: gvk.Group, Kind: u.GetKind(),
		Namespace: u.GetNamespace(), Name: u.GetName(), Annotations: u.GetAnnotations(),
		Object: u, JSON: json.RawMessage(j),
	}
	if m.Kind == "" || m.Name == "" {
		return nil, &InputError{Path: path, Line: m.Line, Msg: fmt.Sprintf("document %d has no kind or metadata.name", m.Index), Hint: "every payload manifest needs kind and metadata.name"}
	}
	if _, err := schema.ParseGroupVersion(m.APIVersion); err != nil || m.APIVersion == "" {
		return nil, &InputError{Path: path, Line: m.Line, Field: "apiVersion", Msg: fmt.Sprintf("invalid apiVersion %q", m.APIVersion)}
	}
	if err := m.readApplyAnnotations(path); err != nil {
		return nil, err
	}
	return m, nil
}

// readApplyAnnotations reads create-only, delete and capability annotations.
func (m *Manifest) readApplyAnnotations(path string) error {
	m.CreateOnly = openshift.CreateOnly(m.Annotations)
	del, err := openshift.DeleteAnnotation(m.Annotations)
	if err != nil {
		return &InputError{Path: path, Line: m.Line, Field: "metadata.annotations[" + openshift.AnnotationDelete + "]", Msg: fmt.Sprintf("value %q on %s; the CVO accepts only \"true\"", m.Annotations[openshift.AnnotationDelete], m.Ref()), Hint: "fix the payload or use another release"}
	}
	m.Delete = del
	if v := m.Annotations[AnnotationCapability]; v != "" {
		m.Capabilities = strings.Split(v, "+")
	}
	return nil
}

// leadingBlank counts the blank and comment lines before a YAML document's content.
func leadingBlank(data []byte) int {
	n := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line = data[:i]
		}
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] != '#' {
			return n
		}
		if i < 0 {
			return n
		}
		n++
		data = data[i+1:]
	}
	return n
}

// leadingNewlines counts the newlines before the first non-blank byte.
func leadingNewlines(data []byte) int {
	n := 0
	for _, b := range data {
		switch b {
		case '\n':
			n++
		case ' ', '\t', '\r':
		default:
			return n
		}
	}
	return n
}
