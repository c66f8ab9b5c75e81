package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/bounded"
)

// BackupRecord describes an etcd backup taken before the run (cluster-backup.sh on
// a control-plane node). The file is YAML or JSON.
type BackupRecord struct {
	// Path is where the snapshot is (on the node or copied off the cluster).
	Path string `json:"path"`
	// SHA256 is the snapshot file's sha256 (64 hex digits).
	SHA256 string `json:"sha256"`
	// EtcdRevision is the snapshot's revision (etcdutl snapshot status).
	EtcdRevision int64 `json:"etcdRevision"`
	// ClusterVersion is the OpenShift version the cluster ran when the backup was
	// taken; a restore needs a backup from the same z-stream.
	ClusterVersion string `json:"clusterVersion"`
	// TakenAt is when it was taken (optional).
	TakenAt time.Time `json:"takenAt,omitzero"`
}

// maxBackupRecordBytes caps a backup record, a few lines of YAML.
const maxBackupRecordBytes = 1 << 20

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// LoadBackupRecord reads and checks a backup record against the cluster's current
// versions (any of them may match: the last completed and the desired one). It
// returns the journal's backup entry and the problems found.
func LoadBackupRecord(path string, clusterVersions []string) (*journal.Backup, []string, error) {
	data, err := bounded.ReadFile(path, maxBackupRecordBytes)
	if err != nil {
		return nil, nil, &Error{Outcome: OutcomeBadInput, Err: fmt.Errorf("reading backup record: %w", err)}
	}
	var r BackupRecord
	if err := yaml.UnmarshalStrict(data, &r); err != nil {
		return nil, nil, fail(OutcomeBadInput, "backup record %s: %v (want path, sha256, etcdRevision, clusterVersion)", path, err)
	}
	var problems []string
	if r.Path == "" {
		problems = append(problems, "backup record: path is empty")
	}
	if !hex64.MatchString(r.SHA256) {
		problems = append(problems, fmt.Sprintf("backup record: sha256 %q is not 64 lowercase hex digits", r.SHA256))
	}
	if r.EtcdRevision <= 0 {
		problems = append(problems, "backup record: etcdRevision must be a positive number (etcdutl snapshot status shows it)")
	}
	if r.ClusterVersion == "" {
		problems = append(problems, "backup record: clusterVersion is empty")
	} else if len(clusterVersions) > 0 {
		match := false
		for _, v := range clusterVersions {
			if v == r.ClusterVersion {
				match = true
			}
		}
		if !match {
			problems = append(problems, fmt.Sprintf("backup record: the backup is from %s but the cluster runs %v; a restore needs a backup of the current version: take a new one", r.ClusterVersion, clusterVersions))
		}
	}
	b := &journal.Backup{RecordFile: path, Path: r.Path, SHA256: r.SHA256, EtcdRevision: r.EtcdRevision, ClusterVersion: r.ClusterVersion, TakenAt: r.TakenAt}
	b.Verified = "snapshot not on this machine: sha256 not verified"
	// Only a regular file is hashed: /dev/zero or a FIFO would never end.
	if fi, err := os.Stat(r.Path); err != nil || !fi.Mode().IsRegular() {
		return b, problems, nil
	}
	if f, err := os.Open(r.Path); err == nil {
		h := sha256.New()
		_, cerr := io.Copy(h, f)
		f.Close()
		if cerr == nil {
			if got := hex.EncodeToString(h.Sum(nil)); got != r.SHA256 {
				problems = append(problems, fmt.Sprintf("backup record: %s has sha256 %s, not %s as recorded", r.Path, got, r.SHA256))
			} else {
				b.Verified = "sha256 of the local snapshot matches"
			}
		}
	}
	return b, problems, nil
}
