package realpayload

import (
	"bytes"
	"encoding/json"
	"regexp"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// componentVersionRe is oc's (pkg/cli/admin/release/image_mapper.go
// componentVersionRe): the placeholder 0.0.1-snapshot, optionally followed by
// -<component>.
var componentVersionRe = regexp.MustCompile(`(\W|^)0\.0\.1-snapshot([a-z0-9\-]*)`)

// Render substitutes a manifest's version placeholders as oc adm release new
// does (pkg/cli/admin/release/image_mapper.go NewComponentVersionsMapper):
// 0.0.1-snapshot becomes the release version, 0.0.1-snapshot-<component> the
// component's version (components, as oc reads them from the images'
// io.openshift.build.versions labels, e.g. kubernetes=1.33.4); a component not
// given is left as it is (oc refuses the release instead). The real payloads in
// ../shared/realdata were laid out without this step: the tests render them.
func Render(data []byte, release string, components map[string]string) []byte {
	return componentVersionRe.ReplaceAllFunc(data, func(part []byte) []byte {
		m := componentVersionRe.FindSubmatch(part)
		key := string(m[2])
		var value string
		switch {
		case key == "":
			value = release
		case key[0] == '-' && components[key[1:]] != "":
			value = components[key[1:]]
		default:
			return part
		}
		var b bytes.Buffer
		b.Write(m[1])
		b.WriteString(value)
		return b.Bytes()
	})
}

// RenderObject is Render on one object.
func RenderObject(u *unstructured.Unstructured, release string, components map[string]string) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(Render(data, release, components)); err != nil {
		return nil, err
	}
	return out, nil
}
