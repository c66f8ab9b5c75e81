package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/dump"
	"github.com/openshift-recover/recover/inspect/insights"
	"github.com/openshift-recover/recover/inspect/live"
	"github.com/openshift-recover/recover/inspect/mustgather"
)

// sourceFlags choose where a command reads the cluster's state: the live cluster
// (the root's kubeconfig flags, the default) or one offline source. inspect, plan
// and tui share them.
type sourceFlags struct {
	mustGather string
	insights   string
	files      []string
	snapshot   string
	// logBytes bounds each component log read live (inspect's
	// --log-limit-bytes, registered when logFlag).
	logBytes int64
	logFlag  bool
}

// addSourceFlags registers --must-gather, --insights-archive, --from-file and
// --snapshot on cmd.
func addSourceFlags(cmd *cobra.Command) *sourceFlags {
	f := &sourceFlags{}
	fl := cmd.Flags()
	fl.StringVar(&f.mustGather, "must-gather", "", "Read the cluster from a must-gather directory or .tar.gz instead of the live cluster.")
	fl.StringVar(&f.insights, "insights-archive", "", "Read the cluster from an Insights operator archive (directory or .tar.gz).")
	fl.StringSliceVar(&f.files, "from-file", nil, "Read the cluster from files of 'oc get ... -o yaml|json' output (repeatable).")
	fl.StringVar(&f.snapshot, "snapshot", "", "Read a snapshot saved with 'recover inspect -o json' ('-' for stdin).")
	_ = cmd.MarkFlagDirname("must-gather")
	return f
}

// addLogFlags registers --log-limit-bytes on cmd (inspect's).
func (f *sourceFlags) addLogFlags(cmd *cobra.Command) {
	f.logFlag = true
	cmd.Flags().Int64Var(&f.logBytes, "log-limit-bytes", live.DefaultLogBytes,
		"Live: read at most this many bytes of each component log that matters (the CVO, machine-config daemons and controller, latest installers, machine approver) through pods/log; 0 reads no log.")
}

// Validate checks that at most one offline source was given.
func (f *sourceFlags) Validate() error {
	if f.logBytes < 0 {
		return usageError{msg: fmt.Sprintf("--log-limit-bytes %d is negative; give 0 to read no log", f.logBytes)}
	}
	var set []string
	if f.mustGather != "" {
		set = append(set, "--must-gather")
	}
	if f.insights != "" {
		set = append(set, "--insights-archive")
	}
	if len(f.files) > 0 {
		set = append(set, "--from-file")
	}
	if f.snapshot != "" {
		set = append(set, "--snapshot")
	}
	if len(set) > 1 {
		return usageError{msg: fmt.Sprintf("%s cannot be combined: give one source", strings.Join(set, " and "))}
	}
	return nil
}

// Live reports whether the live cluster is the source.
func (f *sourceFlags) Live() bool {
	return f.mustGather == "" && f.insights == "" && len(f.files) == 0 && f.snapshot == ""
}

// Source builds the chosen source; the live one from the root's kubeconfig flags.
func (f *sourceFlags) Source(g *globalOptions) (inspect.Source, error) {
	switch {
	case f.mustGather != "":
		return mustgather.New(f.mustGather), nil
	case f.insights != "":
		return insights.New(f.insights), nil
	case len(f.files) > 0:
		return dump.New(f.files...), nil
	case f.snapshot != "":
		return inspect.FileSource{Path: f.snapshot, In: g.streams.In}, nil
	}
	cfg, err := g.kube.ToRESTConfig()
	if err != nil {
		return nil, withExitCode(fmt.Errorf("no cluster to inspect: %v; pass --kubeconfig or --context, or read offline with --must-gather PATH", err), ExitCluster)
	}
	opts := live.Options{}
	switch {
	case f.logFlag && f.logBytes == 0:
		opts.Logs.Disabled = true
	case f.logBytes > 0:
		opts.Logs.MaxBytes = f.logBytes
	}
	src, err := live.New(cfg, opts)
	if err != nil {
		return nil, withExitCode(err, ExitCluster)
	}
	return src, nil
}
