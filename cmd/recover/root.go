package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/openshift-recover/recover/internal/termtext"
)

// globalOptions are shared by every command: the kubectl-style connection flags and
// the I/O streams.
type globalOptions struct {
	kube    *genericclioptions.ConfigFlags
	streams genericiooptions.IOStreams
}

// commandFactories build recover's subcommands. Each command lives in its own file
// and registers its factory from that file's init function, so commands are added
// without touching this one; help lists them sorted by name.
var commandFactories []func(*globalOptions) *cobra.Command

// registerCommand adds a subcommand factory; call it from init.
func registerCommand(f func(*globalOptions) *cobra.Command) {
	commandFactories = append(commandFactories, f)
}

// newRootCmd builds the recover command tree, named as plain recover.
func newRootCmd(streams genericiooptions.IOStreams) *cobra.Command {
	return newRootCmdNamed(streams, defaultName)
}

// newRootCmdNamed builds the recover command tree whose help and usage lines show
// name: "recover", or "kubectl recover" / "oc recover" when run as a plugin (see
// invokedName).
func newRootCmdNamed(streams genericiooptions.IOStreams, name string) *cobra.Command {
	g := &globalOptions{kube: genericclioptions.NewConfigFlags(true), streams: streams}
	root := &cobra.Command{
		Use:   "recover",
		Short: "Get a wedged OpenShift cluster back onto a safe, ordered update",
		Long: `recover inspects an OpenShift cluster (live, or offline from a must-gather or an
Insights archive), finds where the cluster's claims and reality disagree, plans the
nearest safe next-hop release with a manifest-by-manifest order, and applies that plan
with the cluster-version operator disabled: locked, journaled, verified and resumable.

Data flows one way: inspect -> plan -> apply. Every step can stop at a file:
  ` + name + ` inspect -o json > snapshot.json
  ` + name + ` plan -o json > plan.json
  ` + name + ` apply --plan plan.json`,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: name},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	g.kube.AddFlags(root.PersistentFlags())
	// As kubectl does: API server warnings (deprecated fields in payload manifests,
	// typically) are printed once each on stderr, never repeated per request.
	rest.SetDefaultWarningHandler(rest.NewWarningWriter(streams.ErrOut, rest.WarningWriterOptions{Deduplicate: true}))
	registerKubeCompletions(root, g)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError{msg: err.Error() + " (see '" + name + " --help')"}
	})
	for _, f := range commandFactories {
		root.AddCommand(f(g))
	}
	root.AddCommand(newVersionCmd(streams))
	markArgErrorsAsUsage(root)
	return root
}

// markArgErrorsAsUsage makes positional-argument errors exit with ExitUsage.
func markArgErrorsAsUsage(c *cobra.Command) {
	if validate := c.Args; validate != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := validate(cmd, args); err != nil {
				return usageError{msg: fmt.Sprintf("%v (see '%s --help')", err, cmd.CommandPath())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markArgErrorsAsUsage(sub)
	}
}

// registerKubeCompletions completes --context, --cluster and --user from the kubeconfig.
func registerKubeCompletions(root *cobra.Command, g *globalOptions) {
	complete := func(names func(raw clientcmdapi.Config) []string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			raw, err := g.kube.ToRawKubeConfigLoader().RawConfig()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			list := names(raw)
			sort.Strings(list)
			return list, cobra.ShellCompDirectiveNoFileComp
		}
	}
	_ = root.RegisterFlagCompletionFunc("context", complete(func(c clientcmdapi.Config) []string { return slices.Collect(maps.Keys(c.Contexts)) }))
	_ = root.RegisterFlagCompletionFunc("cluster", complete(func(c clientcmdapi.Config) []string { return slices.Collect(maps.Keys(c.Clusters)) }))
	_ = root.RegisterFlagCompletionFunc("user", complete(func(c clientcmdapi.Config) []string { return slices.Collect(maps.Keys(c.AuthInfos)) }))
}

// run executes recover with args and returns the process exit code. Errors are
// printed as one line on stderr.
func run(ctx context.Context, args []string, streams genericiooptions.IOStreams) int {
	return runNamed(ctx, defaultName, args, streams)
}

// runNamed is run with the name help and usage lines show (see invokedName).
func runNamed(ctx context.Context, name string, args []string, streams genericiooptions.IOStreams) int {
	root := newRootCmdNamed(streams, name)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if strings.HasPrefix(err.Error(), "unknown command") {
		err = usageError{msg: err.Error()}
	}
	code := exitCodeFor(err)
	if !errors.Is(err, errSilent) {
		fmt.Fprintln(streams.ErrOut, "error: "+termtext.OneLine(err.Error()))
	}
	return code
}

// errSilent marks an error whose message the command has already printed.
var errSilent = errors.New("already reported")
