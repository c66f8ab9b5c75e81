package inputcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/openshift-recover/recover/inspect"
)

// SnapshotProblem returns why a snapshot a source returned is not usable, or "":
// its human report must render, and its JSON form (recover inspect -o json) must
// read back with inspect.ReadSnapshot into a snapshot with the same fingerprint
// and the same JSON.
func SnapshotProblem(s *inspect.Snapshot) string {
	if s == nil {
		return "nil snapshot without an error"
	}
	if err := inspect.WriteReport(io.Discard, s, inspect.ReportOptions{}); err != nil {
		return fmt.Sprintf("the report does not render: %v", err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Sprintf("the snapshot does not encode as JSON: %v", err)
	}
	back, err := inspect.ReadSnapshot(bytes.NewReader(data))
	if err != nil {
		return fmt.Sprintf("the snapshot's JSON does not read back: %v", err)
	}
	inspect.Refresh(back)
	if a, b := s.Fingerprint(), back.Fingerprint(); a != b {
		return fmt.Sprintf("fingerprint changed over a JSON round trip: %s, then %s", a, b)
	}
	again, err := json.Marshal(back)
	if err != nil {
		return fmt.Sprintf("the re-read snapshot does not encode: %v", err)
	}
	if !bytes.Equal(data, again) {
		return fmt.Sprintf("JSON changed over a round trip:\n%s\n%s", data, again)
	}
	return ""
}

// CheckSource collects a snapshot from src, as a fuzz target does with a
// malformed input: it must return within 20 s, and fail with an acceptable
// bad-input error or return a usable snapshot. It reports a problem through t.
func CheckSource(t interface {
	Helper()
	Fatalf(string, ...any)
	Error(...any)
}, src inspect.Source) {
	t.Helper()
	Within(t, 20*time.Second, "Collect", func() {
		s, err := src.Collect(context.Background())
		if err != nil {
			if p := Problem(err); p != "" {
				t.Error(p)
			}
			return
		}
		if p := SnapshotProblem(s); p != "" {
			t.Error(p)
		}
	})
}
