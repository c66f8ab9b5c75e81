package incluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/internal/retry"
	"github.com/openshift-recover/recover/apply/journal"
	"github.com/openshift-recover/recover/internal/nextcmd"
)

// Labels and annotations of the journal's ConfigMaps.
const (
	// JournalLabel names the journal a ConfigMap belongs to:
	// oc get configmaps -l recover.openshift.io/journal=NAME.
	JournalLabel = "recover.openshift.io/journal"
	// ChunkAnnotation is the chunk's index, from 0.
	ChunkAnnotation = "recover.openshift.io/journal-chunk"
	// SealedAnnotation marks a full chunk: the next record goes to the next one.
	SealedAnnotation = "recover.openshift.io/journal-sealed"
)

// Sizes of the journal's ConfigMaps. The API server refuses a ConfigMap whose
// data passes 1 MiB (and etcd a request past 1.5 MiB); every append rewrites
// the chunk in etcd, so chunks stay small: DefaultChunkBytes bounds what one
// append costs, MaxRecordBytes is the largest record (a record larger than a
// chunk gets a chunk of its own). A record holds a diff of at most 32 KiB.
const (
	DefaultChunkBytes = 64 << 10
	MaxRecordBytes    = 900 << 10
)

// requestTimeout bounds one request of the store; appendTimeout all the
// attempts of one append (a record must be acknowledged before the change it
// describes, so an append that cannot be acknowledged stops the run).
const (
	requestTimeout = 15 * time.Second
	appendTimeout  = 60 * time.Second
)

// JournalStore keeps a journal as ConfigMaps NAME-0, NAME-1, ... in one
// namespace: each record is one key of a chunk's data (its line number, zero
// padded, so that the keys sort in order), written by a merge patch that carries
// the chunk's resourceVersion. The API server applies it only to the version
// this writer last read or wrote, so a writer that another run has overtaken
// (it wrote the chunk, or sealed it) can never append again: its append fails
// with journal.ErrFenced. A full chunk is sealed (an annotation, under the same
// precondition) before the next one is created, and a chunk is only ever
// created, never replaced, so the fence holds across chunks too.
//
// An append is acknowledged when the API server answered: etcd committed it.
// An answer lost on the way (a timeout, a reset connection) is resolved by
// reading the chunk again: the record is there (done), or the chunk is
// unchanged (sent again), or someone else wrote it (fenced).
type JournalStore struct {
	cms        typedcorev1.ConfigMapInterface
	namespace  string
	name       string
	chunkBytes int

	opened bool
	chunk  int    // index of the last chunk
	rv     string // its resourceVersion, as this writer last read or wrote it
	used   int    // bytes of records in it
	sealed bool
	lines  int // records in the journal
}

// NewJournalStore returns the store of the journal NAME in namespace.
func NewJournalStore(client kubernetes.Interface, namespace, name string) *JournalStore {
	return &JournalStore{cms: client.CoreV1().ConfigMaps(namespace), namespace: namespace, name: name, chunkBytes: DefaultChunkBytes}
}

// Location names the journal: "configmap:NAMESPACE/NAME".
func (s *JournalStore) Location() string { return Ref(s.namespace, s.name) }

// ResumeCommand resumes the run inside the cluster (a Job's next pod runs it).
func (s *JournalStore) ResumeCommand(h journal.Header) string {
	planCM := ""
	if ns, name, ok := ParseRef(h.Plan.Path); ok && ns == s.namespace {
		planCM = name
	}
	return nextcmd.ResumeInCluster(s.namespace, planCM, s.name)
}

// Exclusive is false: opening the journal proves nothing about its last
// writer; appends fence it instead.
func (s *JournalStore) Exclusive() bool { return false }

// Access is what the store needs: read, create and patch ConfigMaps in its
// namespace (the plan's ConfigMaps are read from the same namespace).
func (s *JournalStore) Access() []apply.Access {
	var out []apply.Access
	for _, v := range []string{"get", "create", "patch"} {
		out = append(out, apply.Access{Verb: v, Resource: "configmaps", Namespace: s.namespace})
	}
	return out
}

// ChunkName is the name of the journal's chunk i.
func ChunkName(journalName string, i int) string { return journalName + "-" + strconv.Itoa(i) }

func (s *JournalStore) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), requestTimeout)
}

// Exists reports whether the journal exists (its first chunk does).
func (s *JournalStore) Exists(ctx context.Context) (bool, error) {
	_, err := s.cms.Get(ctx, ChunkName(s.name, 0), metav1.GetOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	}
	return false, fmt.Errorf("reading journal %s: %w", s.Location(), err)
}

// Create creates the journal's first chunk holding first; it fails when the
// journal exists.
func (s *JournalStore) Create(first []byte) error {
	line, err := recordOf(first)
	if err != nil {
		return err
	}
	rv, err := s.create(0, 1, line)
	if apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating journal: %s already exists", s.Location())
	}
	if err != nil {
		return fmt.Errorf("creating journal %s: %w", s.Location(), err)
	}
	s.opened, s.chunk, s.rv, s.used, s.sealed, s.lines = true, 0, rv, len(line), false, 1
	return nil
}

// Open reads the journal and takes it for appending. Nothing is fenced yet: the
// first append fences every earlier writer, or fails with journal.ErrFenced when
// one wrote since this read.
func (s *JournalStore) Open() ([]byte, error) {
	data, err := s.read(true)
	if err != nil {
		return nil, err
	}
	s.opened = true
	return data, nil
}

// Read returns the journal's records as JSON lines.
func (s *JournalStore) Read() ([]byte, error) { return s.read(false) }

func (s *JournalStore) read(keep bool) ([]byte, error) {
	var buf bytes.Buffer
	lines := 0
	for i := 0; ; i++ {
		var cm *corev1.ConfigMap
		err := retry.Do(context.Background(), func() (err error) {
			cm, err = s.get(i)
			return err
		})
		if apierrors.IsNotFound(err) {
			if i == 0 {
				return nil, &journal.FormatError{Path: s.Location(), Msg: "no such journal (its ConfigMap " + ChunkName(s.name, 0) + " does not exist in namespace " + s.namespace + ")"}
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading journal %s: %w", s.Location(), err)
		}
		if buf.Len()+chunkSize(cm) > journal.MaxBytes {
			return nil, &journal.FormatError{Path: s.Location(), Msg: fmt.Sprintf("larger than %d bytes", journal.MaxBytes)}
		}
		keys := make([]string, 0, len(cm.Data))
		for k := range cm.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if n, err := strconv.Atoi(k); err != nil || n != lines+1 {
				return nil, &journal.FormatError{Path: s.Location(), Msg: fmt.Sprintf("ConfigMap %s: key %q where record %d was expected: the journal is damaged", cm.Name, k, lines+1)}
			}
			lines++
			buf.WriteString(cm.Data[k])
			buf.WriteByte('\n')
		}
		if keep {
			s.chunk, s.rv, s.used, s.sealed = i, cm.ResourceVersion, chunkSize(cm), cm.Annotations[SealedAnnotation] == "true"
		}
	}
	if keep {
		s.lines = lines
	}
	return buf.Bytes(), nil
}

// Truncate does nothing: every record is written whole or not at all, so a
// journal in the cluster never has a torn last line.
func (s *JournalStore) Truncate(int) error { return nil }

// Append adds one record and returns once the API server acknowledged it.
func (s *JournalStore) Append(lineNL []byte) error {
	if !s.opened {
		return fmt.Errorf("journal %s is not open", s.Location())
	}
	line, err := recordOf(lineNL)
	if err != nil {
		return err
	}
	n := s.lines + 1
	if s.sealed || (s.used > 0 && s.used+len(line) > s.chunkBytes) {
		if err := s.seal(); err != nil {
			return err
		}
		next := s.chunk + 1
		rv, err := s.create(next, n, line)
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%w: its ConfigMap %s was created by another run", journal.ErrFenced, ChunkName(s.name, next))
		}
		if err != nil {
			return fmt.Errorf("appending to journal %s: %w", s.Location(), err)
		}
		s.chunk, s.rv, s.used, s.sealed, s.lines = next, rv, len(line), false, n
		return nil
	}
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": s.rv},
		"data":     map[string]string{recordKey(n): line},
	})
	if err != nil {
		return err
	}
	if err := s.patch(patch, func(cm *corev1.ConfigMap) bool { return cm.Data[recordKey(n)] == line }); err != nil {
		return err
	}
	s.used += len(line)
	s.lines = n
	return nil
}

// create creates chunk i holding record n and returns its resourceVersion.
func (s *JournalStore) create(i, n int, line string) (string, error) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: ChunkName(s.name, i), Namespace: s.namespace,
			Labels:      map[string]string{JournalLabel: s.name},
			Annotations: map[string]string{ChunkAnnotation: strconv.Itoa(i)},
		},
		Data: map[string]string{recordKey(n): line},
	}
	var rv string
	err := s.retry(func(ctx context.Context) error {
		created, err := s.cms.Create(ctx, cm, metav1.CreateOptions{})
		if err == nil {
			rv = created.ResourceVersion
		}
		return err
	}, func() (bool, error) {
		// Another writer's chunk of that name holds another record n (or the
		// same record with another time): create then fails AlreadyExists.
		live, err := s.get(i)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if live.Data[recordKey(n)] != line || len(live.Data) != 1 {
			return false, apierrors.NewAlreadyExists(corev1.Resource("configmaps"), cm.Name)
		}
		rv = live.ResourceVersion
		return true, nil
	})
	return rv, err
}

// seal marks the last chunk full, under its resourceVersion, so that a writer
// still holding that version cannot append to it after the next chunk began.
func (s *JournalStore) seal() error {
	if s.sealed {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": s.rv,
		"annotations":     map[string]string{SealedAnnotation: "true"},
	}})
	if err != nil {
		return err
	}
	if err := s.patch(patch, func(cm *corev1.ConfigMap) bool {
		_, last := cm.Data[recordKey(s.lines)]
		_, beyond := cm.Data[recordKey(s.lines+1)]
		return cm.Annotations[SealedAnnotation] == "true" && last && !beyond
	}); err != nil {
		return err
	}
	s.sealed = true
	return nil
}

// patch sends a merge patch carrying the last chunk's resourceVersion. When the
// answer is lost, the chunk is read: applied says whether it holds the patch's
// change; if not and its resourceVersion is still the one this writer knows, the
// patch is sent again; else another writer changed it (fenced).
func (s *JournalStore) patch(patch []byte, applied func(*corev1.ConfigMap) bool) error {
	name := ChunkName(s.name, s.chunk)
	err := s.retry(func(ctx context.Context) error {
		out, err := s.cms.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err == nil {
			s.rv = out.ResourceVersion
		}
		return err
	}, func() (bool, error) {
		live, err := s.get(s.chunk)
		if err != nil {
			return false, err
		}
		if applied(live) {
			s.rv = live.ResourceVersion
			return true, nil
		}
		if live.ResourceVersion != s.rv {
			return false, apierrors.NewConflict(corev1.Resource("configmaps"), name, errors.New("changed by another writer"))
		}
		return false, nil
	})
	switch {
	case apierrors.IsConflict(err):
		return fmt.Errorf("%w: its ConfigMap %s changed since resourceVersion %s", journal.ErrFenced, name, s.rv)
	case apierrors.IsNotFound(err):
		return fmt.Errorf("appending to journal %s: its ConfigMap %s was deleted", s.Location(), name)
	case err != nil:
		return fmt.Errorf("appending to journal %s: %w", s.Location(), err)
	}
	return nil
}

// retry sends until the API server answers, within appendTimeout. When the
// answer is lost (a transient error, or the request timed out) the write may or
// may not have been applied: landed reads the chunk and says it was (done), or
// it was not and may be sent again (false, nil), or returns the error that ends
// the append (another writer's change: a conflict or AlreadyExists).
func (s *JournalStore) retry(send func(ctx context.Context) error, landed func() (bool, error)) error {
	deadline := time.Now().Add(appendTimeout)
	for n := 0; ; n++ {
		ctx, cancel := s.ctx()
		err := send(ctx)
		lost := retry.Transient(err) || errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		if err != nil && !lost && n > 0 {
			// A request sent again is refused (a conflict, AlreadyExists): the
			// one whose answer was lost may have been applied meanwhile.
			if ok, lerr := landed(); lerr == nil && ok {
				return nil
			}
		}
		if err == nil || !lost {
			return err
		}
		for {
			if time.Now().After(deadline) {
				return fmt.Errorf("no answer from the API server within %s: %w", appendTimeout, err)
			}
			retry.Sleep(context.Background(), retry.Backoff(min(n, 3)))
			ok, lerr := landed()
			if lerr == nil && ok {
				return nil
			}
			if lerr == nil {
				break // not applied: send it again
			}
			if !retry.Transient(lerr) && !errors.Is(lerr, context.DeadlineExceeded) {
				return lerr
			}
			n++ // not even a read answers: wait and read again
		}
	}
}

func (s *JournalStore) get(i int) (*corev1.ConfigMap, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	return s.cms.Get(ctx, ChunkName(s.name, i), metav1.GetOptions{})
}

// Close does nothing: the store holds no lock (the apply lease does).
func (s *JournalStore) Close() error {
	s.opened = false
	return nil
}

// recordKey is the data key of record n: zero padded, so keys sort in order.
func recordKey(n int) string { return fmt.Sprintf("%08d", n) }

func chunkSize(cm *corev1.ConfigMap) int {
	n := 0
	for _, v := range cm.Data {
		n += len(v)
	}
	return n
}

// recordOf checks one journal line and returns it without its newline.
func recordOf(line []byte) (string, error) {
	rec := strings.TrimSuffix(string(line), "\n")
	if strings.ContainsRune(rec, '\n') || rec == "" {
		return "", fmt.Errorf("a journal record is one non-empty line")
	}
	if len(rec) > MaxRecordBytes {
		return "", fmt.Errorf("journal record of %d bytes is larger than a ConfigMap of the cluster journal holds (%d bytes); nothing was changed for it", len(rec), MaxRecordBytes)
	}
	return rec, nil
}
