package payload

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// tasks builds included manifests from file names; a "job:" prefix makes a Job.
func tasks(names ...string) []*Manifest {
	var out []*Manifest
	for _, n := range names {
		m := &Manifest{File: n, APIVersion: "v1", Kind: "Pod", Name: n}
		if f, ok := strings.CutPrefix(n, "job:"); ok {
			m.File, m.APIVersion, m.Kind = f, "batch/v1", "Job"
		}
		m.RunLevel, m.Component, _ = ParseFileName(m.File)
		out = append(out, m)
	}
	return out
}

// shape renders an order as "stage|stage" with groups "[a b]" joined by ",".
func shape(o Order) string {
	var stages []string
	for _, s := range o.Stages {
		var groups []string
		for _, g := range s.Groups {
			var names []string
			for _, m := range g.Manifests {
				names = append(names, m.File)
			}
			groups = append(groups, "["+strings.Join(names, " ")+"]")
		}
		prefix := ""
		if s.Barrier {
			prefix = "JOB"
		}
		stages = append(stages, prefix+strings.Join(groups, ","))
	}
	return strings.Join(stages, " | ")
}

// TestBuildOrder mirrors the CVO's own task-graph tests (Split(SplitOnJobs) then
// Parallelize(ByNumberAndComponent)).
func TestBuildOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string
		want  string
	}{
		{"empty", nil, ""},
		{"one", []string{"0000_01_x-y-z_file1"}, "[0000_01_x-y-z_file1]"},
		{"unparsed names are one serial group", []string{"a", "b", "c"}, "[a b c]"},
		{"one component", []string{"0000_01_x-y-z_file1", "0000_01_x-y-z_file2"}, "[0000_01_x-y-z_file1 0000_01_x-y-z_file2]"},
		{"two components run in parallel", []string{"0000_01_a-b-c_file1", "0000_01_x-y-z_file2"}, "[0000_01_a-b-c_file1],[0000_01_x-y-z_file2]"},
		{"unparsed names keep their place", []string{"0000_01_a-b-c_file1", "0000_01_x-y-z_file1", "0000_01_x-y-z_file2", "a", "0000_01_x-y-z_file2b", "0000_01_x-y-z_file3"},
			"[0000_01_a-b-c_file1],[0000_01_x-y-z_file1 0000_01_x-y-z_file2] | [a 0000_01_x-y-z_file2b 0000_01_x-y-z_file3]"},
		{"single-component levels merge", []string{"0000_07_a_0", "0000_08_a_0", "0000_09_a_0", "0000_09_a_1", "0000_09_b_0", "0000_09_b_1", "0000_10_a_0", "0000_10_a_1", "0000_11_a_0", "0000_11_a_1"},
			"[0000_07_a_0 0000_08_a_0] | [0000_09_a_0 0000_09_a_1],[0000_09_b_0 0000_09_b_1] | [0000_10_a_0 0000_10_a_1 0000_11_a_0 0000_11_a_1]"},
		{"job first", []string{"job:a", "0000_50_a_0", "0000_50_b_0", "0000_50_b_1"}, "JOB[a] | [0000_50_a_0],[0000_50_b_0 0000_50_b_1]"},
		{"jobs are barriers", []string{"job:a", "0000_50_a_0", "0000_50_b_0", "0000_50_b_1", "0000_50_c_0", "job:b"},
			"JOB[a] | [0000_50_a_0],[0000_50_b_0 0000_50_b_1],[0000_50_c_0] | JOB[b]"},
		{"job inside a level splits it", []string{"0000_50_a_0", "0000_50_b_0", "job:0000_50_b_1", "0000_50_b_2", "0000_50_c_0"},
			"[0000_50_a_0],[0000_50_b_0] | JOB[0000_50_b_1] | [0000_50_b_2],[0000_50_c_0]"},
		{"pod before job", []string{"a", "job:0000_50_a_0"}, "[a] | JOB[0000_50_a_0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := tasks(tc.names...)
			o := BuildOrder(ms)
			if got := shape(o); got != tc.want {
				t.Fatalf("order\n got %s\nwant %s", got, tc.want)
			}
			// Linear is the payload order: nothing is reordered, only grouped.
			if lin := o.Linear(); !slices.Equal(lin, ms) && len(ms) > 0 {
				t.Fatalf("linear order differs from payload order")
			}
			for i, s := range o.Stages {
				if s.Index != i {
					t.Fatalf("stage %d has index %d", i, s.Index)
				}
			}
		})
	}
}

func TestParseFileName(t *testing.T) {
	for name, want := range map[string]string{
		"0000_20_kube-apiserver-operator_07_clusteroperator.yaml": "20 kube-apiserver-operator",
		"0000_50_cluster-ingress-operator_00-namespace.yaml":      "50 cluster-ingress-operator",
		"0000_00_cluster-version-operator_03_deployment.yaml":     "00 cluster-version-operator",
		"0000_10_consoleclidownload.crd.yaml":                     "-",
		"0001_00_cluster-version-operator_03_service.yaml":        "-",
		"00_namespace.yaml": "-",
	} {
		level, comp, ok := ParseFileName(name)
		got := fmt.Sprintf("%s %s", level, comp)
		if !ok {
			got = "-"
		}
		if got != want {
			t.Errorf("%s: got %q want %q", name, got, want)
		}
	}
}
