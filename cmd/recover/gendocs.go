//go:build gendocs

package main

// This file is built only with -tags gendocs (hack/release does, to write the man
// pages and shell completions that ship in the release archives), so the product
// binary links neither github.com/spf13/cobra/doc nor its markdown renderer;
// TestProductBinaryHasNoDocGenerator holds that.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

func init() {
	registerCommand(func(*globalOptions) *cobra.Command {
		var dir string
		cmd := &cobra.Command{
			Use:    "gendocs",
			Short:  "Write man pages and shell completions (release builds only)",
			Hidden: true,
			Args:   cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return genDocs(cmd.Root(), dir)
			},
		}
		cmd.Flags().StringVar(&dir, "dir", "", "directory to write man/man1/ and completions/ into")
		_ = cmd.MarkFlagRequired("dir")
		return cmd
	})
}

// genDocs writes dir/man/man1/*.1 and dir/completions/{recover.bash,_recover,recover.fish}
// for the tree under root. The pages' date comes from SOURCE_DATE_EPOCH (cobra's
// rule; hack/release sets it to the commit time), and flag defaults that spell out
// the generating user's home directory are written as $HOME, so the output depends
// on the source alone.
func genDocs(root *cobra.Command, dir string) error {
	home, _ := os.UserHomeDir()
	portable(root, home)
	man := filepath.Join(dir, "man", "man1")
	comp := filepath.Join(dir, "completions")
	for _, d := range []string{man, comp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	header := &doc.GenManHeader{Section: "1", Source: defaultName + " " + currentVersion().Version, Manual: "recover manual"}
	if err := doc.GenManTree(root, header, man); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	for name, gen := range map[string]func(f *os.File) error{
		defaultName + ".bash": func(f *os.File) error { return root.GenBashCompletionV2(f, true) },
		"_" + defaultName:     func(f *os.File) error { return root.GenZshCompletion(f) },
		defaultName + ".fish": func(f *os.File) error { return root.GenFishCompletion(f, true) },
	} {
		f, err := os.Create(filepath.Join(comp, name))
		if err != nil {
			return err
		}
		if err := gen(f); err != nil {
			f.Close()
			return fmt.Errorf("completion %s: %w", name, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// portable drops cobra's "Auto generated ... on <today>" tag and writes home-relative
// flag defaults (kubectl's --cache-dir is $HOME/.kube/cache) with $HOME, on every
// command of the tree.
func portable(c *cobra.Command, home string) {
	c.DisableAutoGenTag = true
	fix := func(f *pflag.Flag) {
		if home != "" && home != "/" && strings.Contains(f.DefValue, home) {
			f.DefValue = strings.ReplaceAll(f.DefValue, home, "$HOME")
		}
	}
	c.Flags().VisitAll(fix)
	c.PersistentFlags().VisitAll(fix)
	for _, sub := range c.Commands() {
		portable(sub, home)
	}
}
