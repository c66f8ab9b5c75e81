package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// validated is what every command's options offer after Complete.
type validated interface{ Validate() error }

// completeFor builds the command for args, parses them and runs its Complete; it
// returns the options ready for Validate.
type completeFor func(t *testing.T, g *globalOptions, args []string) (validated, error)

func parsed(t *testing.T, cmd *cobra.Command, args []string) {
	t.Helper()
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("parsing %v: %v", args, err)
	}
}

var commandOptions = map[string]completeFor{
	"inspect": func(t *testing.T, g *globalOptions, args []string) (validated, error) {
		cmd, o := newInspectCommand(g)
		parsed(t, cmd, args)
		return o, o.Complete()
	},
	"plan": func(t *testing.T, g *globalOptions, args []string) (validated, error) {
		cmd, o := newPlanCommand(g)
		parsed(t, cmd, args)
		return o, o.Complete(cmd)
	},
	"payload": func(t *testing.T, g *globalOptions, args []string) (validated, error) {
		cmd, o := newPayloadCommand(g)
		parsed(t, cmd, args)
		return o, o.Complete(cmd)
	},
	"graph": func(t *testing.T, g *globalOptions, args []string) (validated, error) {
		cmd, o := newGraphCommand(g)
		parsed(t, cmd, args)
		return o, o.Complete()
	},
	"apply": func(t *testing.T, g *globalOptions, args []string) (validated, error) {
		cmd, o := newApplyCommand(g)
		parsed(t, cmd, args)
		return o, o.Complete()
	},
	"tui": func(t *testing.T, g *globalOptions, args []string) (validated, error) {
		cmd, o := newTUICommand(g)
		parsed(t, cmd, args)
		o.terminal = func() bool { return true }
		return o, o.Complete()
	},
}

// TestValidateChecksAndNeverMutates runs each command's Complete and then its
// Validate, and checks that Validate gave the expected verdict (a usage error,
// exit 2, naming what is wrong) and left every option exactly as Complete made
// it: Validate validates, it does not fill in (kubectl's Complete/Validate/Run).
func TestValidateChecksAndNeverMutates(t *testing.T) {
	mg := filepath.Join("..", "..", "examples", "reconciled-4.3-to-4.4", "must-gather")
	plan := writePlanFile(t)
	for _, tc := range []struct {
		cmd  string
		args []string
		// want is a substring of Validate's error; "" when it must pass.
		want string
	}{
		{cmd: "inspect", args: []string{"--must-gather", mg}},
		{cmd: "inspect", args: []string{"--must-gather", mg, "-o", "xml"}, want: "xml"},
		{cmd: "inspect", args: []string{"--must-gather", mg, "--insights-archive", "x.tar.gz"}, want: "--insights-archive"},
		{cmd: "plan", args: []string{"--must-gather", mg, "--graph", "g.json", "--payload", "p"}},
		{cmd: "plan", args: []string{"--must-gather", mg, "--graph", "g.json", "--payload", "p", "--graph-cache=false", "--decoded-payload-cache=false"}},
		{cmd: "plan", args: []string{"--must-gather", mg, "--graph-data", "d"}, want: "--graph-data needs --graph"},
		{cmd: "plan", args: []string{"--must-gather", mg, "--payload-version", "4.4.4"}, want: "--payload-version needs --payload"},
		{cmd: "plan", args: []string{"--must-gather", mg, "-o", "xml"}, want: "xml"},
		{cmd: "payload", args: []string{"--payload", "p", "--feature-set", "Default"}},
		{cmd: "payload", args: []string{"--payload", "p", "--rules", "newest"}, want: "unknown --rules"},
		{cmd: "payload", args: nil, want: "--payload is required"},
		{cmd: "graph", args: []string{"--graph", "g.json", "--from", " 4.3.19 "}},
		{cmd: "apply", args: []string{"--plan", plan, "--yes"}},
		{cmd: "apply", args: []string{"--plan", plan, "--yes", "--events", "xml"}, want: "--events"},
		{cmd: "apply", args: []string{"--plan", plan, "--yes", "--backup-record", "b.yaml", "--i-have-a-backup"}, want: "either --backup-record"},
		{cmd: "apply", args: []string{"--plan", plan}, want: "no terminal"},
		{cmd: "apply", args: []string{"--plan", plan, "--print-plan-configmap", "--plan-configmap", "p"}},
		{cmd: "apply", args: []string{"--plan", plan, "--print-rbac", "--service-account", "sa"}},
		{cmd: "apply", args: []string{"--plan", plan, "--yes", "--plan-configmap", "p"}, want: "--plan-configmap is for --in-cluster"},
		{cmd: "apply", args: []string{"--plan", plan, "--yes", "--service-account", "sa"}, want: "--service-account is for --print-rbac"},
		{cmd: "apply", args: []string{"--plan", plan, "--print-rbac", "--dry-run"}, want: "only print"},
		{cmd: "tui", args: []string{"--must-gather", mg}},
		{cmd: "tui", args: []string{"--must-gather", mg, "--graph-cache=false"}},
		{cmd: "tui", args: []string{"--must-gather", mg, "--resume", "run.journal"}, want: "--resume reattaches"},
		{cmd: "tui", args: []string{"--graph-data", "d"}, want: "--graph-data needs --graph"},
		{cmd: "tui", args: []string{"--plan", plan, "--graph", "g.json"}, want: "give one or the other"},
		{cmd: "tui", args: []string{"--must-gather", mg, "--gate-timeout", "nodes-settled=3s"}, want: "--gate-timeout is for a run on the live cluster"},
	} {
		t.Run(tc.cmd+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			streams, _, _, _ := genericiooptions.NewTestIOStreams()
			g := &globalOptions{kube: genericclioptions.NewConfigFlags(true), streams: streams}
			o, err := commandOptions[tc.cmd](t, g, tc.args)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			before := deepDump(o)
			err = o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate: %v, want no error", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate: %v, want an error naming %q", err, tc.want)
			case tc.want != "" && exitCodeFor(err) != ExitUsage:
				t.Errorf("Validate's error %q exits %d, want %d (usage)", err, exitCodeFor(err), ExitUsage)
			}
			if after := deepDump(o); after != before {
				t.Errorf("Validate changed the options:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	// Every command with options is in the table.
	var names []string
	for name := range commandOptions {
		names = append(names, name)
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "apply graph inspect payload plan tui" {
		t.Errorf("commands covered: %s", got)
	}
}

// TestDumpSeesAMutation keeps deepDump honest: a change deep inside the options (a
// field of a struct behind a pointer, unexported) changes what it prints.
func TestDumpSeesAMutation(t *testing.T) {
	streams, _, _, _ := genericiooptions.NewTestIOStreams()
	g := &globalOptions{kube: genericclioptions.NewConfigFlags(true), streams: streams}
	cmd, o := newPlanCommand(g)
	parsed(t, cmd, []string{"--must-gather", "mg"})
	before := deepDump(o)
	o.source.mustGather = "other"
	if deepDump(o) == before {
		t.Fatal("deepDump did not see a changed --must-gather behind the source pointer")
	}
	o.source.mustGather = "mg"
	o.inputs.Channel = "stable-4.4"
	if deepDump(o) == before {
		t.Fatal("deepDump did not see a changed channel in an embedded struct")
	}
}

// deepDump prints v deeply: through pointers, into unexported fields, maps in key
// order; funcs, channels and the global options (streams, kube flags) are left
// out, and each pointer is followed once.
func deepDump(v any) string {
	var b strings.Builder
	seen := map[uintptr]bool{}
	var walk func(reflect.Value, int)
	walk = func(v reflect.Value, depth int) {
		if depth > 12 {
			b.WriteString("…")
			return
		}
		switch v.Kind() {
		case reflect.Invalid:
			b.WriteString("<nil>")
		case reflect.Pointer:
			if v.IsNil() {
				b.WriteString("nil")
				return
			}
			if seen[v.Pointer()] {
				b.WriteString("&<seen>")
				return
			}
			seen[v.Pointer()] = true
			b.WriteString("&")
			walk(v.Elem(), depth+1)
		case reflect.Interface:
			if v.IsNil() {
				b.WriteString("nil")
				return
			}
			walk(v.Elem(), depth+1)
		case reflect.Struct:
			b.WriteString(v.Type().String() + "{")
			for i := 0; i < v.NumField(); i++ {
				f := v.Type().Field(i)
				if f.Type == reflect.TypeOf(&globalOptions{}) {
					continue
				}
				b.WriteString(f.Name + ":")
				walk(v.Field(i), depth+1)
				b.WriteString(" ")
			}
			b.WriteString("}")
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.IsNil() {
				b.WriteString("nil")
				return
			}
			b.WriteString("[")
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), depth+1)
				b.WriteString(",")
			}
			b.WriteString("]")
		case reflect.Map:
			keys := v.MapKeys()
			sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
			b.WriteString("map[")
			for _, k := range keys {
				walk(k, depth+1)
				b.WriteString(":")
				walk(v.MapIndex(k), depth+1)
				b.WriteString(",")
			}
			b.WriteString("]")
		case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		case reflect.String:
			fmt.Fprintf(&b, "%q", v.String())
		case reflect.Bool:
			fmt.Fprint(&b, v.Bool())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			fmt.Fprint(&b, v.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			fmt.Fprint(&b, v.Uint())
		case reflect.Float32, reflect.Float64:
			fmt.Fprint(&b, v.Float())
		default:
			b.WriteString(v.Kind().String())
		}
	}
	walk(reflect.ValueOf(v), 0)
	return b.String()
}

// writePlanFile saves the full test plan where apply's Complete can load it.
func writePlanFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, planJSON(t, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
