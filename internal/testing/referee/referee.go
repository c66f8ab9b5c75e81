package referee

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift-recover/recover/internal/testing/shareddata"
)

// EnvVar overrides where the referee data lives.
const EnvVar = "RECOVER_REFEREE"

// The files.
const (
	MergeCasesFile          = "merge-cases.jsonl"
	MergeCasesSyntheticFile = "merge-cases-synthetic.jsonl"
	// MergeCases420File holds the CVO main's verdicts on the real 4.19 → 4.20
	// update (the Default feature set of a self-managed HA cluster): cvoMain
	// only, no cvo44.
	MergeCases420File  = "merge-cases-4.20.jsonl"
	OperatorHealthFile = "operator-health.jsonl"
)

// Dir returns the referee directory, or skips tb when there is none.
func Dir(tb testing.TB) string {
	tb.Helper()
	return shareddata.Find(tb, "the CVO referee data", "referee", EnvVar, MergeCasesFile)
}

// RealData returns the real public data directory (../shared/realdata: the 4.3
// and 4.4 payloads the referee's cases come from), or skips tb.
func RealData(tb testing.TB) string {
	tb.Helper()
	return shareddata.Find(tb, "the real payloads", "realdata", shareddata.RealDataEnvVar, "payload-release-4.4")
}

// Context is a merge-cases file's first line: what the owner references point
// at and the cluster-wide proxy the CVO injects.
type Context struct {
	CVName string `json:"cvName"`
	CVUID  string `json:"cvUID"`
	Proxy  struct {
		HTTPProxy  string `json:"httpProxy"`
		HTTPSProxy string `json:"httpsProxy"`
		NoProxy    string `json:"noProxy"`
	} `json:"proxy"`
}

// MergeCase is one manifest against one live state (update) or none (create).
type MergeCase struct {
	ID         string     `json:"id"`
	Mode       string     `json:"mode"` // update or create
	File       string     `json:"file"`
	Doc        int        `json:"doc"`
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Namespace  string     `json:"namespace"`
	Name       string     `json:"name"`
	LiveFrom   string     `json:"liveFrom"`
	Additions  []Addition `json:"additions"`
	Required   Object     `json:"required"`
	Live       Object     `json:"live"`
	CVOMain    Verdict    `json:"cvoMain"`
	CVO44      Verdict    `json:"cvo44"`
}

// Addition is one field a real cluster adds to the live object.
type Addition struct {
	Class string `json:"class"` // server-metadata, server-default, controller, admin, cvo-4.3, ...
	Path  string `json:"path"`
	Why   string `json:"why"`
}

// Verdict is what one CVO did.
type Verdict struct {
	Action string `json:"action"` // create, update, none, skip, delete, error
	Object Object `json:"object"`
	Path   string `json:"path"`
	Error  string `json:"error"`
}

// Object is a JSON object decoded as the API machinery decodes it (whole
// numbers int64); nil when absent.
type Object struct{ *unstructured.Unstructured }

// UnmarshalJSON decodes an object; null is absent.
func (o *Object) UnmarshalJSON(data []byte) error {
	if strings.TrimSpace(string(data)) == "null" {
		o.Unstructured = nil
		return nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return err
	}
	o.Unstructured = u
	return nil
}

// LoadMergeCases reads a merge-cases file of the referee directory.
func LoadMergeCases(tb testing.TB, file string) (Context, []MergeCase) {
	tb.Helper()
	var ctx Context
	var cases []MergeCase
	readLines(tb, file, func(line []byte, first bool) error {
		if first {
			var head struct {
				Context *Context `json:"context"`
			}
			if err := json.Unmarshal(line, &head); err == nil && head.Context != nil {
				ctx = *head.Context
				return nil
			}
		}
		var c MergeCase
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		cases = append(cases, c)
		return nil
	})
	return ctx, cases
}

// HealthCase is one ClusterOperator manifest against one live ClusterOperator
// (nil: absent), with each CVO's verdict per mode.
type HealthCase struct {
	ID       string             `json:"id"`
	Manifest Object             `json:"manifest"`
	Live     Object             `json:"live"`
	CVOMain  map[string]Outcome `json:"cvoMain"`
	CVO44    map[string]Outcome `json:"cvo44"`
}

// Outcome is a CVO's answer: main's done, wait or fail, 4.4's done or notdone,
// with the CVO's reason.
type Outcome struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

// LoadOperatorHealth reads operator-health.jsonl.
func LoadOperatorHealth(tb testing.TB) []HealthCase {
	tb.Helper()
	var cases []HealthCase
	readLines(tb, OperatorHealthFile, func(line []byte, _ bool) error {
		var c HealthCase
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		cases = append(cases, c)
		return nil
	})
	return cases
}

func readLines(tb testing.TB, file string, each func(line []byte, first bool) error) {
	tb.Helper()
	path := filepath.Join(Dir(tb), file)
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("the CVO referee: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 0; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := each(sc.Bytes(), n == 0); err != nil {
			tb.Fatalf("%s line %d: %v", file, n+1, fmt.Errorf("decoding: %w", err))
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
}
