//go:build tools

// Package deps pins the libraries the design names before every package that uses them
// exists, so that parallel work on separate packages shares one go.mod and go.sum.
// Remove an import here once a real package imports it.
package deps

import (
	_ "github.com/ProtonMail/go-crypto/openpgp"
	_ "github.com/blang/semver/v4"
	_ "github.com/charmbracelet/bubbles/help"
	_ "github.com/charmbracelet/bubbles/key"
	_ "github.com/charmbracelet/bubbles/progress"
	_ "github.com/charmbracelet/bubbles/spinner"
	_ "github.com/charmbracelet/bubbles/viewport"
	_ "github.com/charmbracelet/bubbletea"
	_ "github.com/charmbracelet/lipgloss"
	_ "github.com/charmbracelet/x/exp/golden"
	_ "github.com/charmbracelet/x/exp/teatest"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/go-containerregistry/pkg/authn"
	_ "github.com/google/go-containerregistry/pkg/crane"
	_ "github.com/google/go-containerregistry/pkg/registry"
	_ "github.com/google/go-containerregistry/pkg/v1/mutate"
	_ "github.com/google/go-containerregistry/pkg/v1/random"
	_ "github.com/google/go-containerregistry/pkg/v1/remote"
	_ "github.com/openshift/api/config/v1"
	_ "github.com/openshift/api/image/v1"
	_ "github.com/openshift/api/machineconfiguration/v1"
	_ "github.com/openshift/api/operator/v1"
	_ "github.com/openshift/client-go/config/clientset/versioned"
	_ "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	_ "github.com/openshift/client-go/operator/clientset/versioned"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/term"
	_ "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	_ "k8s.io/cli-runtime/pkg/genericclioptions"
	_ "k8s.io/cli-runtime/pkg/printers"
	_ "k8s.io/client-go/discovery/cached/memory"
	_ "k8s.io/client-go/dynamic"
	_ "k8s.io/client-go/kubernetes"
	_ "k8s.io/client-go/restmapper"
	_ "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	_ "sigs.k8s.io/yaml"
)
