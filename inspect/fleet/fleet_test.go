package fleet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/testing/fleetgen"
)

const repo = "../.."

func mkdirs(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiscover(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []Target // paths relative to the directory
		err   string
	}{
		{"must-gathers, archives and an Insights archive, sorted", []string{
			"b/quay-io-image/cluster-scoped-resources/", "a/namespaces/", "c.tar.gz", "insights-x.tar.gz", "d.tgz", "e/config/version.json", ".hidden/", "notes.txt"},
			[]Target{{Name: "a", Kind: inspect.SourceMustGather, Path: "a"}, {Name: "b", Kind: inspect.SourceMustGather, Path: "b"},
				{Name: "c", Kind: inspect.SourceMustGather, Path: "c.tar.gz"}, {Name: "d", Kind: inspect.SourceMustGather, Path: "d.tgz"},
				{Name: "e", Kind: inspect.SourceInsights, Path: "e"}, {Name: "insights-x", Kind: inspect.SourceInsights, Path: "insights-x.tar.gz"}}, ""},
		{"a directory that is neither is named", []string{"a/namespaces/", "junk/x/"}, nil, "junk: neither a must-gather nor an Insights archive"},
		{"nothing to inspect", []string{"notes.txt"}, nil, "no must-gather or Insights archive"},
		{"a name twice", []string{"a/namespaces/", "a.tar.gz"}, nil, "two entries are both named a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			mkdirs(t, dir, tt.files...)
			got, err := Discover(dir)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				var ie *inspect.InputError
				if !errors.As(err, &ie) {
					t.Errorf("%v is not an input error (exit 4)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				tt.want[i].Path = filepath.Join(dir, tt.want[i].Path)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("[%d] %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
	if _, err := Discover(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing directory was discovered")
	}
}

func TestContexts(t *testing.T) {
	got, err := Contexts([]string{"hub", " spoke-1 ", ""})
	if err != nil || len(got) != 2 || got[1] != (Target{Name: "spoke-1", Kind: inspect.SourceLive, Context: "spoke-1"}) {
		t.Errorf("%+v %v", got, err)
	}
	for _, bad := range [][]string{nil, {"a", "a"}} {
		if _, err := Contexts(bad); err == nil {
			t.Errorf("%v was taken", bad)
		}
	}
}

// countingSource collects a real source and counts how many collect at once.
type countingSource struct {
	inspect.Source
	in, peak *atomic.Int32
}

func (c countingSource) Collect(ctx context.Context) (*inspect.Snapshot, error) {
	n := c.in.Add(1)
	defer c.in.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	return c.Source.Collect(ctx)
}

// TestRunIsBoundedAndOrdered runs a generated fleet on 3 goroutines: never more
// than 3 snapshots are collected at once, every target gets its result in the
// targets' order, progress counts each one once, and a broken must-gather fails
// alone.
func TestRunIsBoundedAndOrdered(t *testing.T) {
	f, err := fleetgen.Generate(repo, t.TempDir(), 30)
	if err != nil {
		t.Fatal(err)
	}
	targets, err := Discover(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var in, peak atomic.Int32
	var progress []int
	var mu sync.Mutex
	o := Options{Concurrency: 3,
		Open: func(tg Target, o Options) (inspect.Source, error) {
			src, err := OpenSource(tg, o)
			return countingSource{src, &in, &peak}, err
		},
		Progress: func(done, total int) {
			mu.Lock()
			defer mu.Unlock()
			if total != len(targets) {
				t.Errorf("progress total %d, want %d", total, len(targets))
			}
			progress = append(progress, done)
		}}
	res := Run(context.Background(), targets, o, func(_ context.Context, tg Target, s *inspect.Snapshot) (string, error) {
		return tg.Name + " " + string(s.Source.Kind), nil
	})
	if p := peak.Load(); p > 3 || p < 1 {
		t.Errorf("%d snapshots collected at once, want at most 3", p)
	}
	if len(progress) != len(targets) || progress[len(progress)-1] != len(targets) {
		t.Errorf("progress %v over %d targets", progress, len(targets))
	}
	failed := 0
	for i, r := range res {
		if r.Target != targets[i] {
			t.Fatalf("result %d is %s, want %s", i, r.Target.Name, targets[i].Name)
		}
		if r.Err != nil {
			failed++
			if !strings.HasPrefix(r.Target.Name, "broken-") {
				t.Errorf("%s: %v", r.Target.Name, r.Err)
			}
			continue
		}
		if r.Value != r.Target.Name+" must-gather" {
			t.Errorf("%s judged %q", r.Target.Name, r.Value)
		}
	}
	if failed != 2 {
		t.Errorf("%d failed, want the 2 broken ones", failed)
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	f, err := fleetgen.Generate(repo, t.TempDir(), 20)
	if err != nil {
		t.Fatal(err)
	}
	targets, err := Discover(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var judged atomic.Int32
	res := Run(ctx, targets, Options{Concurrency: 1}, func(context.Context, Target, *inspect.Snapshot) (int, error) {
		if judged.Add(1) == 2 {
			cancel()
		}
		return 0, nil
	})
	cancelled, ok := 0, 0
	for _, r := range res {
		switch {
		case errors.Is(r.Err, context.Canceled):
			cancelled++
		case r.Err == nil:
			ok++
		case !strings.HasPrefix(r.Target.Name, "broken-"):
			t.Errorf("%s: %v", r.Target.Name, r.Err)
		}
	}
	// One goroutine: the target in hand when the second judgement cancels may
	// still finish; no other starts.
	if judged.Load() > 3 || ok != int(judged.Load()) || cancelled < len(targets)-2-3 {
		t.Errorf("judged %d (%d ok), cancelled %d of %d after cancelling at the second", judged.Load(), ok, cancelled, len(targets))
	}
}
