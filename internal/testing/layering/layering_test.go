package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/openshift-recover/recover/"

// architecture is the page whose import table this test holds to the code.
const architecture = "../../../docs/architecture.md"

// clientGo is how the table names the one outside module it tracks: who does
// cluster I/O.
const clientGo = "k8s.io/client-go"

// The table's rows that are test and lab machinery: product code never
// imports them.
var machinery = []string{"internal/testing", "internal/lab"}

// row is one row of the import table: the packages under Key (those no more
// specific row claims) and what they import.
type row struct {
	Key     string
	Imports []string // other rows' keys, and clientGo
	Line    int
}

// TestImportTableIsTheImports keeps docs/architecture.md's import table true:
// every package of the module (every one, sub-packages included, as go list
// sees them) belongs to the table's most specific row, and each row's
// "imports" cell names exactly the rows its packages' non-test code imports
// (and k8s.io/client-go when one of them does cluster I/O): an import the
// table does not name fails, and so does a name the code does not import.
func TestImportTableIsTheImports(t *testing.T) {
	rows := readImportTable(t, architecture)
	got := map[string]map[string][]string{} // row -> imported row -> the importing packages
	members := map[string][]string{}
	for _, p := range goList(t, "ImportPath,Imports") {
		rel := strings.TrimPrefix(p.ImportPath, module)
		from := rowOf(rows, rel)
		if from == "" {
			t.Errorf("package %s has no row in the import table of docs/architecture.md: add one, or make it a sub-package of a row", rel)
			continue
		}
		members[from] = append(members[from], rel)
		if got[from] == nil {
			got[from] = map[string][]string{}
		}
		for _, imp := range p.Imports {
			to := ""
			switch {
			case strings.HasPrefix(imp, module):
				to = rowOf(rows, strings.TrimPrefix(imp, module))
			case imp == clientGo || strings.HasPrefix(imp, clientGo+"/"):
				to = clientGo
			}
			if to != "" && to != from && !slices.Contains(got[from][to], rel) {
				got[from][to] = append(got[from][to], rel)
			}
		}
	}
	if len(members) < 10 {
		t.Fatalf("only %d rows have packages; go list did not see the module", len(members))
	}
	for _, r := range rows {
		if len(members[r.Key]) == 0 {
			t.Errorf("docs/architecture.md:%d: row %s holds no package of the module: remove it", r.Line, r.Key)
			continue
		}
		for _, to := range slices.Sorted(maps.Keys(got[r.Key])) {
			if !slices.Contains(r.Imports, to) {
				t.Errorf("docs/architecture.md:%d: row %s does not name %s, which %s imports: add it to the row's imports (or drop the import)", r.Line, r.Key, to, strings.Join(got[r.Key][to], ", "))
			}
		}
		for _, to := range r.Imports {
			if _, ok := got[r.Key][to]; !ok {
				t.Errorf("docs/architecture.md:%d: row %s names %s, which none of its packages (%s) imports: remove it from the row's imports", r.Line, r.Key, to, strings.Join(members[r.Key], ", "))
			}
		}
	}
}

// TestImportTableFlowsOneWay holds the table itself to the design: its rows
// import each other without a cycle (data flows one way: Source -> Snapshot
// -> Planner -> Plan -> Engine -> TUI), and product code never imports the
// test and lab machinery.
func TestImportTableFlowsOneWay(t *testing.T) {
	rows := readImportTable(t, architecture)
	if cycle := importCycle(rows); cycle != nil {
		t.Errorf("the import table has a cycle: %s", strings.Join(cycle, " -> "))
	}
	for _, r := range rows {
		if slices.ContainsFunc(machinery, func(m string) bool { return r.Key == m || strings.HasPrefix(r.Key, m+"/") }) {
			continue
		}
		for _, to := range r.Imports {
			if slices.Contains(machinery, to) {
				t.Errorf("docs/architecture.md:%d: product code (%s) imports test machinery (%s)", r.Line, r.Key, to)
			}
		}
	}
}

// importCycle returns a cycle of the rows' imports, nil when there is none.
func importCycle(rows []row) []string {
	imports := map[string][]string{}
	for _, r := range rows {
		imports[r.Key] = r.Imports
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(k string) []string
	visit = func(k string) []string {
		switch state[k] {
		case open:
			i := slices.Index(path, k)
			return append(slices.Clone(path[i:]), k)
		case done:
			return nil
		}
		state[k] = open
		path = append(path, k)
		for _, to := range imports[k] {
			if c := visit(to); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		state[k] = done
		return nil
	}
	for _, r := range rows {
		if c := visit(r.Key); c != nil {
			return c
		}
	}
	return nil
}

// rowOf returns the key of the most specific row that holds the package rel
// (the row itself, or a package under it), "" when none does.
func rowOf(rows []row, rel string) string {
	best := ""
	for _, r := range rows {
		if (rel == r.Key || strings.HasPrefix(rel, r.Key+"/")) && len(r.Key) > len(best) {
			best = r.Key
		}
	}
	return best
}

// tableHeader is the header row of the import table.
var tableHeader = regexp.MustCompile(`^\|\s*package\s*\|\s*holds\s*\|\s*imports\s*\|\s*$`)

// code is a `quoted` name in a cell.
var code = regexp.MustCompile("`([^`]+)`")

// readImportTable parses the import table of the architecture page: the
// first `name` of a row's package cell is its key (a trailing / dropped), and
// the `names` of its imports cell are what it imports (prose around them,
// such as "imported only by tests", is for people).
func readImportTable(t *testing.T, path string) []row {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseImportTable(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

func parseImportTable(page string) ([]row, error) {
	lines := strings.Split(page, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return tableHeader.MatchString(l) })
	if start < 0 {
		return nil, errors.New("no import table (a header | package | holds | imports |)")
	}
	var rows []row
	seen := map[string]bool{}
	for i := start + 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := strings.Split(strings.Trim(lines[i], "| "), " | ")
		if len(cells) != 3 {
			return nil, fmt.Errorf("line %d: %d cells, want 3 (package, holds, imports; no | inside a cell)", i+1, len(cells))
		}
		key := code.FindStringSubmatch(cells[0])
		if key == nil {
			return nil, fmt.Errorf("line %d: the package cell names no `package`", i+1)
		}
		r := row{Key: strings.TrimSuffix(key[1], "/"), Line: i + 1}
		if seen[r.Key] {
			return nil, fmt.Errorf("line %d: a second row for %s", i+1, r.Key)
		}
		seen[r.Key] = true
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			r.Imports = append(r.Imports, strings.TrimSuffix(m[1], "/"))
		}
		rows = append(rows, r)
	}
	for _, r := range rows {
		for _, to := range r.Imports {
			if to != clientGo && !seen[to] {
				return nil, fmt.Errorf("line %d: row %s imports %s, which has no row", r.Line, r.Key, to)
			}
		}
	}
	return rows, nil
}

func TestParseImportTable(t *testing.T) {
	page := "intro\n\n| package | holds | imports |\n|---|---|---|\n" +
		"| `inspect/` (+ sub-packages) | snapshots | `internal/openshift` |\n" +
		"| `inspect/live` | the live reader | `inspect`, `internal/openshift`, `k8s.io/client-go` |\n" +
		"| `internal/openshift` | facts | nothing of recover's |\n\nafter\n"
	rows, err := parseImportTable(page)
	if err != nil {
		t.Fatal(err)
	}
	want := []row{
		{Key: "inspect", Imports: []string{"internal/openshift"}, Line: 5},
		{Key: "inspect/live", Imports: []string{"inspect", "internal/openshift", clientGo}, Line: 6},
		{Key: "internal/openshift", Line: 7},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	for _, tc := range []struct{ rel, want string }{
		{"inspect", "inspect"}, {"inspect/logs", "inspect"}, {"inspect/live", "inspect/live"},
		{"inspect/livex", "inspect"}, {"internal/openshift", "internal/openshift"}, {"plan", ""},
	} {
		if got := rowOf(rows, tc.rel); got != tc.want {
			t.Errorf("rowOf(%s) = %q, want %q", tc.rel, got, tc.want)
		}
	}
	if c := importCycle(rows); c != nil {
		t.Errorf("cycle %v in an acyclic table", c)
	}
	rows[0].Imports = append(rows[0].Imports, "inspect/live")
	if c := importCycle(rows); strings.Join(c, " -> ") != "inspect -> inspect/live -> inspect" {
		t.Errorf("cycle %v, want inspect -> inspect/live -> inspect", c)
	}
	for name, bad := range map[string]string{
		"no table":     "| package | holds | may import |\n|---|---|---|\n",
		"unknown row":  "| package | holds | imports |\n|---|---|---|\n| `a` | x | `b` |\n",
		"pipe in cell": "| package | holds | imports |\n|---|---|---|\n| `a` | x | y | `a` |\n",
		"twice":        "| package | holds | imports |\n|---|---|---|\n| `a` | x | none |\n| `a/` | y | none |\n",
	} {
		if _, err := parseImportTable(bad); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// goList runs `go list -json=<fields>` over the module from its root and returns
// a decoder over the packages it prints.
// listed is what go list -json says of one package (the fields asked for).
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Deps       []string
}

// goList lists the module's packages with the given fields.
func goList(t *testing.T, fields string) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-json="+fields, module+"...")
	cmd.Dir = "../../.."
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

// pure are the rows whose design is to do no cluster I/O: the snapshot and
// its offline readers, the planner and the plan document, and the verdict's
// codec (its ConfigMap store, apply/fleet/verdictstore, is the edge).
var pure = []string{"inspect", "plan", "plan/planfile", "apply/fleet/verdict"}

// TestPureRowsReachNoClientGo: the packages of the pure rows reach no
// k8s.io/client-go, directly or through anything they import, so that
// cluster I/O stays at the edges (inspect/live, apply, the verdict's store).
// The import table alone would let a row name client-go; this says it never
// may for these.
func TestPureRowsReachNoClientGo(t *testing.T) {
	rows := readImportTable(t, architecture)
	for _, key := range pure {
		i := slices.IndexFunc(rows, func(r row) bool { return r.Key == key })
		if i < 0 {
			t.Errorf("pure row %s is not in the import table of docs/architecture.md", key)
		} else if slices.Contains(rows[i].Imports, clientGo) {
			t.Errorf("docs/architecture.md:%d: row %s names %s; it is a pure row (no cluster I/O)", rows[i].Line, key, clientGo)
		}
	}
	seen := 0
	for _, p := range goList(t, "ImportPath,Deps") {
		rel := strings.TrimPrefix(p.ImportPath, module)
		if !slices.Contains(pure, rowOf(rows, rel)) {
			continue
		}
		seen++
		if i := slices.IndexFunc(p.Deps, func(d string) bool { return d == clientGo || strings.HasPrefix(d, clientGo+"/") }); i >= 0 {
			t.Errorf("%s (a pure row: no cluster I/O) reaches %s: keep the client at the edge (apply/fleet/verdictstore, inspect/live, apply)", rel, p.Deps[i])
		}
	}
	if seen < len(pure) {
		t.Fatalf("only %d packages of the pure rows; go list did not see the module", seen)
	}
}

// documentReaders are the packages that read a plan and must import the plan
// document (plan/planfile), never the planner (plan): the engine, its journal,
// its gates, its applier, and the TUI. The table's rows are too coarse to say
// it (apply/'s row holds apply/fleetexport, which plans), so it is a rule of
// its own; tests may import the planner.
var documentReaders = []string{"apply", "apply/journal", "apply/gate", "apply/resource", "tui"}

// TestDocumentReadersDoNotImportThePlanner: apply, apply/journal, apply/gate,
// apply/resource and tui/... import plan/planfile, not plan.
func TestDocumentReadersDoNotImportThePlanner(t *testing.T) {
	seen := 0
	for _, p := range goList(t, "ImportPath,Imports") {
		rel := strings.TrimPrefix(p.ImportPath, module)
		if !slices.Contains(documentReaders, rel) && !strings.HasPrefix(rel, "tui/") {
			continue
		}
		seen++
		if slices.Contains(p.Imports, module+"plan") {
			t.Errorf("%s imports the planner (plan): import the plan document (plan/planfile) instead", rel)
		}
	}
	if seen < len(documentReaders) {
		t.Fatalf("go list showed %d of the document's readers; want at least %d", seen, len(documentReaders))
	}
}
