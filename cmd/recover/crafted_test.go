package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/recoverbin"
)

// The crafted archives of issue 25: a few MB of tar.gz that expand to GBs of
// files a must-gather reader keeps or scans. Before the limits, five 480 MiB
// resource files drove `recover inspect` to 4.6 GB of memory. They are generated
// once per test binary into a temporary directory (never checked in) and
// removed at exit: each file's body is compressed once and its gzip member
// repeated, since a .tar.gz may be a concatenation of gzip members. They live
// in the cache directory TestMain makes and removes.

// craftedArchive is one generated archive.
type craftedArchive struct {
	name string
	// files are the paths below the must-gather root and the size of each.
	files []string
	size  int64
	// body returns the content of a file of the given size.
	body func(size int64) []byte
	// code and want are what inspect answers.
	code int
	want string
}

const craftedRoot = "must-gather.local.25/quay-io-openshift-release-dev-ocp-v4-0-art-dev/"

// podListBody is a YAML pod list of identical pods, size bytes long.
func podListBody(size int64) []byte {
	head := "apiVersion: v1\nkind: PodList\nitems:\n"
	item := "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: filler\n    namespace: openshift-etcd\n    labels:\n      app: filler\n  spec:\n    nodeName: master-0\n    containers:\n    - name: c\n      image: quay.io/example/filler@sha256:0000000000000000000000000000000000000000000000000000000000000000\n  status:\n    phase: Running\n"
	var b bytes.Buffer
	b.Grow(int(size))
	b.WriteString(head)
	for int64(b.Len()+len(item)) <= size {
		b.WriteString(item)
	}
	for int64(b.Len()) < size {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// cvoLogBody is a CVO log of Reconciling syncs, size bytes long: a 16 KiB block
// of lines repeated (within gzip's window, so the archive stays small).
func cvoLogBody(size int64) []byte {
	var block bytes.Buffer
	for i := 0; block.Len() < 16<<10; i++ {
		fmt.Fprintf(&block, "2020-05-24T16:%02d:%02d.%06d000Z I0524 16:%02d:%02d.%06d       1 sync_worker.go:621] Running sync for configmap \"openshift-config/cm-%d\" (%d of 573)\n",
			(i/60)%60, i%60, i, (i/60)%60, i%60, i, i, i)
	}
	b := bytes.Repeat(block.Bytes(), int(size)/block.Len())
	for int64(len(b)) < size {
		b = append(b, '\n')
	}
	return b
}

var craftedArchives = []craftedArchive{
	{name: "five-480MiB-resource-files", size: 480 << 20, body: podListBody, code: ExitBadInput,
		want:  "more than the 256 MiB allowed for one resource file",
		files: []string{"namespaces/openshift-etcd/core/pods.yaml", "namespaces/openshift-kube-apiserver/core/pods.yaml", "namespaces/openshift-kube-scheduler/core/pods.yaml", "namespaces/openshift-kube-controller-manager/core/pods.yaml", "namespaces/shop/core/pods.yaml"}},
	{name: "eight-200MiB-resource-files", size: 200 << 20, body: podListBody, code: ExitBadInput,
		want: "more than 1 GiB of resource files",
		files: []string{"namespaces/a/core/pods.yaml", "namespaces/b/core/pods.yaml", "namespaces/c/core/pods.yaml", "namespaces/d/core/pods.yaml",
			"namespaces/e/core/pods.yaml", "namespaces/f/core/pods.yaml", "namespaces/g/core/pods.yaml", "namespaces/h/core/pods.yaml"}},
}

// craftedLists holds two 200 MiB pod lists: under every limit, decoded one
// item at a time (BenchmarkInspectCraftedArchives measures it).
var craftedLists = craftedArchive{name: "two-200MiB-pod-lists", size: 200 << 20, body: podListBody, code: ExitOK,
	files: []string{"namespaces/openshift-etcd/core/pods.yaml", "namespaces/openshift-kube-apiserver/core/pods.yaml"}}

// craftedLogs holds 1 GiB of the CVO's log: read line by line, never refused.
var craftedLogs = craftedArchive{name: "cvo-log-1GiB", size: 1 << 30, body: cvoLogBody, code: ExitOK,
	files: []string{"namespaces/openshift-cluster-version/pods/cluster-version-operator-1/cluster-version-operator/cluster-version-operator/logs/current.log"}}

var (
	craftedMu   sync.Mutex
	craftedDir  string
	craftedDone = map[string]bool{}
)

// craftedPath returns the path of a generated archive, generating it the first
// time it is asked for.
func craftedPath(t testing.TB, name string) string {
	t.Helper()
	craftedMu.Lock()
	defer craftedMu.Unlock()
	if craftedDir == "" {
		// Under the test binary's cache directory, which TestMain removes.
		dir, err := os.MkdirTemp(os.Getenv("XDG_CACHE_HOME"), "recover-crafted-")
		if err != nil {
			t.Fatal(err)
		}
		craftedDir = dir
	}
	p := filepath.Join(craftedDir, name+".tar.gz")
	if !craftedDone[name] {
		for _, a := range append(craftedArchives, craftedLogs, craftedLists) {
			if a.name == name {
				if err := writeCrafted(p, a); err != nil {
					t.Fatal(err)
				}
				craftedDone[name] = true
			}
		}
	}
	return p
}

// writeCrafted writes one archive at p.
func writeCrafted(p string, a craftedArchive) error {
	cv := "apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: version}\n"
	var out bytes.Buffer
	// The first member: the ClusterVersion, so the archive is a must-gather.
	if err := gzMember(&out, tarHeader(craftedRoot+"cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml", int64(len(cv))), pad([]byte(cv))); err != nil {
		return err
	}
	var body bytes.Buffer
	if err := gzMember(&body, pad(a.body(a.size))); err != nil {
		return err
	}
	for _, f := range a.files {
		if err := gzMember(&out, tarHeader(craftedRoot+f, a.size)); err != nil {
			return err
		}
		out.Write(body.Bytes())
	}
	if err := gzMember(&out, make([]byte, 1024)); err != nil {
		return err
	}
	return os.WriteFile(p, out.Bytes(), 0o600)
}

// tarHeader is the 512-byte header of a regular file.
func tarHeader(name string, size int64) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	_ = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg})
	return b.Bytes()[:512]
}

// pad pads data to the tar block size.
func pad(data []byte) []byte {
	if r := len(data) % 512; r != 0 {
		data = append(data, make([]byte, 512-r)...)
	}
	return data
}

// gzMember appends one gzip member holding the parts.
func gzMember(out *bytes.Buffer, parts ...[]byte) error {
	zw, err := gzip.NewWriterLevel(out, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if _, err := zw.Write(p); err != nil {
			return err
		}
	}
	return zw.Close()
}

// measureEnv makes the test binary a measuring wrapper: it runs the command the
// variable holds (JSON argv), and prints its exit code, stderr and maxrss as
// JSON. A child's maxrss counts the peak of the memory it was forked from until
// it execs (Linux records the old mm's high-water mark at exec), so the test
// process, which generated GBs of archives, cannot measure it directly; the
// freshly exec'd wrapper can.
const measureEnv = "RECOVER_TEST_MEASURE_ARGV"

type measured struct {
	Code   int    `json:"code"`
	Stderr string `json:"stderr"`
	MaxRSS int64  `json:"maxrss"`
}

func init() {
	argv := os.Getenv(measureEnv)
	if argv == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(argv), &args); err != nil || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "bad", measureEnv, err)
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err := cmd.Run()
	m := measured{Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		m.Code = exit.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.MaxRSS = int64(ru.Maxrss) << 10 // Linux reports KiB
	}
	_ = json.NewEncoder(os.Stdout).Encode(m)
	os.Exit(0)
}

// runMeasured runs the recover binary through the measuring wrapper and
// returns its exit code, stderr and peak resident memory (rusage maxrss).
func runMeasured(t testing.TB, args ...string) (int, string, int64) {
	t.Helper()
	argv, _ := json.Marshal(append([]string{recoverbin.Path(t)}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), measureEnv+"="+string(argv))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("measuring %v: %v", args, err)
	}
	var m measured
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("measuring %v: %v: %s", args, err, out)
	}
	if m.MaxRSS == 0 {
		t.Skip("this platform reports no rusage")
	}
	return m.Code, m.Stderr, m.MaxRSS
}

// craftedMemoryBound is the documented bound of inspect's memory on any archive
// (docs/reliability.md).
const craftedMemoryBound = 1 << 30

// TestCraftedArchivesStayBounded runs `recover inspect` on each crafted archive
// as a subprocess: it is refused with the documented exit code and one line
// naming the limit, and its peak memory (maxrss) stays under the bound; the
// figures are logged (BenchmarkInspectCraftedArchives reports them too).
func TestCraftedArchivesStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("generating the crafted archives expands 4 GB through gzip; skipped with -short")
	}
	for _, a := range craftedArchives {
		t.Run(a.name, func(t *testing.T) {
			p := craftedPath(t, a.name)
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			code, errOut, rss := runMeasured(t, "inspect", "--must-gather", p)
			t.Logf("%s: %d KiB archive of %d files of %d MiB: exit %d in %d MiB maxrss: %s", a.name, fi.Size()>>10, len(a.files), a.size>>20, code, rss>>20, strings.TrimSpace(errOut))
			if code != a.code || !strings.Contains(errOut, a.want) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit %d saying %q", code, errOut, a.code, a.want)
			}
			if rss > craftedMemoryBound {
				t.Fatalf("inspect peaked at %d MiB, above the %d MiB bound", rss>>20, craftedMemoryBound>>20)
			}
		})
	}
}

// BenchmarkInspectCraftedArchives reports the peak memory of `recover inspect`
// (a subprocess's maxrss) on the crafted archives, on an archive holding 1 GiB
// of CVO log and on one holding two 200 MiB pod lists, which are read, not
// refused.
func BenchmarkInspectCraftedArchives(b *testing.B) {
	names := []string{}
	for _, a := range craftedArchives {
		names = append(names, a.name)
	}
	for _, name := range append(names, craftedLogs.name, craftedLists.name) {
		b.Run(name, func(b *testing.B) {
			p := craftedPath(b, name)
			var rss int64
			for b.Loop() {
				_, _, r := runMeasured(b, "inspect", "--must-gather", p)
				rss = max(rss, r)
			}
			b.ReportMetric(float64(rss)/(1<<20), "maxrss-MiB")
		})
	}
}
