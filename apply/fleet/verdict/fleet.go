package verdict

import (
	"cmp"
	"slices"
)

// Entry is one cluster of a fleet: its verdict, or why none could be made.
type Entry struct {
	// Cluster names it: the must-gather or archive's name, or the kubeconfig
	// context.
	Cluster string
	Verdict *Verdict
	// Err is why the cluster could not be inspected or judged.
	Err error
}

// FleetReport is recover fleet's answer: the clusters grouped by wedge
// signature, with counts.
type FleetReport struct {
	FormatVersion string `json:"formatVersion"`
	// Clusters counts every cluster; Wedged those with a blocking cause;
	// Failed those that could not be inspected.
	Clusters int `json:"clusters"`
	Wedged   int `json:"wedged"`
	Failed   int `json:"failed"`
	// Groups are the signatures, wedged ones first, then the largest.
	Groups []FleetGroup `json:"groups"`
	// Failures are the clusters that could not be inspected, by name.
	Failures []FleetFailure `json:"failures,omitempty"`
}

// FleetGroup is every cluster that shares one wedge signature.
type FleetGroup struct {
	Signature string `json:"signature"`
	Count     int    `json:"count"`
	Wedged    bool   `json:"wedged"`
	// Causes are the group's causes, per-node subjects folded as the signature
	// folds them ("node/*").
	Causes []Cause `json:"causes,omitempty"`
	// Answer, Remedies and Accept are the planner's answer, the same for every
	// cluster of the group.
	Answer   Answer   `json:"answer"`
	Remedies []string `json:"remedies,omitempty"`
	Accept   []string `json:"accept,omitempty"`
	// Clusters are the group's clusters, sorted.
	Clusters []string `json:"clusters"`
}

// FleetFailure is a cluster that could not be inspected.
type FleetFailure struct {
	Cluster string `json:"cluster"`
	Error   string `json:"error"`
}

// Group groups the entries by signature.
func Group(entries []Entry) *FleetReport {
	r := &FleetReport{FormatVersion: FormatVersion, Clusters: len(entries)}
	bySig := map[string]*FleetGroup{}
	for _, e := range entries {
		if e.Err != nil || e.Verdict == nil {
			msg := "no verdict"
			if e.Err != nil {
				msg = e.Err.Error()
			}
			r.Failed++
			r.Failures = append(r.Failures, FleetFailure{Cluster: e.Cluster, Error: msg})
			continue
		}
		v := e.Verdict
		if v.Wedged {
			r.Wedged++
		}
		g := bySig[v.Signature]
		if g == nil {
			g = &FleetGroup{Signature: v.Signature, Wedged: v.Wedged, Answer: v.Remedy.Answer, Remedies: v.Remedy.Remedies, Accept: v.Remedy.Accept}
			for _, c := range v.Causes {
				g.Causes = append(g.Causes, Cause{Rank: c.Rank, Code: c.Code, Subject: foldSubject(c.Subject)})
			}
			bySig[v.Signature] = g
		}
		g.Count++
		g.Clusters = append(g.Clusters, e.Cluster)
	}
	for _, g := range bySig {
		slices.Sort(g.Clusters)
		r.Groups = append(r.Groups, *g)
	}
	slices.SortFunc(r.Groups, func(a, b FleetGroup) int {
		if a.Wedged != b.Wedged {
			if a.Wedged {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Signature, b.Signature)
	})
	slices.SortFunc(r.Failures, func(a, b FleetFailure) int { return cmp.Compare(a.Cluster, b.Cluster) })
	return r
}
