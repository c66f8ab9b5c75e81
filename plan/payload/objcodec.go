package payload

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
)

// The decoded-payload cache keeps each manifest's object as a tree of the values
// encoding/json gives a map[string]any (nil, bool, float64, string, []any,
// map[string]any), with every string, key or value, an index into one table of
// the entry's distinct strings. Reading a manifest back then costs the maps and
// slices it is made of and no string copies; decoding its JSON again cost four
// times as much.
//
// A value is a tag byte and, for each tag:
//
//	tagNull, tagFalse, tagTrue  nothing
//	tagNumber                   the float64's IEEE 754 bits, 8 bytes little-endian
//	tagString                   the string's index in the table (uvarint)
//	tagArray                    the length (uvarint), then each element
//	tagObject                   the length (uvarint), then each member: the key's
//	                            index (uvarint) and the value, keys in sorted order
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagNumber
	tagString
	tagArray
	tagObject
)

// maxTreeDepth bounds the nesting a tree may have, as encoding/json bounds JSON's.
const maxTreeDepth = 10000

// stringTable gives the strings of the trees being encoded their indexes.
type stringTable struct {
	index map[string]int
	list  []string
	bytes int // the length of list's strings together
	// keys is scratch space for the sorted keys of the objects being encoded.
	keys []string
}

func newStringTable() *stringTable { return &stringTable{index: map[string]int{}} }

func (t *stringTable) id(s string) uint64 {
	i, ok := t.index[s]
	if !ok {
		i = len(t.list)
		t.index[s] = i
		t.list = append(t.list, s)
		t.bytes += len(s)
	}
	return uint64(i)
}

// appendTree appends the tree of v to b, adding its strings to the table. ok is
// false for a value of another type (the cache then keeps nothing).
func (t *stringTable) appendTree(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, tagNull), true
	case bool:
		if v {
			return append(b, tagTrue), true
		}
		return append(b, tagFalse), true
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagNumber), math.Float64bits(v)), true
	case string:
		return binary.AppendUvarint(append(b, tagString), t.id(v)), true
	case []any:
		b = binary.AppendUvarint(append(b, tagArray), uint64(len(v)))
		for _, e := range v {
			var ok bool
			if b, ok = t.appendTree(b, e); !ok {
				return nil, false
			}
		}
		return b, true
	case map[string]any:
		b = binary.AppendUvarint(append(b, tagObject), uint64(len(v)))
		// This object's keys sit at t.keys[start:end]; the values' own keys go
		// after them and are gone again when each value is done.
		start := len(t.keys)
		for k := range v {
			t.keys = append(t.keys, k)
		}
		end := len(t.keys)
		slices.Sort(t.keys[start:end])
		for i := start; i < end; i++ {
			k := t.keys[i]
			b = binary.AppendUvarint(b, t.id(k))
			var ok bool
			if b, ok = t.appendTree(b, v[k]); !ok {
				return nil, false
			}
		}
		t.keys = t.keys[:start]
		return b, true
	}
	return nil, false
}

var errBadTree = errors.New("malformed object tree")

// reader reads the cache's binary forms. Every malformed input is an error, never
// a panic or an allocation larger than the input warrants.
type reader struct {
	b []byte
}

func (r *reader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		return 0, errBadTree
	}
	r.b = r.b[n:]
	return v, nil
}

// count reads a number of items of at least min bytes each.
func (r *reader) count(min int) (int, error) {
	n, err := r.uvarint()
	if err != nil || n > uint64(len(r.b)/min) {
		return 0, errBadTree
	}
	return int(n), nil
}

// bytes reads a length-prefixed byte string; the result shares r's memory.
func (r *reader) bytes() ([]byte, error) {
	n, err := r.count(1)
	if err != nil {
		return nil, err
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b, nil
}

func (r *reader) text() (string, error) {
	b, err := r.bytes()
	return string(b), err
}

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendText(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendTable appends a string table: the number of strings, each one's length,
// then all of them joined.
func appendTable(b []byte, list []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(list)))
	for _, s := range list {
		b = binary.AppendUvarint(b, uint64(len(s)))
	}
	for _, s := range list {
		b = append(b, s...)
	}
	return b
}

// table reads what appendTable wrote: the strings are substrings of one string,
// so the table costs one allocation.
func (r *reader) table() ([]string, error) {
	n, err := r.count(1)
	if err != nil {
		return nil, err
	}
	lengths := make([]uint64, n)
	total := uint64(0)
	for i := range lengths {
		if lengths[i], err = r.uvarint(); err != nil {
			return nil, err
		}
		if total += lengths[i]; total > uint64(len(r.b)) {
			return nil, errBadTree
		}
	}
	all := string(r.b[:total])
	r.b = r.b[total:]
	list := make([]string, n)
	off := uint64(0)
	for i, l := range lengths {
		list[i] = all[off : off+l]
		off += l
	}
	return list, nil
}

// readObject decodes one whole tree that must be an object.
func readObject(tree []byte, strings []string) (map[string]any, error) {
	r := treeReader{reader{tree}, strings}
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok || len(r.b) != 0 {
		return nil, errBadTree
	}
	return obj, nil
}

// treeReader decodes trees against a string table.
type treeReader struct {
	reader
	strings []string
}

func (r *treeReader) str() (string, error) {
	i, err := r.uvarint()
	if err != nil || i >= uint64(len(r.strings)) {
		return "", errBadTree
	}
	return r.strings[i], nil
}

func (r *treeReader) value(depth int) (any, error) {
	if len(r.b) == 0 || depth > maxTreeDepth {
		return nil, errBadTree
	}
	tag := r.b[0]
	r.b = r.b[1:]
	switch tag {
	case tagNull:
		return nil, nil
	case tagFalse:
		return false, nil
	case tagTrue:
		return true, nil
	case tagNumber:
		if len(r.b) < 8 {
			return nil, errBadTree
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
		r.b = r.b[8:]
		return f, nil
	case tagString:
		return r.str()
	case tagArray:
		n, err := r.count(1)
		if err != nil {
			return nil, err
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = r.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case tagObject:
		n, err := r.count(2)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, n)
		for range n {
			k, err := r.str()
			if err != nil {
				return nil, err
			}
			if out[k], err = r.value(depth + 1); err != nil {
				return nil, err
			}
		}
		if len(out) != n { // a key twice
			return nil, errBadTree
		}
		return out, nil
	}
	return nil, errBadTree
}
