package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/openshift-recover/recover/plan/planfile"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// Output formats. Every command that prints data takes -o/--output with a subset of
// these; table (the human view) is the default.
const (
	outputTable    = "table"
	outputJSON     = "json"
	outputYAML     = "yaml"
	outputMarkdown = "markdown"
)

// outputFlag is the -o/--output flag of one command.
type outputFlag struct {
	format  string
	allowed []string
}

// addOutputFlag registers -o/--output on cmd, accepting the given formats (the first
// is the default), and wires shell completion for them.
func addOutputFlag(cmd *cobra.Command, allowed ...string) *outputFlag {
	o := &outputFlag{format: allowed[0], allowed: allowed}
	cmd.Flags().StringVarP(&o.format, "output", "o", o.format,
		"Output format. One of: "+strings.Join(allowed, "|")+".")
	_ = cmd.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return allowed, cobra.ShellCompDirectiveNoFileComp
	})
	return o
}

// Validate checks that the chosen format is one the command supports.
func (o *outputFlag) Validate() error {
	if slices.Contains(o.allowed, o.format) {
		return nil
	}
	return usageError{msg: fmt.Sprintf("unsupported output format %q: use one of %s", o.format, strings.Join(o.allowed, "|"))}
}

// Machine reports whether the format is a machine-readable one (json or yaml).
func (o *outputFlag) Machine() bool { return o.format == outputJSON || o.format == outputYAML }

// printers holds the renderers of one value; json and yaml come for free from the
// value itself.
type printers struct {
	table    func(w io.Writer) error
	markdown func(w io.Writer) error
}

// Print writes v in the chosen format.
func (o *outputFlag) Print(w io.Writer, v any, p printers) error {
	switch o.format {
	case outputJSON:
		return writeJSON(w, v)
	case outputYAML:
		return writeYAML(w, v)
	case outputMarkdown:
		if p.markdown != nil {
			return p.markdown(w)
		}
	case outputTable:
		if p.table != nil {
			return p.table(w)
		}
	}
	return usageError{msg: fmt.Sprintf("output format %q is not available here", o.format)}
}

// writeJSON writes v as indented JSON with a trailing newline; a plan through
// plan.Encode, the plan document's one writer (what apply loads byte for byte).
func writeJSON(w io.Writer, v any) error {
	if p, ok := v.(*planfile.Plan); ok {
		return planfile.Encode(w, p)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeYAML writes v as YAML, through its JSON form so field names match -o json.
func writeYAML(w io.Writer, v any) error {
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
