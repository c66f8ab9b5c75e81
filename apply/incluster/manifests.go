package incluster

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// WriteManifests writes objects as one YAML stream (documents separated by
// "---"), as oc apply -f reads it, without the empty creationTimestamp typed
// objects carry.
func WriteManifests(w io.Writer, objects []runtime.Object) error {
	for i, obj := range objects {
		data, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("encoding %T: %w", obj, err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		if md, ok := m["metadata"].(map[string]any); ok && md["creationTimestamp"] == nil {
			delete(md, "creationTimestamp")
		}
		out, err := yaml.Marshal(m)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}
