package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Journal is a loaded journal.
type Journal struct {
	// Path is where the journal is: a file's path, or its Store's Location.
	Path string
	// ResumeCommand is the command that resumes the run it records.
	ResumeCommand string
	Header        Header
	Records       []Record
	// TornTail is true when the last line was incomplete (the writer died while
	// writing it); it is not in Records.
	TornTail   bool
	validBytes int
}

// FormatError says why a file is not a readable journal. It classifies as bad input.
type FormatError struct {
	Path string
	Line int
	Msg  string
}

func (e *FormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("journal %s: line %d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("journal %s: %s", e.Path, e.Msg)
}

// BadInput marks the error as a problem with an input file.
func (e *FormatError) BadInput() bool { return true }

// MaxBytes is the largest journal Load reads. A journal holds one record per
// change plus each step's diff, a few MiB for a whole release; the cap only
// keeps a wrong path (a device, a disk image) from filling memory.
const MaxBytes = 256 << 20

// Load reads the journal file at path.
func Load(path string) (*Journal, error) {
	return LoadFrom(NewFileStore(path))
}

// LoadFrom reads the journal in store without taking it for appending.
func LoadFrom(store Store) (*Journal, error) {
	data, err := store.Read()
	if err != nil {
		return nil, err
	}
	j, err := parse(store.Location(), data)
	if err != nil {
		return nil, err
	}
	j.ResumeCommand = store.ResumeCommand(j.Header)
	return j, nil
}

func parse(path string, data []byte) (*Journal, error) {
	j := &Journal{Path: path}
	offset := 0
	line := 0
	for offset < len(data) {
		end := bytes.IndexByte(data[offset:], '\n')
		if end < 0 {
			// A last line without its newline was never fully written.
			j.TornTail = true
			break
		}
		line++
		raw := data[offset : offset+end]
		var r Record
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, &FormatError{Path: path, Line: line, Msg: "not a journal record: " + err.Error()}
		}
		if r.Type == "" {
			return nil, &FormatError{Path: path, Line: line, Msg: "record without a type"}
		}
		j.Records = append(j.Records, r)
		offset += end + 1
		j.validBytes = offset
	}
	if len(j.Records) == 0 || j.Records[0].Type != TypeHeader || j.Records[0].Header == nil {
		return nil, &FormatError{Path: path, Msg: "no header record: not a recover journal"}
	}
	j.Header = *j.Records[0].Header
	major, _, _ := strings.Cut(j.Header.FormatVersion, ".")
	if want, _, _ := strings.Cut(FormatVersion, "."); major != want {
		return nil, &FormatError{Path: path, Line: 1, Msg: fmt.Sprintf("format version %q is not supported (this recover reads %s.x); use the recover release that wrote it", j.Header.FormatVersion, want)}
	}
	return j, nil
}
