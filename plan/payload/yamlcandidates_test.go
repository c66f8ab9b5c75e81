package payload

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	yamlv3 "go.yaml.in/yaml/v3"
)

// The YAML 1.2 decoders issue 17 named as candidates for the loader, measured
// beside sigs.k8s.io/yaml and the loader's decoder (BenchmarkDecodeRealPayload*)
// and run through the differential harness. Neither is exact (both read YAML 1.2
// where the CVO reads YAML 1.1, and both refuse keys that real payload manifests
// repeat) nor faster than the loader's go.yaml.in/yaml/v2 path, so neither is a
// product dependency. go.yaml.in/yaml/v3 stays here (the module graph has it
// already); github.com/goccy/go-yaml v1.19.2 was measured the same way, gave the
// same refusals and took about three times as long as the loader's decoder, and
// was dropped (docs/graph-and-payload.md has its figures).

// yamlCandidates are the candidates as yamlDecoders: the library's decoding into
// an interface{}, then that value in the map form with JSON's numbers.
var yamlCandidates = map[string]yamlDecoder{
	"go.yaml.in/yaml/v3": func(data []byte) ([]byte, map[string]any, error) {
		var v any
		err := yamlv3.Unmarshal(data, &v)
		return candidateResult(v, err)
	},
}

// candidateResult turns a candidate's value into decodeYAMLDocument's results.
func candidateResult(v any, err error) ([]byte, map[string]any, error) {
	if err != nil {
		return nil, nil, err
	}
	if v == nil {
		return []byte("null"), nil, nil
	}
	jv, err := candidateJSONForm(v)
	if err != nil {
		return nil, nil, err
	}
	j, err := json.Marshal(jv)
	if err != nil {
		return nil, nil, err
	}
	obj, ok := jv.(map[string]any)
	if !ok {
		return j, nil, &notObjectError{fmt.Errorf("not an object: %s", j)}
	}
	return j, obj, nil
}

// candidateJSONForm is what encoding/json gives for v: string keys, float64
// numbers.
func candidateJSONForm(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, string:
		return v, nil
	case int:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case uint64:
		return float64(v), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%v is not a JSON number", v)
		}
		return v, nil
	case time.Time:
		return v.Format(time.RFC3339Nano), nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, err := candidateJSONForm(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, err := candidateJSONForm(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, err := candidateJSONForm(e)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = c
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported %T", v)
}

// TestYAML12CandidatesAreNotExact runs the candidates through the differential
// harness and records where they part from sigs.k8s.io/yaml: each reads YAML 1.1
// booleans (yes, on, y) as strings, refuses a mapping that repeats a key (which
// sigs accepts, the last one winning, and which real payload manifests do: CRDs
// with versions twice, a Deployment with resources twice), and, like any other
// parser, words its errors otherwise. It fails if a candidate reads these inputs
// as sigs does, which would make it worth a second look.
func TestYAML12CandidatesAreNotExact(t *testing.T) {
	for name, dec := range yamlCandidates {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			docs, objects, errs, real := 0, 0, 0, 0
			forEachYAMLDocument(t, func(doc string, data []byte) {
				docs++
				d := decoderMismatch(dec, data)
				switch {
				case d == "":
				case strings.HasPrefix(d, "error"):
					errs++
				default:
					objects++
				}
				if d != "" && strings.Contains(doc, "payload-release-") {
					real++
					t.Logf("%s: %.300s", doc, d)
				} else if d != "" && !strings.HasPrefix(d, "error text") {
					t.Logf("%s: %.300s", doc, d)
				}
			})
			t.Logf("%s: of %d documents, %d decode to other objects, %d give another error or none or other words; %d of them real payload documents", name, docs, objects, errs, real)
			for _, in := range []string{"b: yes\n", "b: on\n", "dup: 1\ndup: 2\n"} {
				if d := decoderMismatch(dec, []byte(in)); d == "" {
					t.Errorf("%s reads %q as sigs.k8s.io/yaml does (YAML 1.1)", name, in)
				}
			}
		})
	}
}

// BenchmarkDecodeRealPayloadCandidates decodes the documents of
// BenchmarkDecodeRealPayloadFast with each candidate, into the same map form and
// compact JSON.
func BenchmarkDecodeRealPayloadCandidates(b *testing.B) {
	files, total := realPayloadFiles(b)
	for name, dec := range yamlCandidates {
		b.Run(strings.ReplaceAll(name, "/", "_"), func(b *testing.B) {
			b.SetBytes(total)
			for b.Loop() {
				for _, f := range files {
					for _, d := range splitYAML(f) {
						_, _, _ = dec(d.data)
					}
				}
			}
		})
	}
}
