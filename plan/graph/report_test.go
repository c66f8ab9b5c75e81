package graph

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestNewReport answers each kind of query on the served graph and renders it.
func TestNewReport(t *testing.T) {
	g, err := Parse("served.json", []byte(served))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		q     Query
		check func(t *testing.T, r *Report)
		table []string
	}{
		{"releases", Query{}, func(t *testing.T, r *Report) {
			if !slices.Equal(r.Versions, []string{"4.6.1", "4.7.0", "4.7.1", "4.7.2"}) || r.Releases != 4 {
				t.Errorf("versions %v, releases %d", r.Versions, r.Releases)
			}
		}, []string{"4 releases; edges: 2 supported, 2 conditional, 0 blocked", "RELEASES\n  4.6.1 4.7.0 4.7.1 4.7.2"}},
		{"edges from", Query{From: "4.7.0"}, func(t *testing.T, r *Report) {
			if len(r.EdgesFrom) != 2 || r.Versions != nil || r.Path != nil {
				t.Errorf("%+v", r)
			}
		}, []string{"EDGES FROM 4.7.0", "4.7.2  conditional  risk SomeRisk: it breaks"}},
		{"edges into a release nothing leads to", Query{To: "4.6.1"}, func(t *testing.T, r *Report) {
			if len(r.EdgesTo) != 0 {
				t.Errorf("%+v", r.EdgesTo)
			}
		}, []string{"EDGES INTO 4.6.1\n  (none)"}},
		{"path over supported edges", Query{From: "4.6.1", To: "4.7.1"}, func(t *testing.T, r *Report) {
			if r.Edge != nil || r.Path == nil || len(r.Path.Hops) != 2 {
				t.Errorf("edge %+v path %+v", r.Edge, r.Path)
			}
		}, []string{"EDGE 4.6.1 -> 4.7.1: none in the graph", "PATH 4.6.1 -> 4.7.0 -> 4.7.1 (2 hops)"}},
		{"no path without the risk", Query{From: "4.7.0", To: "4.7.2"}, func(t *testing.T, r *Report) {
			if r.Edge == nil || r.Edge.State != EdgeConditional || r.Path != nil || r.NoPath == "" {
				t.Errorf("edge %+v path %+v noPath %q", r.Edge, r.Path, r.NoPath)
			}
		}, []string{"EDGE 4.7.0 -> 4.7.2: conditional: risk SomeRisk: it breaks", "PATH none: "}},
		{"path with the risk accepted", Query{From: "4.7.0", To: "4.7.2", Accept: []string{"SomeRisk"}}, func(t *testing.T, r *Report) {
			if r.Path == nil || len(r.Path.Risks) != 1 || !slices.Equal(r.Accepted, []string{"SomeRisk"}) {
				t.Errorf("path %+v accepted %v", r.Path, r.Accepted)
			}
		}, []string{"accepted risk SomeRisk: it breaks", "warning: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReport(&Result{Graph: g, Digest: "sha256:00"}, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if r.FormatVersion != ReportFormat || r.Source != "served.json" {
				t.Errorf("format %q source %q", r.FormatVersion, r.Source)
			}
			tc.check(t, r)
			var buf bytes.Buffer
			if err := r.WriteTable(&buf); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.table {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("table lacks %q:\n%s", want, buf.String())
				}
			}
		})
	}
	if _, err := NewReport(&Result{Graph: g}, Query{From: "4.9.9"}); err == nil || !strings.Contains(err.Error(), "4.9.9") {
		t.Errorf("a version the graph lacks: %v", err)
	}
}
