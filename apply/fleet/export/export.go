package export

import (
	"bytes"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Document is one emitted document and the file name it is written to.
type Document struct {
	File   string
	Object map[string]any
}

// Documents are the wave's documents for o.Engine: for TALM the two templates
// and the ClusterGroupUpgrade, for OCM the two templates (create the apply one
// once the inspect verdicts are reviewed), for Argo the Workflow.
func Documents(o Options) ([]Document, error) {
	if o.Staged() {
		return stagedDocuments(o)
	}
	switch o.Engine {
	case EngineArgo:
		w, err := Workflow(o)
		if err != nil {
			return nil, err
		}
		return []Document{{"workflow.yaml", w}}, nil
	case EngineTALM, EngineOCM:
		in, err := InspectTemplate(o)
		if err != nil {
			return nil, err
		}
		ap, err := ApplyTemplate(o)
		if err != nil {
			return nil, err
		}
		docs := []Document{{"inspect.yaml", in.Object}, {"apply.yaml", ap.Object}}
		if o.Engine == EngineTALM {
			cgu, err := ClusterGroupUpgrade(o)
			if err != nil {
				return nil, err
			}
			docs = append(docs, Document{"clustergroupupgrade.yaml", cgu})
		}
		return docs, nil
	}
	return nil, fmt.Errorf("--for %q: use one of talm, ocm, argo", o.Engine)
}

// WriteYAML writes documents as one YAML stream.
func WriteYAML(w io.Writer, docs []Document) error {
	var buf bytes.Buffer
	for i, d := range docs {
		b, err := yaml.Marshal(d.Object)
		if err != nil {
			return fmt.Errorf("%s: %w", d.File, err)
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		fmt.Fprintf(&buf, "# %s\n", d.File)
		buf.Write(b)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
