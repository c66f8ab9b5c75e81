package decode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/bounded"
)

// The bounds of decoding, the same for every offline source: memory stays
// bounded by one object, whatever the file.
const (
	// MaxFileBytes is the largest resource file read: a 5,000-node cluster's
	// largest list (a DaemonSet's pods) is about 130 MiB.
	MaxFileBytes = 256 << 20
	// MaxResourceBytes is the most resource files read from one source.
	MaxResourceBytes = 1 << 30
	// MaxDocumentBytes is the largest single object (a document, or an item of a
	// list): etcd refuses objects over 1.5 MiB, so nothing real comes near it. A
	// file above it is decoded item by item (Stream).
	MaxDocumentBytes = 16 << 20
)

// Budget counts the resource bytes read from one source against
// MaxResourceBytes (or Max when set).
type Budget struct {
	Max  int64
	Used int64
}

// charge counts n more bytes, or fails with an input error.
func (b *Budget) charge(path string, n int64) error {
	if b == nil {
		return nil
	}
	max := b.Max
	if max == 0 {
		max = MaxResourceBytes
	}
	b.Used += n
	if b.Used > max {
		return &inspect.InputError{Path: path, Err: fmt.Errorf("the source holds more than %s of resource files recover reads; refusing it (check that this is the right directory)", bounded.Size(max))}
	}
	return nil
}

// Stream splits a large YAML or JSON file into its objects without holding more
// than one of them: a YAML document's `items:` block list (as oc and must-gathers
// write lists) and a JSON object's "items" array are decoded item by item; any
// other document must fit MaxDocumentBytes. fn sees each object; list items
// without a kind have Kind "" (Add then takes the kind the caller expects).
func Stream(path string, r io.Reader, fn func(Doc) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstNonSpace(br)
	if err != nil {
		return err
	}
	if first == '{' {
		return streamJSON(path, br, fn)
	}
	return streamYAML(path, br, fn)
}

func firstNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err == io.EOF {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			if _, err := br.ReadByte(); err != nil {
				return 0, err
			}
			continue
		}
		return b[0], nil
	}
}

// yamlSplitter is the state of streamYAML.
type yamlSplitter struct {
	path string
	fn   func(Doc) error
	// The document's lines that are not list items, and its first line.
	head     bytes.Buffer
	headLine int
	sawItems bool
	// The item being read, its first line and the list's indentation.
	item     bytes.Buffer
	itemLine int
	indent   int
	inItems  bool
}

func streamYAML(path string, br *bufio.Reader, fn func(Doc) error) error {
	s := &yamlSplitter{path: path, fn: fn, headLine: 1}
	n := 0
	for {
		line, err := readLine(br, MaxDocumentBytes)
		if len(line) > 0 || err == nil {
			n++
			if lerr := s.line(line, n); lerr != nil {
				return lerr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				return &inspect.InputError{Path: path, Line: n, Err: fmt.Errorf("a line longer than %s: not a Kubernetes object recover reads", bounded.Size(MaxDocumentBytes))}
			}
			return &inspect.InputError{Path: path, Line: n, Err: err}
		}
	}
	return s.endDocument()
}

func (s *yamlSplitter) line(line []byte, n int) error {
	t := bytes.TrimRight(line, " \t\r\n")
	if bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- ")) {
		if err := s.endDocument(); err != nil {
			return err
		}
		s.headLine = n + 1
		return nil
	}
	if s.inItems {
		ind := leadingSpaces(t)
		isItem := bytes.HasPrefix(t[ind:], []byte("- ")) || bytes.Equal(t[ind:], []byte("-"))
		if s.indent < 0 && isItem {
			s.indent = ind
		}
		switch {
		case len(t) == 0 || ind == 0 && t[0] == '#':
			if s.item.Len() > 0 {
				s.item.WriteByte('\n')
			}
			return nil
		case s.indent >= 0 && ind == s.indent && isItem:
			if err := s.flushItem(); err != nil {
				return err
			}
			s.itemLine = n
			return s.addItemLine(bytes.TrimPrefix(t[ind+1:], []byte(" ")))
		case s.indent >= 0 && ind > s.indent && s.item.Len() > 0:
			return s.addItemLine(t[min(len(t), s.indent+2):])
		}
		// A line back at the document's level ends the list.
		if err := s.flushItem(); err != nil {
			return err
		}
		s.inItems = false
	}
	if bytes.Equal(t, []byte("items:")) {
		// The list's indentation is that of its first item.
		s.inItems, s.sawItems, s.indent = true, true, -1
		return nil
	}
	if s.head.Len()+len(line) > MaxDocumentBytes {
		return &inspect.InputError{Path: s.path, Line: s.headLine, Err: fmt.Errorf("a YAML document larger than %s that is not a list: not a Kubernetes object recover reads", bounded.Size(MaxDocumentBytes))}
	}
	s.head.Write(t)
	s.head.WriteByte('\n')
	return nil
}

// addItemLine adds a line of the item without the list's indentation.
func (s *yamlSplitter) addItemLine(rest []byte) error {
	if s.item.Len()+len(rest) > MaxDocumentBytes {
		return &inspect.InputError{Path: s.path, Line: s.itemLine, Err: fmt.Errorf("a list item larger than %s: not a Kubernetes object recover reads", bounded.Size(MaxDocumentBytes))}
	}
	s.item.Write(rest)
	s.item.WriteByte('\n')
	return nil
}

func leadingSpaces(b []byte) int {
	n := 0
	for n < len(b) && b[n] == ' ' {
		n++
	}
	return n
}

// flushItem decodes the item read so far.
func (s *yamlSplitter) flushItem() error {
	if s.item.Len() == 0 {
		return nil
	}
	data := s.item.Bytes()
	s.item = bytes.Buffer{}
	docs, err := documentsAt(s.path, s.itemLine, data)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := s.fn(d); err != nil {
			return err
		}
	}
	return nil
}

// endDocument finishes the document: its last item, then its other keys, which
// are the object itself when it has no items block.
func (s *yamlSplitter) endDocument() error {
	if err := s.flushItem(); err != nil {
		return err
	}
	head, list := s.head.Bytes(), s.sawItems
	s.head, s.inItems, s.sawItems = bytes.Buffer{}, false, false
	if len(bytes.TrimSpace(head)) == 0 {
		return nil
	}
	docs, err := documentsAt(s.path, s.headLine, head)
	if err != nil || list {
		// A list's own keys (apiVersion, kind: PodList, metadata) are checked,
		// not kept.
		return err
	}
	for _, d := range docs {
		if err := s.fn(d); err != nil {
			return err
		}
	}
	return nil
}

// documentsAt decodes one YAML text that starts at line first of path.
func documentsAt(path string, first int, data []byte) ([]Doc, error) {
	docs, err := Documents(path, data)
	if err != nil {
		var ie *inspect.InputError
		if errors.As(err, &ie) && ie.Line > 0 {
			ie.Line += first - 1
		}
		return nil, err
	}
	for i := range docs {
		docs[i].Line += first - 1
	}
	return docs, nil
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line (with its newline), failing with errLineTooLong past max.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == nil || err == io.EOF {
		return append([]byte(nil), line...), err
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	buf := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(buf) > max {
			return nil, errLineTooLong
		}
		line, err = br.ReadSlice('\n')
		buf = append(buf, line...)
	}
	return buf, err
}

// streamJSON decodes a JSON object's "items" array item by item; the object
// itself (when it has no items) must fit MaxDocumentBytes.
func streamJSON(path string, br *bufio.Reader, fn func(Doc) error) error {
	g := &guard{r: br}
	dec := json.NewDecoder(g)
	fail := func(err error) error {
		if errors.Is(err, errDocTooLarge) {
			return &inspect.InputError{Path: path, Err: fmt.Errorf("a JSON value larger than %s at byte %d: not a Kubernetes object recover reads", bounded.Size(MaxDocumentBytes), dec.InputOffset())}
		}
		return &inspect.InputError{Path: path, Err: fmt.Errorf("malformed JSON at byte %d: %v", dec.InputOffset(), err)}
	}
	next := func() { g.limit = dec.InputOffset() + MaxDocumentBytes + 64<<10 }
	next()
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	head := map[string]json.RawMessage{}
	items := 0
	for dec.More() {
		next()
		tok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key, _ := tok.(string)
		if key != "items" {
			next()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return fail(err)
			}
			head[key] = v
			continue
		}
		next()
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			if err == nil {
				err = fmt.Errorf(`"items" is not an array`)
			}
			return fail(err)
		}
		for dec.More() {
			next()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return fail(err)
			}
			var tm typeMeta
			if err := json.Unmarshal(v, &tm); err != nil {
				return &inspect.InputError{Path: path, Err: fmt.Errorf("items[%d] is not a Kubernetes object: %v", items, err)}
			}
			items++
			if err := fn(Doc{Path: path, Line: 1, APIVersion: tm.APIVersion, Kind: tm.Kind, JSON: v}); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return fail(err)
		}
	}
	if items > 0 {
		return nil
	}
	obj, err := json.Marshal(head)
	if err != nil {
		return fail(err)
	}
	var tm typeMeta
	_ = json.Unmarshal(obj, &tm)
	return fn(Doc{Path: path, Line: 1, APIVersion: tm.APIVersion, Kind: tm.Kind, JSON: obj})
}

var errDocTooLarge = errors.New("document too large")

// guard fails a read once the decoder has read past limit: one JSON value may
// not take more than MaxDocumentBytes of memory.
type guard struct {
	r     io.Reader
	read  int64
	limit int64
}

func (g *guard) Read(p []byte) (int, error) {
	if g.read > g.limit {
		return 0, errDocTooLarge
	}
	n, err := g.r.Read(p)
	g.read += int64(n)
	return n, err
}
