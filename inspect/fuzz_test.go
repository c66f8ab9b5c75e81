package inspect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/mustgather"
	"github.com/openshift-recover/recover/internal/testing/inputcheck"
)

// FuzzReadSnapshot feeds arbitrary bytes to the saved-snapshot reader (recover
// plan --snapshot, recover inspect --snapshot): a failure must be a one-line
// bad-input error; a snapshot that reads must be analysable, render, and
// round-trip through JSON with the same fingerprint.
func FuzzReadSnapshot(f *testing.F) {
	for _, ex := range []string{"reconciled-4.3-to-4.4", "false-success-revision"} {
		s, err := mustgather.New(filepath.Join("..", "examples", ex, "must-gather")).Collect(context.Background())
		if err != nil {
			f.Fatal(err)
		}
		data, err := json.Marshal(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"formatVersion":"1.0"}`))
	f.Add([]byte(`{"formatVersion":"2.0"}`))
	f.Add([]byte(`{"formatVersion":"1.7","clusterVersion":{"status":{"history":[{"state":"Completed","version":"4.4.3"}]}},"nodes":[{"name":"a","kubeletVersion":"v1.17.1"}]}`))
	f.Add([]byte(`{"formatVersion":1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"formatVersion":"1.0","staticPodOperators":[{"nodeStatuses":[{}]}],"clusterOperators":[{"versions":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s *inspect.Snapshot
		var err error
		inputcheck.Within(t, 20*time.Second, "ReadSnapshot", func() {
			if s, err = inspect.ReadSnapshot(bytes.NewReader(data)); err == nil {
				inspect.Refresh(s)
			}
		})
		if err != nil {
			if p := inputcheck.Problem(err); p != "" {
				t.Fatal(p)
			}
			return
		}
		var p string
		inputcheck.Within(t, 20*time.Second, "checking the snapshot", func() { p = inputcheck.SnapshotProblem(s) })
		if p != "" {
			t.Fatal(p)
		}
	})
}
