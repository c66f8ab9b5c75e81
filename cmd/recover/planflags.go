package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/graph"
	"github.com/openshift-recover/recover/plan/payload"
)

// planInputFlags say where the plan inputs come from: the update graph and the
// release payload. recover graph, recover payload and recover plan share them so a
// runbook can move a flag set from one command to the next unchanged.
type planInputFlags struct {
	// Graph is an update-service graph file or URL, or (with GraphData) a raw
	// graph-builder graph.
	Graph     string
	GraphData string
	Channel   string
	Arch      string

	// Payload is an extracted payload directory or a release image pull spec.
	Payload        string
	RegistryConfig string
	PayloadVersion string
	CacheDir       string
	// DecodedCache keeps decoded payloads in the cache directory's decoded/.
	DecodedCache bool
	// GraphCache keeps loaded graphs in the cache directory's graphs/ (only the
	// commands that register --graph-cache, which also take --payload-cache-dir).
	GraphCache bool
}

// addGraphFlags registers --graph, --graph-data, --channel and --arch.
func (f *planInputFlags) addGraphFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.Graph, "graph", f.Graph, "Update graph: an update service graph file or URL (https://.../graph), or with --graph-data a graph-builder graph file.")
	fs.StringVar(&f.GraphData, "graph-data", f.GraphData, "cincinnati-graph-data directory (channels/, blocked-edges/) to apply to --graph, as a disconnected update service does.")
	fs.StringVar(&f.Channel, "channel", f.Channel, "Update channel, e.g. stable-4.4 (sent to the update service; filters a graph-data graph).")
	fs.StringVar(&f.Arch, "arch", f.Arch, "Architecture of the releases (default amd64).")
	_ = cmd.MarkFlagFilename("graph", "json")
	_ = cmd.MarkFlagDirname("graph-data")
}

// addPayloadFlags registers --payload, --registry-config, --payload-version and
// --payload-cache-dir.
func (f *planInputFlags) addPayloadFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.Payload, "payload", f.Payload, "Release payload: an `oc adm release extract` directory, or a release image pull spec by digest.")
	fs.StringVar(&f.RegistryConfig, "registry-config", f.RegistryConfig, "Registry credentials (docker config.json or pull secret) for pulling --payload.")
	fs.StringVar(&f.PayloadVersion, "payload-version", f.PayloadVersion, "Release version of a bare manifest tree without release-metadata.")
	fs.StringVar(&f.CacheDir, "payload-cache-dir", f.CacheDir, "Directory for extracted release images, by digest (default: the user cache directory).")
	fs.BoolVar(&f.DecodedCache, "decoded-payload-cache", true, "Keep decoded payloads in the payload cache directory's decoded/, so a payload seen before is not decoded again; =false disables it.")
	_ = cmd.MarkFlagDirname("payload")
	_ = cmd.MarkFlagFilename("registry-config", "json")
	_ = cmd.MarkFlagDirname("payload-cache-dir")
}

// addGraphCacheFlag registers --graph-cache, for commands that also register the
// payload flags (the cache lives in --payload-cache-dir).
func (f *planInputFlags) addGraphCacheFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.GraphCache, "graph-cache", true, "Keep loaded update graphs in the payload cache directory's graphs/, so a graph with graph-data, channel and arch seen before is not processed again; =false disables it.")
}

// trim normalises the flag values (Complete).
func (f *planInputFlags) trim() {
	for _, p := range []*string{&f.Graph, &f.GraphData, &f.Channel, &f.Arch, &f.Payload, &f.RegistryConfig, &f.PayloadVersion, &f.CacheDir} {
		*p = strings.TrimSpace(*p)
	}
}

// validateGraph checks the graph flags of a command that needs a graph (Validate).
func (f *planInputFlags) validateGraph() error {
	if err := f.validateGraphData(); err != nil {
		return err
	}
	if f.Graph == "" {
		return usageError{msg: "--graph is required: an update service graph file or URL"}
	}
	return nil
}

// validateGraphData refuses --graph-data without --graph (Validate).
func (f *planInputFlags) validateGraphData() error {
	if f.GraphData != "" && f.Graph == "" {
		return usageError{msg: "--graph-data needs --graph: the graph-builder graph to apply it to"}
	}
	return nil
}

// validatePayload checks the payload flags (Validate).
func (f *planInputFlags) validatePayload() error {
	if f.Payload == "" {
		return usageError{msg: "--payload is required: an `oc adm release extract` directory or a release pull spec"}
	}
	return nil
}

// graphOptions builds the graph loader's options.
func (f *planInputFlags) graphOptions() graph.Options {
	return graph.Options{Graph: f.Graph, GraphData: f.GraphData, Channel: f.Channel, Arch: f.Arch, UserAgent: "recover/" + currentVersion().Version, CacheDir: f.graphCacheDir()}
}

// graphCacheDir is the loaded-graph cache directory, "" when disabled: graphs/
// beside the decoded payloads.
func (f *planInputFlags) graphCacheDir() string {
	if !f.GraphCache {
		return ""
	}
	return payload.GraphCacheDir(f.CacheDir)
}

// loadGraph loads the graph the flags name.
func (f *planInputFlags) loadGraph(ctx context.Context) (*graph.Result, error) {
	return graph.Load(ctx, f.graphOptions())
}

// pullOptions builds the puller's options.
func (f *planInputFlags) pullOptions() payload.PullOptions {
	return payload.PullOptions{RegistryConfig: f.RegistryConfig, CacheDir: f.CacheDir, Arch: f.Arch}
}

// loadPayload loads the payload the flags name with the given inclusion inputs.
// releaseImage renders the CVO's own manifests ({{.ReleaseImage}}); for a pull spec
// it defaults to the pull spec.
func (f *planInputFlags) loadPayload(ctx context.Context, in payload.Inclusion, releaseImage string) (*payload.Payload, error) {
	return payload.Load(ctx, f.Payload, payload.Options{Inclusion: in, ReleaseImage: releaseImage, Version: f.PayloadVersion, CacheDir: f.decodedCacheDir()}, f.pullOptions())
}

// decodedCacheDir is the decoded-payload cache directory, "" when disabled.
func (f *planInputFlags) decodedCacheDir() string {
	if !f.DecodedCache {
		return ""
	}
	return payload.DecodedCacheDir(f.CacheDir)
}

// stringSliceVar registers a comma-separated list flag.
func stringSliceVar(fs *pflag.FlagSet, p *[]string, name, usage string) {
	fs.StringSliceVar(p, name, *p, usage)
}

// payloadSource says where the planner gets the target payload: the --payload
// directory, the --payload pull spec, or (without --payload) the chosen target's
// own pull spec from the graph.
func (f *planInputFlags) payloadSource() plan.PayloadSource {
	pull := f.pullOptions()
	switch {
	case f.Payload == "":
		return plan.PayloadImage{Pull: pull, CacheDir: f.decodedCacheDir()}
	case payload.IsPullSpec(f.Payload):
		return plan.PayloadImage{PullSpec: f.Payload, Pull: pull, CacheDir: f.decodedCacheDir()}
	}
	return plan.PayloadDir{Dir: f.Payload, Version: f.PayloadVersion, CacheDir: f.decodedCacheDir()}
}
