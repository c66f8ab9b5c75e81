package logs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/internal/bounded"
)

// Limits bound the scan of one log.
type Limits struct {
	// MaxBytes is how much of a log is read; the rest is not scanned and the file
	// is marked partial.
	MaxBytes int64
	// MaxLineBytes cuts longer lines (the rest of the line is skipped).
	MaxLineBytes int
	// MaxEntries is how many distinct entries one log keeps; repeats of an entry
	// are counted in it and never count against this.
	MaxEntries int
}

// DefaultLimits fit any real log: a CVO at V(4) for a week writes a few GiB.
var DefaultLimits = Limits{MaxBytes: 8 << 30, MaxLineBytes: 64 << 10, MaxEntries: 2000}

// OrDefault returns l with its zero fields set from DefaultLimits.
func (l Limits) OrDefault() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultLimits.MaxLineBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultLimits.MaxEntries
	}
	return l
}

// parser reads the lines of one family.
type parser interface {
	// line sees every line with a klog header, in order; n is its 1-based number.
	line(s *scan, h header, n int)
	// end is called once the log is read.
	end(s *scan)
}

// scan is the state of one log being read.
type scan struct {
	file    inspect.LogFile
	lim     Limits
	entries []inspect.LogEntry
	index   map[string]int
	// repeats are, per entry, its last repeat as read (the line and its
	// number), turned into LastSeen at the end: a repeat costs a copy, not a
	// parse.
	repeats []rawLine
	// last is a copy of the last klog line (header and message), for the file's
	// Last time and LastLine.
	last  []byte
	lastN int
	// line is the line being read; key a scratch buffer for entry keys.
	line []byte
	key  []byte
}

// rawLine is a line as read, with its number (0: none).
type rawLine struct {
	data []byte
	n    int
}

// Scan reads a log line by line and returns f with what was read (Bytes, Lines,
// Partial, First, Last, LastLine, Omitted) and the entries its family's parser
// kept. f names the log (Path, Namespace, Pod, Container, Previous, Node) and its
// Family; a family recover does not read gives no entries. The reader is read up
// to lim.MaxBytes, never further.
func Scan(ctx context.Context, r io.Reader, f inspect.LogFile, lim Limits) (inspect.LogFile, []inspect.LogEntry, error) {
	lim = lim.OrDefault()
	s := &scan{file: f, lim: lim, index: map[string]int{}}
	p := newParser(f.Family)
	counted := &bounded.Counter{R: io.LimitReader(r, lim.MaxBytes)}
	br := bufio.NewReaderSize(counted, lim.MaxLineBytes)
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			n++
			if errors.Is(err, bufio.ErrBufferFull) {
				// A line longer than the buffer: keep its start, skip the rest.
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = br.ReadSlice('\n')
				}
			}
			s.see(p, trimEOL(line), n)
		}
		if err != nil {
			if err == io.EOF {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			return s.file, nil, fmt.Errorf("reading %s after %d lines: %w", f.Path, n, err)
		}
		if n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return s.file, nil, err
			}
		}
	}
	s.file.Lines = n
	s.file.Bytes = counted.N
	if counted.N >= lim.MaxBytes {
		// Whether bytes were left: one more byte tells.
		var one [1]byte
		if k, _ := r.Read(one[:]); k > 0 {
			s.file.Partial = fmt.Sprintf("read the first %s only (the limit of one log)", bounded.Size(lim.MaxBytes))
		}
	}
	if s.last != nil {
		h := split(s.last)
		s.file.Last = h.time()
		l := s.logLine(h, s.lastN)
		s.file.LastLine = &l
	}
	if p != nil {
		p.end(s)
	}
	for i, r := range s.repeats {
		if r.n > 0 {
			l := s.logLine(split(r.data), r.n)
			s.entries[i].LastSeen = &l
		}
	}
	return s.file, s.entries, nil
}

// see hands one line to the parser.
func (s *scan) see(p parser, line []byte, n int) {
	h := split(line)
	if h.klog == nil {
		return
	}
	if s.file.First.IsZero() {
		s.file.First = h.time()
	}
	s.last = append(s.last[:0], line[:min(len(line), inspect.MaxLogText+64)]...)
	s.lastN = n
	s.line = line
	if p != nil {
		p.line(s, h, n)
	}
}

func trimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// logLine returns the line as evidence.
func (s *scan) logLine(h header, n int) inspect.LogLine {
	return inspect.LogLine{Time: h.time(), Source: inspect.LogSource(s.file.Path, n), Text: Text(h.msg)}
}

// keyOf builds an entry key (its kind and the values that identify it) in the
// scratch buffer; it is valid until the next call.
func (s *scan) keyOf(kind string, parts ...[]byte) []byte {
	k := append(s.key[:0], kind...)
	for _, p := range parts {
		k = append(k, 0)
		k = append(k, p...)
	}
	s.key = k
	return k
}

// repeat counts the line as a repeat of the entry with the key, when there is
// one, and reports whether there was: the caller then builds nothing.
func (s *scan) repeat(key []byte, n int) bool {
	i, ok := s.index[string(key)]
	if !ok {
		return false
	}
	s.entries[i].Count++
	r := &s.repeats[i]
	r.data = append(r.data[:0], s.line[:min(len(s.line), inspect.MaxLogText+64)]...)
	r.n = n
	return true
}

// emit keeps an entry, or counts it as a repeat of the entry with the same key
// (kind and the fields that identify it). It returns the entry, nil when the
// file keeps no more.
func (s *scan) emit(kind, key string, h header, n int, fields map[string]string) *inspect.LogEntry {
	k := s.keyOf(kind, []byte(key))
	if s.repeat(k, n) {
		return &s.entries[s.index[string(k)]]
	}
	return s.add(k, kind, h, n, fields)
}

// add keeps a new entry under key, nil when the file keeps no more.
func (s *scan) add(key []byte, kind string, h header, n int, fields map[string]string) *inspect.LogEntry {
	if len(s.entries) >= s.lim.MaxEntries {
		s.file.Omitted++
		return nil
	}
	s.index[string(key)] = len(s.entries)
	s.entries = append(s.entries, inspect.LogEntry{Kind: kind, Family: s.file.Family, File: s.file.Key(), LogLine: s.logLine(h, n), Fields: fields, Count: 1})
	s.repeats = append(s.repeats, rawLine{})
	return &s.entries[len(s.entries)-1]
}

// Text makes a log message safe to keep and show: valid UTF-8, one line, control
// characters replaced, at most inspect.MaxLogText bytes.
func Text(msg []byte) string {
	if len(msg) > inspect.MaxLogText {
		cut := inspect.MaxLogText - 3
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = append(msg[:cut:cut], "..."...)
	}
	s := strings.ToValidUTF8(string(msg), "?")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}
