package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Set at link time: -ldflags "-X main.version=v0.1.0 -X main.commit=abc123".
var (
	version = ""
	commit  = ""
)

// VersionInfo is what recover version prints.
type VersionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// currentVersion returns the link-time version, or the module version and VCS
// revision the Go toolchain recorded.
func currentVersion() VersionInfo {
	v := VersionInfo{Version: version, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && v.Commit == "" {
				v.Commit = s.Value
			}
		}
	}
	if v.Version == "" {
		v.Version = "devel"
	}
	return v
}

func newVersionCmd(streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print recover's version",
		Args:  cobra.NoArgs,
	}
	out := addOutputFlag(cmd, outputTable, outputJSON, outputYAML)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := out.Validate(); err != nil {
			return err
		}
		v := currentVersion()
		return out.Print(streams.Out, v, printers{table: func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "recover %s (commit %s, %s, %s)\n", v.Version, orUnknown(v.Commit), v.GoVersion, v.Platform)
			return err
		}})
	}
	return cmd
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
