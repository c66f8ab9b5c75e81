package mustgather

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift-recover/recover/inspect/internal/archive"
	"github.com/openshift-recover/recover/internal/testing/inputcheck"
)

// seedTar builds an uncompressed tar (archive.Read takes tar and tar.gz alike) of
// entries name -> content; a content of nil makes a directory.
func seedTar(tb testing.TB, entries []tarEntry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.data)), Typeflag: tar.TypeReg, Linkname: e.link}
		switch {
		case e.link != "":
			h.Typeflag, h.Size = tar.TypeSymlink, 0
		case e.data == nil:
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			tb.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write(e.data); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

type tarEntry struct {
	name string
	data []byte
	link string
}

// FuzzArchive feeds arbitrary bytes to the must-gather reader as a .tar archive:
// a failure must be a one-line bad-input error (never a panic, a hang or a file
// outside the archive read), and a snapshot must render and round-trip through
// JSON.
func FuzzArchive(f *testing.F) {
	mg := filepath.Join("..", "..", "examples", "reconciled-4.3-to-4.4", "must-gather")
	var small []tarEntry
	for _, rel := range []string{
		"timestamp",
		"cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml",
		"cluster-scoped-resources/config.openshift.io/clusteroperators/kube-apiserver.yaml",
		"cluster-scoped-resources/core/nodes/master-0.yaml",
		"namespaces/openshift-cluster-version/apps/deployments.yaml",
	} {
		data, err := os.ReadFile(filepath.Join(mg, rel))
		if err != nil {
			f.Fatal(err)
		}
		small = append(small, tarEntry{name: "must-gather.local.1/quay-io-image/" + rel, data: data})
	}
	f.Add(seedTar(f, small))
	// The wedge facts: drains, CSRs, webhooks, Secret metadata.
	var wedgeFiles []tarEntry
	root := filepath.Join("testdata", "wedges", "must-gather.local.7", "quay-io-openshift-release-dev-must-gather")
	for _, rel := range []string{
		"cluster-scoped-resources/core/nodes/worker-a.yaml",
		"namespaces/shop/policy/poddisruptionbudgets/web.yaml",
		"namespaces/shop/pods/web-1/web-1.yaml",
		"cluster-scoped-resources/certificates.k8s.io/certificatesigningrequests/csr-bootstrap-d.yaml",
		"cluster-scoped-resources/admissionregistration.k8s.io/validatingwebhookconfigurations/gatekeeper-validating-webhook-configuration.yaml",
		"namespaces/gatekeeper-system/discovery.k8s.io/endpointslices.yaml",
		"namespaces/openshift-kube-apiserver-operator/core/secrets.yaml",
		"namespaces/openshift-config/core/configmaps.yaml",
	} {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			f.Fatal(err)
		}
		wedgeFiles = append(wedgeFiles, tarEntry{name: "mg/" + rel, data: data})
	}
	f.Add(seedTar(f, wedgeFiles))
	f.Add(seedTar(f, []tarEntry{{name: "mg/cluster-scoped-resources/", data: nil}, {name: "mg/cluster-scoped-resources/config.openshift.io/clusterversions.yaml", data: []byte("kind: ClusterVersionList\nitems: [{metadata: {name: version}}]\n")}}))
	f.Add(seedTar(f, []tarEntry{{name: "../escape/cluster-scoped-resources/x.yaml", data: []byte("x")}}))
	f.Add(seedTar(f, []tarEntry{{name: "mg/namespaces/", data: nil}, {name: "mg/namespaces/link", link: "/etc/passwd"}}))
	f.Add(seedTar(f, []tarEntry{{name: "a/namespaces/", data: nil}, {name: "b/namespaces/", data: nil}}))
	f.Add(seedTar(f, []tarEntry{{name: "mg/namespaces/openshift-etcd/core/pods.yaml", data: []byte("kind: PodList\nitems: [{kind: Node}]\n")}}))
	f.Add([]byte{})
	f.Add([]byte("not a tar at all"))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "must-gather.tar")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		src := &Source{Path: path, Limits: archive.Limits{MaxFileBytes: 1 << 20, MaxKeptBytes: 8 << 20, MaxArchiveBytes: 64 << 20, MaxEntries: 10000}}
		inputcheck.CheckSource(t, src)
	})
}
