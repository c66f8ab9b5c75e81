package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/openshift-recover/recover/plan/payload"
)

func init() { registerCommand(newPayloadCmd) }

// payloadOptions are recover payload's options.
type payloadOptions struct {
	inputs         planInputFlags
	releaseImage   string
	profile        string
	excludeID      string
	featureSet     string
	featureGates   []string
	capabilities   []string
	knownCaps      []string
	rules          string
	includedOnly   bool
	out            *outputFlag
	streams        genericiooptions.IOStreams
	inclusion      payload.Inclusion
	capsGiven      bool
	knownCapsGiven bool
}

func newPayloadCmd(g *globalOptions) *cobra.Command {
	cmd, _ := newPayloadCommand(g)
	return cmd
}

// newPayloadCommand builds the command and returns the options its flags fill.
func newPayloadCommand(g *globalOptions) (*cobra.Command, *payloadOptions) {
	o := &payloadOptions{streams: g.streams}
	cmd := &cobra.Command{
		Use:   "payload --payload DIR|PULLSPEC",
		Short: "List a release payload's manifests in the CVO's update order, included or excluded and why",
		Long: `payload reads a release payload (an oc adm release extract directory, or a release
image by digest) as the cluster-version operator reads it, and lists every manifest in
the order the CVO applies them when it updates: stage (stages run one after another),
group (groups of a stage run in parallel; a group is serial), run-level, component,
kind and name, and whether the cluster applies it and why.

The inclusion inputs describe the cluster: --cluster-profile (the CVO's CLUSTER_PROFILE),
--exclude-manifests (EXCLUDE_MANIFESTS), --feature-set, --feature-gates and, for
clusters with capabilities, --capabilities and --known-capabilities (which defaults to
every capability the CVO knows, so that one left out of --capabilities is disabled, as
the CVO says, rather than unrecognized). recover plan fills them from the cluster
snapshot instead: ClusterVersion status.capabilities, FeatureGate/cluster and the CVO
Deployment's CLUSTER_PROFILE, and says which it had to assume.`,
		Example: `  recover payload --payload examples/reconciled-4.3-to-4.4/releases/4.4.4
  recover payload --payload quay.io/openshift-release-dev/ocp-release@sha256:... --registry-config pull-secret.json -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(cmd); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd)
		},
	}
	o.inputs.addPayloadFlags(cmd)
	fs := cmd.Flags()
	fs.StringVar(&o.inputs.Arch, "arch", "", "Architecture to pull from a multi-arch release image (default amd64).")
	fs.StringVar(&o.releaseImage, "release-image", "", "Release pull spec to render the CVO's own manifests with (default: --payload when it is a pull spec).")
	fs.StringVar(&o.profile, "cluster-profile", "", "Cluster profile (the CVO's CLUSTER_PROFILE; default "+payload.DefaultClusterProfile+").")
	fs.StringVar(&o.excludeID, "exclude-manifests", "", "Exclusion id (the CVO's EXCLUDE_MANIFESTS, e.g. internal-openshift-hosted).")
	fs.StringVar(&o.featureSet, "feature-set", "", "Feature set (FeatureGate spec.featureSet; default Default).")
	stringSliceVar(fs, &o.featureGates, "feature-gates", "Enabled feature gates (comma-separated).")
	stringSliceVar(fs, &o.capabilities, "capabilities", "Enabled capabilities (comma-separated); without it capabilities are not filtered.")
	stringSliceVar(fs, &o.knownCaps, "known-capabilities", "Known capabilities (default: every capability the CVO knows, "+strings.Join(payload.KnownCapabilities(), ",")+").")
	fs.StringVar(&o.rules, "rules", "", "Inclusion rules: library-go or pre-profiles (default: pre-profiles for payloads without include.release.openshift.io annotations).")
	fs.BoolVar(&o.includedOnly, "included-only", false, "List only the manifests the cluster applies.")
	o.out = addOutputFlag(cmd, outputTable, outputJSON, outputYAML)
	return cmd, o
}

// Complete normalises the flags and builds the inclusion inputs.
func (o *payloadOptions) Complete(cmd *cobra.Command) error {
	o.inputs.trim()
	o.capsGiven = cmd.Flags().Changed("capabilities")
	o.knownCapsGiven = cmd.Flags().Changed("known-capabilities")
	o.inclusion = payload.Inclusion{
		ExcludeID: strings.TrimSpace(o.excludeID), Profile: strings.TrimSpace(o.profile),
		FeatureSet: strings.TrimSpace(o.featureSet), EnabledFeatureGates: o.featureGates,
		Rules: payload.RuleSet(strings.TrimSpace(o.rules)),
	}
	if o.inclusion.FeatureSet == "Default" {
		o.inclusion.FeatureSet = "" // the Default feature set is spelled empty in the manifests' annotations
	}
	if o.capsGiven || o.knownCapsGiven {
		known := o.knownCaps
		if !o.knownCapsGiven {
			// The CVO's own known set, never the enabled ones: a capability
			// left out of --capabilities is disabled, not unrecognized.
			known = payload.KnownCapabilities()
		}
		o.inclusion.Capabilities = &payload.Capabilities{Enabled: o.capabilities, Known: known}
	}
	return nil
}

// Validate checks the flags.
func (o *payloadOptions) Validate() error {
	if err := o.out.Validate(); err != nil {
		return err
	}
	switch o.inclusion.Rules {
	case payload.RulesAuto, payload.RulesLibraryGo, payload.RulesPreProfiles:
	default:
		return usageError{msg: fmt.Sprintf("unknown --rules %q: use library-go or pre-profiles", o.inclusion.Rules)}
	}
	return o.inputs.validatePayload()
}

// Run loads the payload and prints the report.
func (o *payloadOptions) Run(cmd *cobra.Command) error {
	p, err := o.inputs.loadPayload(cmd.Context(), o.inclusion, o.releaseImage)
	if err != nil {
		return err
	}
	r := payload.NewReport(p, o.includedOnly)
	return o.out.Print(o.streams.Out, r, printers{table: r.WriteTable})
}
