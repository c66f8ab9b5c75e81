package inspect

import (
	"fmt"
	"sort"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
)

// Timeline is the update's history, oldest first: ClusterVersion history,
// condition transitions of ClusterVersion, ClusterOperators, pools and nodes,
// static-pod revisions that failed and installers that finished, and the log
// lines that matter, each with its time, its source and one sentence. It is a
// pure function of the snapshot (BuildTimeline), recomputed by Refresh.
type Timeline struct {
	Entries []TimelineEntry `json:"entries"`
	// Omitted counts the entries left out: a timeline keeps every entry a finding
	// rests on, then the most telling of the rest, up to MaxTimelineEntries.
	Omitted int `json:"omitted,omitempty"`
}

// MaxTimelineEntries bounds a timeline.
const MaxTimelineEntries = 80

// The timeline entry kinds.
const (
	TimelineHistory   = "history"
	TimelineCondition = "condition"
	TimelineRevision  = "revision"
	TimelineLog       = "log"
)

// TimelineEntry is one thing that happened.
type TimelineEntry struct {
	// ID is "t<n>", n counting from 1 in time order; a wedge names the entries
	// that prove it by ID.
	ID   string    `json:"id"`
	Time time.Time `json:"time"`
	// Kind is one of the Timeline* constants.
	Kind string `json:"kind"`
	// Subject is the object it is about ("clusterversion/version", "node/master-1").
	Subject string `json:"subject"`
	// Source is where it was read: an object's field, or "<log file>:<line>".
	Source string `json:"source"`
	Text   string `json:"text"`
	// Findings are the findings it is evidence for, "<code> <subject>".
	Findings []string `json:"findings,omitempty"`
}

// candidate is a timeline entry with its priority for the bound.
type candidate struct {
	TimelineEntry
	prio int // lower is kept first
	// cond is the condition type of a condition entry, for linking findings.
	cond string
	// also are other sources the entry stands for (a folded log line's last
	// occurrence).
	also []string
}

// BuildTimeline returns the snapshot's timeline, linked to its findings.
func BuildTimeline(s *Snapshot) *Timeline {
	var cs []candidate
	cs = append(cs, historyEntries(s)...)
	cs = append(cs, conditionEntries(s)...)
	cs = append(cs, revisionEntries(s)...)
	cs = append(cs, logEntries(s)...)
	if len(cs) == 0 {
		return nil
	}
	linkFindings(cs, s.Findings)
	for i := range cs {
		if len(cs[i].Findings) > 0 {
			cs[i].prio = 0
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].prio != cs[j].prio {
			return cs[i].prio < cs[j].prio
		}
		return cs[i].Time.After(cs[j].Time) // the newest of a priority first
	})
	t := &Timeline{}
	if len(cs) > MaxTimelineEntries {
		t.Omitted = len(cs) - MaxTimelineEntries
		cs = cs[:MaxTimelineEntries]
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if !cs[i].Time.Equal(cs[j].Time) {
			return cs[i].Time.Before(cs[j].Time)
		}
		return cs[i].Source < cs[j].Source
	})
	for i, c := range cs {
		c.ID = fmt.Sprintf("t%d", i+1)
		t.Entries = append(t.Entries, c.TimelineEntry)
	}
	return t
}

func historyEntries(s *Snapshot) []candidate {
	cv := s.ClusterVersion
	if cv == nil {
		return nil
	}
	var out []candidate
	h := cv.Status.History
	for i := len(h) - 1; i >= 0; i-- {
		e := h[i]
		src := fmt.Sprintf("%s status.history[%d]", cvSubject, i)
		verified := ""
		if !e.Verified {
			verified = ", unverified"
		}
		v := firstNonEmpty(e.Version, e.Image)
		if !e.StartedTime.IsZero() {
			out = append(out, candidate{TimelineEntry: TimelineEntry{Time: e.StartedTime.UTC(), Kind: TimelineHistory, Subject: cvSubject, Source: src,
				Text: fmt.Sprintf("Update to %s started (%s%s).", v, e.State, verified)}, prio: 1, cond: v})
		}
		if e.CompletionTime != nil && !e.CompletionTime.IsZero() {
			what := "ended"
			if e.State == configv1.CompletedUpdate {
				what = "declared Completed"
			}
			out = append(out, candidate{TimelineEntry: TimelineEntry{Time: e.CompletionTime.UTC(), Kind: TimelineHistory, Subject: cvSubject, Source: src,
				Text: fmt.Sprintf("Update to %s %s.", v, what)}, prio: 1, cond: v})
		}
	}
	return out
}

// conditionEntries are the transitions of ClusterVersion's conditions, and of the
// ClusterOperators', pools' and nodes' conditions that say something is wrong.
func conditionEntries(s *Snapshot) []candidate {
	var out []candidate
	add := func(subject, typ, status, reason, msg string, at time.Time, prio int) {
		if at.IsZero() {
			return
		}
		text := fmt.Sprintf("%s %s=%s", subject, typ, status)
		if reason != "" {
			text += " (" + reason + ")"
		}
		if msg = oneLine(msg); msg != "" {
			text += ": " + truncate(msg, 200)
		}
		out = append(out, candidate{TimelineEntry: TimelineEntry{Time: at.UTC(), Kind: TimelineCondition, Subject: subject,
			Source: subject + " status.conditions[" + typ + "]", Text: text}, prio: prio, cond: typ})
	}
	if cv := s.ClusterVersion; cv != nil {
		for _, c := range cv.Status.Conditions {
			add(cvSubject, string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime.Time, 2)
		}
	}
	for _, co := range s.ClusterOperators {
		for _, c := range co.Conditions {
			if bad := (c.Type == configv1.OperatorDegraded && c.Status == configv1.ConditionTrue) ||
				(c.Type == configv1.OperatorAvailable && c.Status != configv1.ConditionTrue) ||
				(c.Type == configv1.OperatorProgressing && c.Status == configv1.ConditionTrue) ||
				(c.Type == configv1.OperatorUpgradeable && c.Status == configv1.ConditionFalse); bad {
				add("clusteroperator/"+co.Name, string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime.Time, 3)
			}
		}
	}
	for _, p := range s.MachineConfigPools {
		for _, c := range p.Conditions {
			if c.Status == corev1.ConditionTrue && (c.Type == "Updating" || strings.HasSuffix(string(c.Type), "Degraded")) {
				add("machineconfigpool/"+p.Name, string(c.Type), string(c.Status), c.Reason, c.Message, c.LastTransitionTime.Time, 3)
			}
		}
	}
	for _, n := range s.Nodes {
		if n.Ready != "" && n.Ready != string(corev1.ConditionTrue) {
			add("node/"+n.Name, "Ready", n.Ready, n.ReadyReason, n.ReadyMessage, n.ReadySince, 3)
		}
	}
	return out
}

// revisionEntries are the static-pod revisions that failed on a node and the
// installers that finished.
func revisionEntries(s *Snapshot) []candidate {
	var out []candidate
	for _, op := range s.StaticPodOperators {
		crSubject := strings.ToLower(kindOf(op.Resource)) + "/cluster"
		for _, ns := range op.NodeStatuses {
			if ns.LastFailedTime != nil && !ns.LastFailedTime.IsZero() && ns.LastFailedRevision != 0 {
				out = append(out, candidate{TimelineEntry: TimelineEntry{Time: ns.LastFailedTime.UTC(), Kind: TimelineRevision, Subject: "node/" + ns.NodeName,
					Source: crSubject + " status.nodeStatuses[" + ns.NodeName + "]",
					Text:   fmt.Sprintf("%s revision %d failed on %s (%d times): %s", op.Component, ns.LastFailedRevision, ns.NodeName, ns.LastFailedCount, truncate(oneLine(strings.Join(ns.LastFailedRevisionErrors, "; ")), 160))}, prio: 3})
			}
		}
		latest := map[string]int32{}
		for _, ip := range op.Installers {
			if ip.Revision > latest[ip.Node] {
				latest[ip.Node] = ip.Revision
			}
		}
		for _, ip := range op.Installers {
			// The installers of each node's latest revision: older ones are
			// history the operator has moved past.
			if ip.Finished.IsZero() || ip.Revision < latest[ip.Node] {
				continue
			}
			out = append(out, candidate{TimelineEntry: TimelineEntry{Time: ip.Finished, Kind: TimelineRevision, Subject: "node/" + ip.Node,
				Source: "pod " + op.Namespace + "/" + ip.Name,
				Text:   fmt.Sprintf("%s installer %s for revision %d on %s finished: %s.", op.Component, ip.Name, ip.Revision, ip.Node, ip.Phase)}, prio: 4})
		}
	}
	return out
}

// logEntries are the log lines that matter, each once (a line repeated is one
// entry saying how often and until when).
func logEntries(s *Snapshot) []candidate {
	if s.Logs == nil {
		return nil
	}
	var out []candidate
	for _, e := range s.Logs.Entries {
		if e.Kind == LogKindCVOAbandonedUpdate || e.Kind == LogKindCSRApproved || e.Time.IsZero() ||
			e.Kind == LogKindInstallerEnd && e.Fields["wroteManifest"] == "true" {
			// The abandoned update is its lines, which are entries of their
			// own; an installer that wrote its manifest has that entry.
			continue
		}
		c := candidate{TimelineEntry: TimelineEntry{Time: e.Time, Kind: TimelineLog, Subject: logSubject(s, e), Source: e.Source, Text: describeLog(e)}, prio: 5}
		if e.Kind == LogKindCVOResult && e.Fields["ok"] == "true" || e.Kind == LogKindCVOSignature {
			c.prio = 6
		}
		if e.LastSeen != nil {
			c.also = append(c.also, e.LastSeen.Source)
		}
		out = append(out, c)
	}
	return out
}

// logSubject is the object a log line is about.
func logSubject(s *Snapshot, e LogEntry) string {
	switch {
	case e.Fields["node"] != "":
		return "node/" + e.Fields["node"]
	case e.Fields["csr"] != "":
		return "certificatesigningrequest/" + e.Fields["csr"]
	case e.Family == LogFamilyCVO:
		return cvSubject
	}
	if f := s.Logs.File(e.File); f != nil {
		return "pod/" + f.Namespace + "/" + f.Pod
	}
	return ""
}

// describeLog says in one sentence what a log entry says.
func describeLog(e LogEntry) string {
	f := e.Fields
	var text string
	switch e.Kind {
	case LogKindCVOVersion:
		text = "The CVO " + f["version"] + " started."
	case LogKindCVOSync:
		text = fmt.Sprintf("The CVO started a sync of %s (generation %s) in state %s.", f["payload"], f["generation"], f["state"])
	case LogKindCVOPayloadLoaded:
		text = "The CVO loaded the payload " + f["payload"] + "."
	case LogKindCVOResult:
		if f["ok"] == "true" {
			text = "The CVO's sync finished without errors."
		} else if f["how"] != "" {
			text = fmt.Sprintf("The CVO's sync was %s at %s of %s manifests: %s", f["how"], f["done"], f["total"], f["errors"])
		} else {
			text = "The CVO's sync failed: " + f["errors"]
		}
	case LogKindCVOContextErrors:
		text = fmt.Sprintf("The CVO dropped its %s errors as not worth reporting: %s", f["wording"], f["errors"])
	case LogKindCVOApplyError:
		text = fmt.Sprintf("The CVO failed to apply %s (%s of %s): %s", f["task"], f["index"], f["total"], f["error"])
	case LogKindCVOPrecondition:
		text = fmt.Sprintf("The CVO's precondition %s failed (%s).", f["precondition"], f["reason"])
	case LogKindCVORetrieval:
		text = fmt.Sprintf("The CVO could not retrieve %s: %s", firstNonEmpty(f["version"], f["image"]), f["failure"])
	case LogKindCVOSignature:
		text = "The CVO could not load a release signature: " + f["error"]
	case LogKindEvictionRefused:
		why := "refused"
		if f["budget"] == "true" {
			why = "refused by a PodDisruptionBudget"
		}
		pod := f["pod"]
		if f["namespace"] != "" {
			pod = f["namespace"] + "/" + pod
		}
		text = fmt.Sprintf("The drain of %s: the eviction of %s was %s.", orNone(f["node"]), pod, why)
	case LogKindDrainTimeout:
		text = fmt.Sprintf("The drain of %s ran past its timeout (%s).", orNone(f["node"]), orNone(f["timeout"]))
	case LogKindNodeDegraded:
		text = fmt.Sprintf("The machine-config daemon on %s marked it Degraded: %s", orNone(f["node"]), f["reason"])
	case LogKindInstallerManifest:
		text = "The installer wrote the static pod manifest " + f["manifest"] + "."
	case LogKindInstallerSIGTERM:
		text = "The installer received SIGTERM and stopped."
	case LogKindInstallerEnd:
		text = "The installer's last line: " + e.Text
	case LogKindCSRNotAuthorized:
		text = fmt.Sprintf("The machine approver did not approve %s: %s", f["csr"], orNone(f["reason"]))
	default:
		text = e.Text
	}
	if e.Count > 1 && e.LastSeen != nil {
		text += fmt.Sprintf(" (%d times, the last at %s)", e.Count, e.LastSeen.Time.UTC().Format(time.RFC3339))
	}
	return text
}

// linkFindings marks each candidate with the findings whose evidence it is: a
// log line a finding cites, the history a finding on ClusterVersion's history
// cites, or a condition transition a finding's evidence names by type.
func linkFindings(cs []candidate, findings []Finding) {
	for _, f := range findings {
		key := f.Code + " " + f.Subject
		for i := range cs {
			c := &cs[i]
			if evidenceCites(f, c) && !containsString(c.Findings, key) {
				c.Findings = append(c.Findings, key)
			}
		}
	}
}

func evidenceCites(f Finding, c *candidate) bool {
	for _, e := range f.Evidence {
		if e.Source == "" {
			continue
		}
		switch c.Kind {
		case TimelineLog:
			if e.Source == c.Source || containsString(c.also, e.Source) {
				return true
			}
		case TimelineHistory:
			// A finding on history cites the entry by its version.
			if strings.HasPrefix(e.Source, cvSubject+" status.history") && c.cond != "" && strings.Contains(e.Text, c.cond) {
				return true
			}
		case TimelineCondition:
			if strings.HasPrefix(c.Source, e.Source) && c.Subject == f.Subject && strings.Contains(e.Text, c.cond) {
				return true
			}
			if e.Source == c.Subject+" status.conditions" && strings.Contains(e.Text, c.cond+"=") {
				return true
			}
		case TimelineRevision:
			if e.Source == c.Source {
				return true
			}
		}
	}
	return false
}

// linkWedges gives each wedge the timeline entries that prove its findings.
func linkWedges(ws []Wedge, t *Timeline) {
	if t == nil {
		return
	}
	for i := range ws {
		ws[i].Timeline = nil
		for _, e := range t.Entries {
			for _, k := range e.Findings {
				if containsString(ws[i].findings, k) {
					ws[i].Timeline = append(ws[i].Timeline, e.ID)
					break
				}
			}
		}
	}
}

// Entry returns the entry with the given ID, nil when there is none.
func (t *Timeline) Entry(id string) *TimelineEntry {
	if t == nil {
		return nil
	}
	for i := range t.Entries {
		if t.Entries[i].ID == id {
			return &t.Entries[i]
		}
	}
	return nil
}
