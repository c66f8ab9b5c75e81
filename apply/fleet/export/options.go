package export

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openshift-recover/recover/apply/fleet/verdict"
	"github.com/openshift-recover/recover/plan"
	"github.com/openshift-recover/recover/plan/planfile"
)

// Engine is the fleet engine the documents are for.
type Engine string

// The engines.
const (
	// EngineTALM: the two ManifestWorkReplicaSet templates and the
	// ClusterGroupUpgrade that sequences them (ACM with TALM).
	EngineTALM Engine = "talm"
	// EngineOCM: the two templates rolled out by their own placement (plain
	// OCM: the hub's ManifestWorkReplicaSet controller fans out; the SRE
	// creates the apply template once the inspect verdicts are reviewed).
	EngineOCM Engine = "ocm"
	// EngineArgo: an Argo Workflow that runs recover against each cluster's
	// kubeconfig (no ACM).
	EngineArgo Engine = "argo"
)

// Engines lists them, for flags and messages.
var Engines = []Engine{EngineTALM, EngineOCM, EngineArgo}

// Options describe one wave.
type Options struct {
	Engine Engine
	// Wave names the run; it is part of the Jobs', templates' and plan
	// ConfigMap's names, and the verdict of this wave carries it.
	Wave string
	// Image is recover's image (make image; by digest is best).
	Image string
	// Namespace is the spoke namespace recover's objects live in.
	Namespace string
	// HubNamespace holds the templates, the ClusterGroupUpgrade or the
	// Workflow on the hub.
	HubNamespace string
	// Accept are the --accept names the wave allows (the remedies that wait
	// for them are taken).
	Accept []string
	// Plan is a plan of the wave's wedge (one cluster's, from recover plan):
	// the apply template's RBAC covers what it does (ApplyAccess).
	Plan *planfile.Plan
	// BackupAcknowledged is the SRE's word that every cluster of the wave has
	// a current etcd backup (apply refuses to start without one).
	BackupAcknowledged bool
	// Clusters are the wave's clusters, Canaries those that go first (also
	// listed in Clusters for TALM, which requires it); ClusterLabels select
	// more by label (TALM).
	Clusters      []string
	Canaries      []string
	ClusterLabels map[string]string
	// MaxConcurrency is how many clusters run at once; Timeout bounds the
	// wave (TALM's remediationStrategy.timeout, Argo's activeDeadlineSeconds,
	// OCM's progressDeadline).
	MaxConcurrency int
	Timeout        time.Duration
	// Placement is the OCM Placement the templates roll out to (EngineOCM).
	Placement string
	// KubeconfigSecret names each cluster's kubeconfig Secret in the hub
	// namespace, "{cluster}" standing for the cluster (EngineArgo); the
	// Secret's key is "kubeconfig".
	KubeconfigSecret string
	// HandBackImage is an image with sh and oc, for the Workflow's exit
	// handler (EngineArgo).
	HandBackImage string
}

// The defaults.
const (
	DefaultHubNamespace     = "recover-fleet"
	DefaultKubeconfigSecret = "{cluster}-kubeconfig"
	DefaultHandBackImage    = "quay.io/openshift/origin-cli:latest"
	DefaultTimeout          = 4 * time.Hour
)

// Complete fills the defaults.
func (o *Options) Complete() {
	if o.Namespace == "" {
		o.Namespace = verdict.DefaultNamespace
	}
	if o.HubNamespace == "" {
		o.HubNamespace = DefaultHubNamespace
	}
	if o.MaxConcurrency == 0 {
		o.MaxConcurrency = 1
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.KubeconfigSecret == "" {
		o.KubeconfigSecret = DefaultKubeconfigSecret
	}
	if o.HandBackImage == "" {
		o.HandBackImage = DefaultHandBackImage
	}
}

// Validate checks the options; every error names the flag to fix.
func (o *Options) Validate() error {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	switch o.Engine {
	case EngineTALM, EngineOCM, EngineArgo:
	default:
		bad("--for %q: use one of talm, ocm, argo", o.Engine)
	}
	if o.Wave == "" {
		bad("--wave is required: it names the wave's Jobs, templates and plan")
	} else if err := verdict.ValidateWave(o.Wave); err != nil {
		bad("--%v", err)
	}
	if o.Image == "" {
		bad("--image is required: recover's image (make image, then push it)")
	}
	if err := plan.ValidateAccept(o.Accept); err != nil {
		bad("%v", err)
	}
	if !o.BackupAcknowledged {
		bad("the apply Jobs need every cluster's etcd backup: take them, then pass --i-have-a-backup")
	}
	if o.Staged() && o.Plan.Goal == "" {
		bad("--plan has stages but no goal: make it again with recover plan --to VERSION")
	}
	if o.MaxConcurrency < 1 {
		bad("--max-concurrency must be 1 or more")
	}
	if o.Timeout < time.Minute {
		bad("--timeout must be a minute or more")
	}
	switch o.Engine {
	case EngineTALM:
		if len(o.Clusters) == 0 && len(o.ClusterLabels) == 0 {
			bad("name the wave's clusters with --clusters or --cluster-labels")
		}
		for _, c := range o.Canaries {
			if !contains(o.Clusters, c) {
				bad("canary %s is not among --clusters (TALM takes canaries from the clusters)", c)
			}
		}
	case EngineOCM:
		if o.Placement == "" {
			bad("--placement is required for ocm: the Placement that selects the wave's clusters")
		}
	case EngineArgo:
		if len(o.Clusters) == 0 {
			bad("name the wave's clusters with --clusters (each with a kubeconfig Secret)")
		}
		for _, c := range o.Canaries {
			if contains(o.Clusters, c) {
				bad("canary %s is also in --clusters: name it once, with --canaries", c)
			}
		}
		if !strings.Contains(o.KubeconfigSecret, "{cluster}") {
			bad("--kubeconfig-secret %q must contain {cluster}", o.KubeconfigSecret)
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
