package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/incluster"
	"github.com/openshift-recover/recover/apply/printer"
	"github.com/openshift-recover/recover/internal/bounded"
	"github.com/openshift-recover/recover/internal/nextcmd"
	"github.com/openshift-recover/recover/plan/planconfigmap"
	"github.com/openshift-recover/recover/plan/planfile"
)

// serviceAccountNamespaceFile is where a pod finds its own namespace.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// inClusterFlags are apply's flags for a run inside the cluster (a Job) and for
// printing the objects such a run needs.
type inClusterFlags struct {
	inCluster          bool
	planConfigMap      string
	printRBAC          bool
	printPlanConfigMap bool
	serviceAccount     string

	// resolved by Complete
	namespace string
	planName  string // --plan-configmap or its default
	planRef   string // the plan's reference (incluster.Ref) when it is read from ConfigMaps
	store     *incluster.JournalStore
	resume    bool // the journal exists: the run resumes it
	cfg       *rest.Config
	// noPlan is set when the plan's ConfigMap keeps why there is no plan
	// instead of one: there is nothing to apply.
	noPlan *planconfigmap.NoPlanError
}

func (f *inClusterFlags) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.inCluster, nextcmd.FlagInCluster, false, "Run inside the cluster, as a Job: configuration from the pod's service account (or --kubeconfig), the plan from --plan-configmap, the journal kept as ConfigMaps (--journal names them, default <plan-configmap>-journal) in the namespace (the pod's, or --namespace). An existing journal is resumed: a Job's next pod continues the run.")
	fs.StringVar(&f.planConfigMap, nextcmd.FlagPlanConfigMap, "", "With --in-cluster or --print-plan-configmap: the ConfigMap the plan is kept in (default "+incluster.DefaultPlanConfigMap+").")
	fs.BoolVar(&f.printRBAC, "print-rbac", false, "Print the ServiceAccount and the least-privilege RBAC a run of the plan inside the cluster needs (YAML, for oc apply -f), derived from the permissions preflight checks (with --verdict, also the verdict's); the cluster is read to map kinds, nothing changes.")
	fs.BoolVar(&f.printPlanConfigMap, "print-plan-configmap", false, "Print the ConfigMaps that keep --plan in the cluster for --in-cluster (YAML: gzip'd, split when large).")
	fs.StringVar(&f.serviceAccount, "service-account", "", "With --print-rbac: the ServiceAccount the Job runs as (default "+incluster.DefaultServiceAccount+").")
}

// printing reports whether the command only prints objects.
func (f *inClusterFlags) printing() bool { return f.printRBAC || f.printPlanConfigMap }

// validate checks the in-cluster flags against apply's others.
func (f *inClusterFlags) validate(o *applyOptions) error {
	switch {
	case f.inCluster && o.planPath != "":
		return usageError{msg: "--in-cluster reads the plan from --plan-configmap, not --plan (--print-plan-configmap makes the ConfigMaps from a plan file)"}
	case f.inCluster && o.resume != "":
		return usageError{msg: "--in-cluster resumes its journal by itself when it exists; do not pass --resume"}
	case f.planConfigMap != "" && !f.inCluster && !f.printPlanConfigMap:
		return usageError{msg: "--plan-configmap is for --in-cluster or --print-plan-configmap"}
	case f.printPlanConfigMap && o.planPath == "":
		return usageError{msg: "--print-plan-configmap needs --plan FILE"}
	case f.serviceAccount != "" && !f.printRBAC:
		return usageError{msg: "--service-account is for --print-rbac"}
	case f.printing() && (o.resume != "" || o.dryRun):
		return usageError{msg: "--print-rbac and --print-plan-configmap only print: do not pass --resume or --dry-run"}
	}
	return nil
}

// restConfig is the run's configuration: the pod's service account
// (rest.InClusterConfig) unless --kubeconfig names a file.
func (f *inClusterFlags) restConfig(g *globalOptions) (*rest.Config, error) {
	if g.kube.KubeConfig != nil && *g.kube.KubeConfig != "" {
		cfg, err := g.kube.ToRESTConfig()
		if err != nil {
			return nil, withExitCode(fmt.Errorf("loading the kubeconfig: %w", err), ExitCluster)
		}
		return cfg, nil
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, withExitCode(fmt.Errorf("--in-cluster: no service account configuration (%w); run it in a pod, or pass --kubeconfig", err), ExitCluster)
	}
	return cfg, nil
}

// resolveNamespace is --namespace, else the pod's own namespace, else
// incluster.DefaultNamespace.
func (f *inClusterFlags) resolveNamespace(g *globalOptions) string {
	if g.kube.Namespace != nil && *g.kube.Namespace != "" {
		return *g.kube.Namespace
	}
	if data, err := os.ReadFile(serviceAccountNamespaceFile); err == nil && strings.TrimSpace(string(data)) != "" {
		return strings.TrimSpace(string(data))
	}
	return incluster.DefaultNamespace
}

// complete resolves a run inside the cluster: its configuration, namespace,
// plan (read from its ConfigMaps) and journal store, and whether the journal
// exists (then the run resumes it).
func (f *inClusterFlags) complete(o *applyOptions) error {
	f.namespace = f.resolveNamespace(o.g)
	f.planName = f.planConfigMap
	if f.planName == "" {
		f.planName = incluster.DefaultPlanConfigMap
	}
	if !f.inCluster {
		return nil
	}
	cfg, err := f.restConfig(o.g)
	if err != nil {
		return err
	}
	f.cfg = cfg
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return withExitCode(fmt.Errorf("creating the Kubernetes client: %w", err), ExitCluster)
	}
	journalName := o.journalPath
	if journalName == "" {
		journalName = incluster.DefaultJournal(f.planName)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f.store = incluster.NewJournalStore(client, f.namespace, journalName)
	exists, err := f.store.Exists(ctx)
	if err != nil {
		return withExitCode(err, ExitCluster)
	}
	f.resume = exists && !o.dryRun
	p, digest, ref, err := incluster.LoadPlan(ctx, client, f.namespace, f.planName)
	if errors.As(err, &f.noPlan) {
		return nil
	}
	if err != nil {
		return err
	}
	o.plan, o.digest, f.planRef = p, digest, ref
	return nil
}

// engineOptions points the run's options at the cluster: the journal's store,
// resuming it when it exists, the plan by reference, and a lock that waits for
// a gone holder's lease to expire (a Job's next pod cannot prove the previous
// one dead).
func (f *inClusterFlags) engineOptions(opts *apply.Options) {
	if !f.inCluster {
		return
	}
	opts.PlanPath, opts.PlanNotAFile = f.planRef, true
	opts.JournalPath, opts.Journal, opts.Resume = "", f.store, f.resume
	opts.LockWait = true
}

// nothingToApply ends a run whose plan ConfigMap keeps why there is no plan:
// one line says so (on stdout, or stderr with JSON events, whose stdout is
// for programs), the verdict too with --verdict, and the run exits 0.
func (f *inClusterFlags) nothingToApply(ctx context.Context, o *applyOptions) error {
	msg := "nothing to apply: " + f.noPlan.Error()
	out := o.g.streams.Out
	if o.events == eventsJSON {
		out = o.g.streams.ErrOut
	}
	fmt.Fprintln(out, msg)
	if !o.verdict.enabled || o.dryRun {
		return nil
	}
	store, err := o.verdict.store(f.cfg)
	if err != nil {
		return err
	}
	if err := printer.NoPlan(ctx, store, msg, time.Now()); err != nil {
		return withExitCode(err, ExitCluster)
	}
	return nil
}

// print writes the objects --print-rbac and --print-plan-configmap ask for.
func (f *inClusterFlags) print(ctx context.Context, o *applyOptions) error {
	var objects []runtime.Object
	if f.printRBAC {
		objs, err := f.rbac(ctx, o)
		if err != nil {
			return err
		}
		objects = append(objects, objs...)
	}
	if f.printPlanConfigMap {
		data, err := bounded.ReadFile(o.planPath, planfile.MaxBytes)
		if err != nil {
			return withExitCode(fmt.Errorf("reading plan: %w", err), ExitBadInput)
		}
		cms, err := planconfigmap.Encode(data, f.namespace, f.planName)
		if err != nil {
			return err
		}
		for _, cm := range cms {
			objects = append(objects, cm)
		}
	}
	return incluster.WriteManifests(o.g.streams.Out, objects)
}

// rbac derives the run's permissions from the plan (incluster.RunAccess, the
// list preflight checks and the run's own needs), its kinds mapped by the
// discovery of the cluster the kubeconfig (or the pod) points at.
func (f *inClusterFlags) rbac(ctx context.Context, o *applyOptions) ([]runtime.Object, error) {
	cfg := f.cfg
	if cfg == nil {
		c, err := o.g.kube.ToRESTConfig()
		if err != nil {
			return nil, withExitCode(fmt.Errorf("loading the kubeconfig: %w", err), ExitCluster)
		}
		cfg = c
	}
	engine, err := apply.New(cfg)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, withExitCode(err, ExitCluster)
	}
	ao := incluster.AccessOptions{AccessOptions: engine.AccessOptions(ctx), Namespace: f.namespace, AllowStale: o.allowStale}
	if o.verdict.enabled {
		ao.VerdictNamespace = o.verdict.namespace
	}
	access, problems := incluster.RunAccess(o.plan, ao)
	if len(problems) > 0 {
		return nil, withExitCode(fmt.Errorf("cannot derive every permission the plan needs: %s; check that the kubeconfig points at the plan's cluster", strings.Join(problems, "; ")), ExitCluster)
	}
	var nsErr error
	exists := func(ns string) bool {
		_, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) && nsErr == nil {
			nsErr = err
		}
		return err == nil
	}
	objs := incluster.RBAC(access, incluster.RBACOptions{Namespace: f.namespace, ServiceAccount: f.serviceAccount, NamespaceExists: exists})
	if nsErr != nil {
		return nil, withExitCode(fmt.Errorf("reading the plan's namespaces: %w", nsErr), ExitCluster)
	}
	return objs, nil
}
