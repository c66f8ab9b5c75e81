package mustgather

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// writeLog writes a generated log of about size bytes at path: a CVO's at V(4)
// (mostly "Running sync for" / "Done syncing for", a sync and a Result of work
// per round, a failed apply now and then) or a machine-config daemon's holding
// a drain (a refused eviction every fourth line), with the RFC 3339 prefix oc adm
// inspect writes.
func writeLog(tb testing.TB, path string, size int64, daemon bool) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	for i := 0; n < size; i++ {
		s := i % 86400
		stamp := fmt.Sprintf("2020-05-24T%02d:%02d:%02d.%06d000Z I0524 %02d:%02d:%02d.%06d       1 ", s/3600%24, s/60%60, s%60, i%1000000, s/3600%24, s/60%60, s%60, i%1000000)
		var k int
		switch {
		case daemon && i%4 == 0:
			k, _ = fmt.Fprintf(w, "%sdaemon.go:341] error when evicting pods/\"web-%d\" -n \"shop\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n", stamp, i%7)
		case daemon:
			k, _ = fmt.Fprintf(w, "%srpm-ostree.go:261] Running captured: rpm-ostree kargs\n", stamp)
		case i%1200 == 0:
			k, _ = fmt.Fprintf(w, "%ssync_worker.go:471] Running sync 4.4.3 (force=false) on generation 2 in state Reconciling at attempt 0\n", stamp)
		case i%1200 == 1199:
			k, _ = fmt.Fprintf(w, "%stask_graph.go:611] Result of work: []\n", stamp)
		case i%5000 == 17:
			k, _ = fmt.Fprintf(w, "%stask.go:77] error running apply for clusteroperator \"kube-apiserver\" (99 of 573): Cluster operator kube-apiserver is still updating\n", stamp)
		case i%2 == 0:
			k, _ = fmt.Fprintf(w, "%ssync_worker.go:621] Running sync for configmap \"openshift-config-managed/cm-%d\" (%d of 573)\n", stamp, i%573, i%573)
		default:
			k, _ = fmt.Fprintf(w, "%ssync_worker.go:634] Done syncing for configmap \"openshift-config-managed/cm-%d\" (%d of 573)\n", stamp, i%573, i%573)
		}
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkMustGatherLogs reads a generated must-gather (incident 1's objects)
// holding 1 GiB of logs: the CVO's current and previous logs (384 MiB each) and
// sixteen machine-config daemons' (16 MiB each). It reports MB/s of log scanned
// by the whole source (objects included). The must-gather is written into a
// temporary directory and removed with it.
func BenchmarkMustGatherLogs(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "mg")
	copyDir(b, example1, dir, nil)
	var total int64
	cvo := filepath.Join(dir, "namespaces/openshift-cluster-version/pods/cluster-version-operator-1/cluster-version-operator/cluster-version-operator/logs")
	for _, name := range []string{"current.log", "previous.log"} {
		writeLog(b, filepath.Join(cvo, name), 384<<20, false)
		total += 384 << 20
	}
	for i := range 16 {
		p := fmt.Sprintf("namespaces/openshift-machine-config-operator/pods/machine-config-daemon-%02d/machine-config-daemon/machine-config-daemon/logs/current.log", i)
		writeLog(b, filepath.Join(dir, p), 16<<20, true)
		total += 16 << 20
	}
	// The bytes read and thrown away, for the speed scanning is measured against.
	b.Run("read", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || filepath.Ext(p) != ".log" {
					return err
				}
				f, err := os.Open(p)
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = io.Copy(io.Discard, f)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("inspect", func(b *testing.B) {
		b.SetBytes(total)
		for b.Loop() {
			s, err := New(dir).Collect(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			if len(s.Logs.Files) != 18 {
				b.Fatalf("read %d logs", len(s.Logs.Files))
			}
		}
	})
}
