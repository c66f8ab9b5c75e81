package payload

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// decodeYAMLDocument decodes one YAML document into the JSON form a manifest keeps
// (compact JSON with sorted keys) and the map form unstructured wants, with exactly
// the result of sigs.k8s.io/yaml's YAMLToJSON followed by encoding/json's Unmarshal
// into map[string]any: numbers float64, keys stringified as sigs does, the same
// errors. It skips the JSON round trip: go.yaml.in/yaml/v2 (the YAML 1.1 parser
// sigs uses) decodes, and the tree is converted in place.
//
// obj is nil for a document that is empty or null. Anything the fast path cannot
// prove it converts exactly (a top level that is not a mapping, an integer beyond
// 2^53, a NaN or infinity, a time, a string that is not UTF-8, a key sigs rejects)
// is decoded again the old way, so errors and odd inputs match sigs by
// construction; TestDecoderMatchesSigsYAML checks the rest.
func decodeYAMLDocument(data []byte) (j []byte, obj map[string]any, err error) {
	var v any
	if err := yamlv2.Unmarshal(data, &v); err != nil {
		return nil, nil, err // sigs returns go.yaml.in/yaml/v2's error as is
	}
	if v == nil {
		return []byte("null"), nil, nil
	}
	if m, ok := v.(map[any]any); ok {
		if obj, ok := convertMap(m); ok {
			j, err := json.Marshal(obj)
			if err == nil {
				return j, obj, nil
			}
		}
	}
	return decodeYAMLDocumentSigs(data)
}

// decodeYAMLDocumentSigs is the reference path: YAML to JSON with sigs, then JSON to
// the map form.
func decodeYAMLDocumentSigs(data []byte) ([]byte, map[string]any, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, nil, err
	}
	j = bytes.TrimSpace(j)
	if len(j) == 0 || bytes.Equal(j, []byte("null")) {
		return []byte("null"), nil, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(j, &obj); err != nil {
		return j, nil, &notObjectError{err}
	}
	return j, obj, nil
}

// notObjectError is a document that decodes but is not a mapping.
type notObjectError struct{ err error }

func (e *notObjectError) Error() string { return e.err.Error() }
func (e *notObjectError) Unwrap() error { return e.err }

// maxExactInt is the largest integer a float64 holds exactly; beyond it the JSON
// text sigs writes and the float64 read back from it could disagree with ours.
const maxExactInt = 1 << 53

func convertMap(m map[any]any) (map[string]any, bool) {
	out := make(map[string]any, len(m))
	for k, v := range m {
		var ks string
		switch k := k.(type) {
		case string:
			if !utf8.ValidString(k) {
				return nil, false
			}
			ks = k
		case int:
			ks = strconv.Itoa(k)
		case int64:
			ks = strconv.FormatInt(k, 10)
		case float64:
			s := strconv.FormatFloat(k, 'g', -1, 32)
			switch s {
			case "+Inf":
				s = ".inf"
			case "-Inf":
				s = "-.inf"
			case "NaN":
				s = ".nan"
			}
			ks = s
		case bool:
			ks = strconv.FormatBool(k)
		default:
			return nil, false
		}
		if _, dup := out[ks]; dup {
			return nil, false // sigs's result depends on map order; let it decide
		}
		cv, ok := convertValue(v)
		if !ok {
			return nil, false
		}
		out[ks] = cv
	}
	return out, true
}

func convertValue(v any) (any, bool) {
	switch v := v.(type) {
	case nil, bool:
		return v, true
	case string:
		return v, utf8.ValidString(v)
	case int:
		if v > maxExactInt || v < -maxExactInt {
			return nil, false
		}
		return float64(v), true
	case int64:
		if v > maxExactInt || v < -maxExactInt {
			return nil, false
		}
		return float64(v), true
	case uint64:
		if v > maxExactInt {
			return nil, false
		}
		return float64(v), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
		return v, true
	case map[any]any:
		m, ok := convertMap(v)
		return m, ok
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, ok := convertValue(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	return nil, false
}
