package dump

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/inspect/internal/decode"
	"github.com/openshift-recover/recover/internal/openshift"
)

// Source reads `oc get` dumps.
type Source struct {
	Paths []string
}

// New returns a dump source for the given files.
func New(paths ...string) *Source { return &Source{Paths: paths} }

// Collect reads every file.
func (s *Source) Collect(ctx context.Context) (*inspect.Snapshot, error) {
	if len(s.Paths) == 0 {
		return nil, &inspect.InputError{Path: "--from-file", Err: errNoFiles}
	}
	b := inspect.NewBuilder(inspect.SourceDump, strings.Join(s.Paths, ","))
	budget := &decode.Budget{}
	counts := map[string]int{}
	files := map[string][]string{}
	note := func(key, path string) {
		counts[key]++
		fs := files[key]
		if len(fs) == 0 || fs[len(fs)-1] != path {
			files[key] = append(fs, path)
		}
	}
	for _, p := range s.Paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Decoded object by object, with the bounds of every offline source
		// (decode.MaxFileBytes, MaxResourceBytes, MaxDocumentBytes).
		err := decode.Each(os.DirFS(filepath.Dir(p)), filepath.Base(p), p, budget, func(d decode.Doc) error {
			res, ok, err := decode.Add(b, d, "")
			if err != nil || !ok {
				return err
			}
			note(res.Key(), p)
			if res.Namespaced {
				note(res.Key()+"/"+decode.Namespace(d), p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	record := func(res inspect.Resource, ns string) {
		key := res.Key()
		if ns != "" {
			key += "/" + ns
		}
		rs := inspect.ResourceStatus{Resource: res.Key(), Namespace: ns, State: inspect.Collected, Count: counts[key], From: files[key]}
		if counts[key] == 0 {
			rs.State, rs.Reason, rs.From = inspect.Absent, "not in the given files", s.Paths
		}
		b.Record(rs)
	}
	for _, res := range inspect.ClusterResources {
		record(res, "")
	}
	for _, c := range inspect.StaticPodComponents {
		record(inspect.ResPods, c.Namespace)
	}
	record(inspect.ResDeployments, "")
	record(inspect.ResDeployments, openshift.CVONamespace)
	for _, w := range inspect.WedgeResources() {
		switch {
		case w.Resource == inspect.ResPods && w.Namespace == "":
			b.Record(drainPods(b, counts, files, s.Paths))
		case w.Resource == inspect.ResEndpointSlices && len(b.WebhookServices()) == 0:
			b.Record(inspect.ResourceStatus{Resource: w.Resource.Key(), State: inspect.Collected, From: s.Paths,
				Reason: inspect.ReasonNotNeeded + "no webhook of the given files calls a service"})
		default:
			record(w.Resource, w.Namespace)
		}
	}
	return b.Finish(), nil
}

// drainPods records the pods of drains: not needed when nothing drains while a
// PodDisruptionBudget exists, else collected when the files hold pods of every
// namespace with a budget.
func drainPods(b *inspect.Builder, counts map[string]int, files map[string][]string, paths []string) inspect.ResourceStatus {
	rs := inspect.ResourceStatus{Resource: inspect.ResPods.Key(), State: inspect.Collected, Count: counts[inspect.ResPods.Key()], From: files[inspect.ResPods.Key()]}
	if !b.DrainPodsNeeded() {
		rs.Reason, rs.From = inspect.ReasonNotNeeded+"no node of the given files drains, is cordoned or degraded while a PodDisruptionBudget exists", paths
		return rs
	}
	var missing []string
	for _, ns := range b.PDBNamespaces() {
		if counts[inspect.ResPods.Key()+"/"+ns] == 0 {
			missing = append(missing, ns)
		}
	}
	if len(missing) > 0 {
		rs.State, rs.From = inspect.Absent, paths
		rs.Reason = "the given files hold no pods of " + strings.Join(missing, ", ") + ", whose PodDisruptionBudgets may hold a drain"
	}
	return rs
}

type dumpError string

func (e dumpError) Error() string { return string(e) }

const errNoFiles = dumpError("no files given")
