package fleetengines

import (
	"encoding/json"
	"fmt"
	"strconv"

	"k8s.io/client-go/util/jsonpath"
)

// Value is one statusFeedback value: its type as the work agent reports it
// (String, Integer, Boolean) and its value.
type Value struct {
	Type  string
	Value string
}

// FeedbackValue evaluates one JSONPath feedback rule on obj (an object's
// unstructured content) as the work agent does. ok is false when the agent
// reports no value for it (nothing found, or a value of another type); err
// when it reports an error for the rule.
func FeedbackValue(obj map[string]any, name, path string) (v Value, ok bool, err error) {
	j := jsonpath.New(name).AllowMissingKeys(true)
	if err := j.Parse(fmt.Sprintf("{%s}", path)); err != nil {
		return Value{}, false, fmt.Errorf("failed to parse json path %s of %s with error: %v", path, name, err)
	}
	res, err := j.FindResults(obj)
	if err != nil {
		return Value{}, false, fmt.Errorf("failed to find value for %s with error: %v", name, err)
	}
	if len(res) == 0 || len(res[0]) == 0 {
		return Value{}, false, nil
	}
	switch x := res[0][0].Interface().(type) {
	case nil:
		return Value{}, false, nil
	case string:
		return Value{"String", x}, true, nil
	case int64:
		return Value{"Integer", strconv.FormatInt(x, 10)}, true, nil
	case bool:
		return Value{"Boolean", strconv.FormatBool(x)}, true, nil
	default:
		return Value{}, false, fmt.Errorf("the type %T of the value for %s is not found", x, name)
	}
}

// ExpectedValue is one entry of the expectedValues annotation.
type ExpectedValue struct {
	ManifestIndex int32  `json:"manifestIndex,omitempty"`
	Name          string `json:"name,omitempty"`
	Value         string `json:"value,omitempty"`
}

// Manifest is what TALM reads of one manifest's status: whether it is applied,
// available and its feedback synced, and its feedback values by name.
type Manifest struct {
	Ready    bool
	Feedback map[string]Value
}

// Completed is TALM's rule: the work is applied and available (workReady), and
// for every expected value the manifest of its ordinal is ready and the named
// feedback value, as a string, equals it. annotation is the expectedValues
// annotation's text ("" expects nothing).
func Completed(workReady bool, annotation string, manifests map[int32]Manifest) (bool, error) {
	if !workReady {
		return false, nil
	}
	if annotation == "" {
		return true, nil
	}
	var expected []ExpectedValue
	if err := json.Unmarshal([]byte(annotation), &expected); err != nil {
		return false, err
	}
	for _, e := range expected {
		m, ok := manifests[e.ManifestIndex]
		if !ok || !m.Ready || e.Value != m.Feedback[e.Name].Value {
			return false, nil
		}
	}
	return true, nil
}
