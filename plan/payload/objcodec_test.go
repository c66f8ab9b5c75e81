package payload

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestObjectTreeRoundTrip: every object of every example and real payload, and a
// table of odd ones, comes back from its tree deeply equal, with one table of
// strings shared by all of them.
func TestObjectTreeRoundTrip(t *testing.T) {
	var objs []map[string]any
	for _, in := range []string{
		`{}`,
		`{"": "", "a": [], "b": {}, "c": [[], {}, null, true, false, 0, -0, 1e308, -1.5e-308, 4.9e-324]}`,
		`{"unicode": "\u2028 ü 日本 \ud83d\ude00", "esc": "\"\\\/\b\f\n\r\t", "n": 9007199254740993, "deep": {"a": {"b": {"c": [1, [2, [3, {"d": "e"}]]]}}}}`,
	} {
		var obj map[string]any
		if err := json.Unmarshal([]byte(in), &obj); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, obj)
	}
	for _, c := range payloadCases(t) {
		p, err := LoadDir(c.dir, c.o)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Manifests {
			objs = append(objs, m.Object.Object)
		}
	}
	table := newStringTable()
	trees := make([][]byte, len(objs))
	for i, obj := range objs {
		var ok bool
		if trees[i], ok = table.appendTree(nil, obj); !ok {
			t.Fatalf("object %d: not encodable", i)
		}
	}
	r := reader{appendTable(nil, table.list)}
	strs, err := r.table()
	if err != nil || len(r.b) != 0 || !reflect.DeepEqual(strs, table.list) {
		t.Fatalf("the string table does not come back: %v", err)
	}
	for i, tree := range trees {
		got, err := readObject(tree, strs)
		if err != nil {
			t.Fatalf("object %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, objs[i]) {
			t.Fatalf("object %d: %v, want %v", i, got, objs[i])
		}
	}
	if neg, _ := readObject(trees[1], strs); math.Signbit(neg["c"].([]any)[6].(float64)) != true {
		t.Fatal("-0 lost its sign")
	}
	// The same objects encode to the same bytes (keys are sorted).
	again, _ := newStringTable().appendTree(nil, objs[2])
	first, _ := newStringTable().appendTree(nil, objs[2])
	if !bytes.Equal(again, first) {
		t.Fatal("encoding is not deterministic")
	}
}

func TestObjectTreeRefusesOtherTypes(t *testing.T) {
	for _, v := range []map[string]any{
		{"int": 1},
		{"nested": map[any]any{"a": 1}},
		{"list": []string{"a"}},
		{"deep": []any{map[string]any{"x": int64(1)}}},
	} {
		if _, ok := newStringTable().appendTree(nil, v); ok {
			t.Errorf("%#v was encoded", v)
		}
	}
}

// TestObjectTreeRefusesMalformedInput: a damaged tree is an error, never a panic,
// wherever it is cut and whatever a byte is changed to.
func TestObjectTreeRefusesMalformedInput(t *testing.T) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(`{"a": [1, "x", {"b": null, "c": true}], "d": 2.5}`), &obj); err != nil {
		t.Fatal(err)
	}
	table := newStringTable()
	tree, _ := table.appendTree(nil, obj)
	strs := table.list
	for n := 0; n < len(tree); n++ {
		if _, err := readObject(tree[:n], strs); err == nil {
			t.Errorf("cut at %d: no error", n)
		}
	}
	for i := range tree {
		for _, b := range []byte{0, 1, 7, 0x7f, 0x80, 0xff} {
			bad := append([]byte(nil), tree...)
			bad[i] = b
			_, _ = readObject(bad, strs) // must not panic
		}
	}
	uv := func(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }
	for name, bad := range map[string][]byte{
		"trailing byte":     append(append([]byte(nil), tree...), tagNull),
		"not an object":     {tagArray, 0},
		"unknown tag":       {tagObject, 1, 0, 42},
		"string index":      uv([]byte{tagObject, 1}, uint64(len(strs))),
		"huge length":       uv([]byte{tagArray}, 1<<40),
		"key twice":         {tagObject, 2, 0, tagNull, 0, tagNull},
		"short number":      {tagObject, 1, 0, tagNumber, 1, 2, 3},
		"unending varint":   {tagObject, 0x80, 0x80, 0x80},
		"empty":             {},
		"too deep an array": append(append([]byte{tagObject, 1, 0}, bytes.Repeat([]byte{tagArray, 1}, maxTreeDepth+1)...), tagNull),
	} {
		if _, err := readObject(bad, strs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	for name, table := range map[string][]byte{
		"more strings than bytes": uv(nil, 5),
		"longer than the bytes":   append(uv(uv(nil, 1), 4), "abc"...),
		"lengths past the end":    uv(uv(uv(nil, 2), 1), 1<<62),
		"cut lengths":             {2, 1},
	} {
		r := reader{table}
		if _, err := r.table(); err == nil {
			t.Errorf("table %s: accepted", name)
		}
	}
}

// FuzzReadObject: no input makes the tree reader panic or loop.
func FuzzReadObject(f *testing.F) {
	table := newStringTable()
	tree, _ := table.appendTree(nil, map[string]any{"a": []any{1.0, "x", map[string]any{"b": nil}}, "c": true})
	f.Add(tree)
	f.Add([]byte{tagObject, 1, 0, tagArray, 2, tagNull, tagFalse})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = readObject(data, table.list)
	})
}
