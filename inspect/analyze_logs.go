package inspect

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
)

// The log findings (formatVersion 1.2): what the components' own logs prove,
// read from Snapshot.Logs (inspect/logs parses them). Each names the lines as
// evidence, with their file, line and time. Where an object's finding says the
// same thing, the lines become its evidence instead (addLogEvidence).

// cvoFixMerged is when the BZ1838497 fix (cluster-version-operator 536bdfd1 and
// 2834c0ce, "Do not treat 'All errors were context errors...' as success")
// merged on each release branch that got it (#378 release-4.5, #379 release-4.4,
// #380 release-4.3, #382 release-4.2), as the ART build time in the CVO's version
// string (ClusterVersionOperator v4.3.19-202005041055-dirty) spells a time.
// master had it from 2020-06-03 (#372), so every 4.6 and later; 4.1 never did.
var cvoFixMerged = map[int]string{2: "202006190000", 3: "202006100000", 4: "202006040000", 5: "202006030000"}

var cvoMinor = regexp.MustCompile(`^v?4\.(\d+)\.`)

// CVOPredatesFix says whether a CVO of the given version (its start line's
// "v4.3.19-202005041055-dirty") and ART build time ("202005041055") runs without
// the BZ1838497 fix: "true", "false", or "unknown" when the version does not say.
func CVOPredatesFix(version, build string) string {
	m := cvoMinor.FindStringSubmatch(version)
	if m == nil {
		return "unknown"
	}
	minor, _ := strconv.Atoi(m[1])
	switch {
	case minor >= 6:
		return "false"
	case minor <= 1:
		return "true"
	}
	merged := cvoFixMerged[minor]
	if build == "" || merged == "" {
		return "unknown"
	}
	if build < merged {
		return "true"
	}
	return "false"
}

// logEvidence is a log line as a finding's evidence.
func logEvidence(l LogLine) Evidence {
	return Evidence{Kind: EvidenceReality, Text: l.Text, Source: l.Source, Time: l.Time}
}

// logLinesOf returns an entry's first line and, when it repeated, its last.
func logLinesOf(e LogEntry) []LogLine {
	out := []LogLine{e.LogLine}
	if e.LastSeen != nil {
		out = append(out, *e.LastSeen)
	}
	return out
}

// logDrains adds the drains the logs prove a budget holds. It runs before
// nodes(), whose degraded nodes name the budget that holds their drain.
func (a *analysis) logDrains() {
	if a.s.Logs != nil {
		a.unseenBudgets()
	}
}

// logs adds the other findings only the logs prove, once the objects' findings
// are in (a manifest CVOStuckOnManifest names is left to it).
func (a *analysis) logs() {
	if a.s.Logs == nil {
		return
	}
	a.abandonedUpdates()
	a.interruptedInstallers()
	a.manifestRetries()
	a.degradedInLogs()
	a.csrsNotAuthorized()
}

// cvoVersionOf returns the version entry of a CVO log file (its last start).
func (a *analysis) cvoVersionOf(file string) *LogEntry {
	var out *LogEntry
	for i, e := range a.s.Logs.Entries {
		if e.Kind == LogKindCVOVersion && e.File == file {
			out = &a.s.Logs.Entries[i]
		}
	}
	return out
}

// runningCVO returns the version entry of the CVO that runs now: the newest
// start line of a current (not previous) CVO log.
func (a *analysis) runningCVO() *LogEntry {
	var out *LogEntry
	for i, e := range a.s.Logs.Entries {
		if e.Kind != LogKindCVOVersion {
			continue
		}
		if f := a.s.Logs.File(e.File); f == nil || f.Previous {
			continue
		}
		if out == nil || e.Time.After(out.Time) {
			out = &a.s.Logs.Entries[i]
		}
	}
	return out
}

// abandonedUpdates reports the BZ1838497 race the CVO's log proves.
func (a *analysis) abandonedUpdates() {
	seen := map[string]bool{}
	for _, e := range a.s.Logs.EntriesOf(LogKindCVOAbandonedUpdate) {
		f := e.Fields
		key := f["payload"] + "|" + f["generation"]
		if seen[key] {
			continue
		}
		seen[key] = true
		d := map[string]string{"payload": f["payload"], "generation": f["generation"], "done": f["done"], "total": f["total"], "how": f["how"]}
		raced := "the CVO that logged it"
		if v := a.cvoVersionOf(e.File); v != nil {
			d["cvoVersion"] = v.Fields["version"]
			raced = "CVO " + v.Fields["version"]
		}
		running := "unknown"
		if r := a.runningCVO(); r != nil {
			d["runningCVO"] = r.Fields["version"]
			running = CVOPredatesFix(r.Fields["version"], r.Fields["build"])
			if r.File == e.File {
				// The CVO that raced still runs: the race proves it lacks the fix.
				running = "true"
			}
		}
		d["runningPredatesFix"] = running
		started, reconciled := e.LogLine, e.LogLine
		if len(e.Proof) > 0 {
			started, reconciled = e.Proof[0], e.Proof[len(e.Proof)-1]
		}
		msg := fmt.Sprintf("The CVO abandoned its update to %s: the Updating sync of generation %s (%s) was %s at %s of %s manifests, %s counted that as success, and at %s it started Reconciling the same payload, which applies the manifests flat and shuffled (BZ1838497).",
			f["payload"], f["generation"], started.Time.UTC().Format(time.RFC3339), f["how"], f["done"], f["total"], raced, reconciled.Time.UTC().Format(time.RFC3339))
		switch running {
		case "true":
			msg += " The running CVO predates the fix: a new update may trip the race again; prefer an unforced update (a signature ConfigMap for restricted networks) and a patch-level hop."
		case "false":
			msg += " The running CVO (" + d["runningCVO"] + ") carries the fix."
		}
		var ev []Evidence
		for _, l := range e.Proof {
			ev = append(ev, logEvidence(l))
		}
		ev = append(ev, rule("an Updating sync whose work was cancelled or timed out must be retried in Updating; CVOs before cluster-version-operator 536bdfd1 and 2834c0ce (4.2, 4.3, 4.4 and 4.5 builds before June 2020) counted it a success and went on Reconciling (pkg/cvo/sync_worker.go summarizeTaskGraphErrors)"))
		a.add(Finding{Code: CodeCVOAbandonedUpdate, Severity: SeverityError, Class: ClassBlocks, Subject: cvSubject, Message: msg, Evidence: ev, Details: d})
	}
}

// interruptedInstallers reports installer pods the kubelet reports Succeeded
// whose own log ends before they wrote the static pod manifest.
func (a *analysis) interruptedInstallers() {
	s := a.s
	for _, op := range s.StaticPodOperators {
		running := map[string]int32{}
		for _, t := range op.Truth() {
			if t.Mirror != nil {
				running[t.Node] = t.Running
			}
		}
		for _, ip := range op.Installers {
			if ip.Phase != string(corev1.PodSucceeded) {
				continue
			}
			end := a.installerEnd(op.Namespace, ip.Name)
			if end == nil || end.Fields["wroteManifest"] == "true" {
				continue
			}
			how := "its log ends before it wrote the static pod manifest"
			if end.Fields["sigterm"] == "true" {
				how = "its log ends with the SIGTERM it received, before it wrote the static pod manifest"
			}
			sev, class := SeverityError, ClassBlocks
			msg := fmt.Sprintf("%s: installer pod %s reports Succeeded, but %s (last line at %s: %q): revision %d was never installed by it on %s; the kubelet reported an interrupted installer as successful (incident 2).",
				op.Component, ip.Name, how, end.Time.UTC().Format(time.RFC3339), end.Text, ip.Revision, ip.Node)
			if r, ok := running[ip.Node]; ok && r >= ip.Revision {
				sev, class = SeverityInfo, ClassInforms
				msg += fmt.Sprintf(" The node runs revision %d now: a later installer finished the job.", r)
			}
			a.add(Finding{Code: CodeInstallerInterrupted, Severity: sev, Class: class, Subject: "pod/" + op.Namespace + "/" + ip.Name, Message: msg,
				Evidence: []Evidence{
					claim(ip.Name+" phase Succeeded", "pod "+op.Namespace+"/"+ip.Name),
					logEvidence(end.LogLine),
					rule("the installer writes the static pod manifest last (\"Writing static pod manifest\", library-go pkg/operator/staticpod/installerpod/cmd.go); a log that ends before it never installed the revision"),
				},
				Details: map[string]string{"component": op.Component, "node": ip.Node, "installer": ip.Name, "revision": strconv.Itoa(int(ip.Revision)),
					"sigterm": end.Fields["sigterm"], "lastLine": end.Text}})
		}
	}
}

// installerEnd returns the end entry of an installer pod's current log.
func (a *analysis) installerEnd(namespace, pod string) *LogEntry {
	key := LogFile{Namespace: namespace, Pod: pod, Container: "installer"}.Key()
	for i, e := range a.s.Logs.Entries {
		if e.Kind == LogKindInstallerEnd && e.File == key {
			return &a.s.Logs.Entries[i]
		}
	}
	return nil
}

// unseenBudgets reports drains a PodDisruptionBudget holds that the snapshot does
// not hold: the machine-config daemon's or controller's log names the pod and its
// namespace, and the node it drains.
func (a *analysis) unseenBudgets() {
	s := a.s
	type group struct {
		pods, nodes []string
		lines       []LogLine
		count       int
		first, last LogLine
	}
	groups := map[string]*group{}
	var order []string
	for _, e := range s.Logs.EntriesOf(LogKindEvictionRefused) {
		ns := firstNonEmpty(e.Fields["namespace"], a.namespaceOfPod(e.Fields["pod"]))
		if e.Fields["budget"] != "true" || ns != "" && a.budgetIn(ns) {
			continue
		}
		// A daemon of 4.4 and earlier names the pod alone: its budget is the pod's.
		key, pod := ns, ns+"/"+e.Fields["pod"]
		if ns == "" {
			key, pod = "pod/"+e.Fields["pod"], e.Fields["pod"]
		}
		g := groups[key]
		if g == nil {
			g = &group{first: e.LogLine}
			groups[key] = g
			order = append(order, key)
		}
		if !containsString(g.pods, pod) {
			g.pods = append(g.pods, pod)
		}
		if n := e.Fields["node"]; n != "" && !containsString(g.nodes, n) {
			g.nodes = append(g.nodes, n)
		}
		g.count += e.Count
		last := e.LogLine
		if e.LastSeen != nil {
			last = *e.LastSeen
		}
		if last.Time.After(g.last.Time) || g.last.Source == "" {
			g.last = last
		}
	}
	for _, key := range order {
		g := groups[key]
		sort.Strings(g.pods)
		sort.Strings(g.nodes)
		ns, subject, where := key, "namespace/"+key, "in namespace "+key
		if strings.HasPrefix(key, "pod/") {
			ns, subject, where = "", key, "(its namespace is not in this release's log)"
		}
		class, sev := ClassInforms, SeverityWarning
		held := "a drain"
		for _, n := range g.nodes {
			node := a.node(n)
			if node == nil || node.DrainTrouble() {
				class, sev = ClassBlocks, SeverityError
			}
			if node != nil && node.DrainTrouble() {
				a.drainCauseOf(n, subject)
			}
		}
		if len(g.nodes) > 0 {
			held = "the drain of " + countedNodes(g.nodes)
		}
		msg := fmt.Sprintf("A PodDisruptionBudget %s, which the %s does not hold, refuses the eviction of %s and holds %s: the machine-config %s logged %q %d time(s), from %s to %s.",
			where, sourceNoun(s), podList(g.pods), held, drainerNoun(g.first), openshift.EvictionRefused, g.count,
			g.first.Time.UTC().Format(time.RFC3339), g.last.Time.UTC().Format(time.RFC3339))
		switch {
		case class == ClassInforms:
			msg += " Those nodes are no longer draining: it held a drain before."
		case ns != "":
			msg += fmt.Sprintf(" Look at the budgets of %s ('oc -n %s get poddisruptionbudgets'): one allows no disruption.", ns, ns)
		default:
			msg += " Find the pod's namespace ('oc get pods -A --field-selector metadata.name=<pod>') and its budget there: one allows no disruption."
		}
		ev := []Evidence{logEvidence(g.first)}
		if g.last.Source != g.first.Source {
			ev = append(ev, logEvidence(g.last))
		}
		ev = append(ev, rule("the eviction API refuses to evict a pod whose PodDisruptionBudget allows no disruption (429: \""+openshift.EvictionRefused+"\"); a must-gather holds the budgets of openshift-* namespaces only"))
		a.add(Finding{Code: CodeDrainBlockedByUnseenPDB, Severity: sev, Class: class, Subject: subject, Message: msg, Evidence: ev,
			Details: map[string]string{"namespace": ns, "pods": strings.Join(g.pods, ","), "nodes": strings.Join(g.nodes, ","), "count": strconv.Itoa(g.count),
				"first": g.first.Time.UTC().Format(time.RFC3339), "last": g.last.Time.UTC().Format(time.RFC3339)}})
	}
}

// drainerNoun names who logged an eviction: the daemon or the controller.
func drainerNoun(l LogLine) string {
	if strings.Contains(l.Source, "machine-config-controller") {
		return "controller"
	}
	return "daemon"
}

// sourceNoun names the kind of source ("must-gather", "snapshot").
func sourceNoun(s *Snapshot) string {
	switch s.Source.Kind {
	case SourceMustGather:
		return "must-gather"
	case SourceInsights:
		return "Insights archive"
	}
	return "snapshot"
}

// namespaceOfPod returns the namespace of a pod the snapshot holds by name
// (a drain's pods), "" when it holds none or several.
func (a *analysis) namespaceOfPod(name string) string {
	ns := ""
	for _, p := range a.s.DrainPods {
		if p.Name == name {
			if ns != "" && ns != p.Namespace {
				return ""
			}
			ns = p.Namespace
		}
	}
	return ns
}

// budgetIn reports whether the snapshot holds a PodDisruptionBudget of namespace ns.
func (a *analysis) budgetIn(ns string) bool {
	for _, p := range a.s.PodDisruptionBudgets {
		if p.Namespace == ns {
			return true
		}
	}
	return false
}

func (a *analysis) drainCauseOf(node, subject string) {
	if a.drainCause == nil {
		a.drainCause = map[string][]string{}
	}
	if !containsString(a.drainCause[node], subject) {
		a.drainCause[node] = append(a.drainCause[node], subject)
	}
}

// node returns the node record with the given name, nil when there is none.
func (a *analysis) node(name string) *Node {
	for i := range a.s.Nodes {
		if a.s.Nodes[i].Name == name {
			return &a.s.Nodes[i]
		}
	}
	return nil
}

// minRetries is how many failed applies of one manifest make a retry loop.
const minRetries = 3

// manifestRetries reports a manifest the CVO keeps failing to apply, when no
// condition of ClusterVersion says so (CVOStuckOnManifest then carries the lines).
func (a *analysis) manifestRetries() {
	cv := a.s.ClusterVersion
	updating := cv != nil && len(cv.Status.History) > 0 && cv.Status.History[0].State == configv1.PartialUpdate
	for _, e := range a.s.Logs.EntriesOf(LogKindCVOApplyError) {
		f := e.Fields
		if e.Count < minRetries || a.stuckOn(f["task"]) {
			continue
		}
		last := e.LogLine
		if e.LastSeen != nil {
			last = *e.LastSeen
		}
		class, sev := ClassInforms, SeverityWarning
		recent := false
		if lf := a.s.Logs.File(e.File); lf != nil && !lf.Previous && lf.Last.Sub(last.Time) < time.Hour {
			recent = true
		}
		if updating && recent {
			class, sev = ClassBlocks, SeverityError
		}
		msg := fmt.Sprintf("The CVO failed to apply %s (manifest %s of %s) %d times, from %s to %s: %s",
			f["task"], f["index"], f["total"], e.Count, e.Time.UTC().Format(time.RFC3339), last.Time.UTC().Format(time.RFC3339), truncate(f["error"], 240))
		if class == ClassBlocks {
			msg += ". In Updating mode the manifests after it wait; fix what the error names and the CVO retries on its own (W8)."
		} else {
			msg += "."
		}
		a.add(Finding{Code: CodeCVORetryingManifest, Severity: sev, Class: class, Subject: strings.ToLower(f["kind"]) + "/" + f["object"], Message: msg,
			Evidence: append(evidenceOf(logLinesOf(e)), rule("the CVO retries a manifest it cannot apply, with backoff, until its sync times out (pkg/payload/task.go)")),
			Details:  map[string]string{"object": f["task"], "done": f["index"], "total": f["total"], "count": strconv.Itoa(e.Count), "first": e.Time.UTC().Format(time.RFC3339), "last": last.Time.UTC().Format(time.RFC3339), "error": f["error"]}})
	}
}

// stuckOn reports whether a CVOStuckOnManifest finding names the task.
func (a *analysis) stuckOn(task string) bool {
	for _, f := range a.out {
		if f.Code == CodeCVOStuckOnManifest && f.Details["object"] == task {
			return true
		}
	}
	return false
}

func evidenceOf(lines []LogLine) []Evidence {
	var out []Evidence
	for _, l := range lines {
		out = append(out, logEvidence(l))
	}
	return out
}

// degradedInLogs reports the reason a machine-config daemon logged when it
// marked its node Degraded, when the node no longer carries it.
func (a *analysis) degradedInLogs() {
	latest, nodes := latestBy(a.s.Logs.EntriesOf(LogKindNodeDegraded), "node", nil)
	for _, name := range nodes {
		e := latest[name]
		n := a.node(name)
		degraded := n != nil && (n.MCDState == MCDStateDegraded || n.MCDState == MCDStateUnreconcilable)
		if degraded && n.MCDReason != "" {
			continue // NodeDegraded names the reason and gets the lines
		}
		class := ClassifyNodeDegraded(e.Fields["reason"])
		sev, cls := SeverityInfo, ClassInforms
		state := "its annotations say it is no longer Degraded"
		switch {
		case n == nil:
			state = "the node is not in the snapshot"
		case degraded:
			sev, cls = SeverityWarning, ClassBlocks
			state = "it is still Degraded but its annotation lost the reason"
		}
		a.add(Finding{Code: CodeNodeDegradedInLog, Severity: sev, Class: cls, Subject: "node/" + name,
			Message:  fmt.Sprintf("The machine-config daemon on %s marked it Degraded (%s) at %s: %s; %s.", name, class, lastTime(e).UTC().Format(time.RFC3339), truncate(e.Fields["reason"], 300), state),
			Evidence: evidenceOf(logLinesOf(e)),
			Details:  map[string]string{"node": name, "class": class, "reason": e.Fields["reason"]}})
	}
}

// latestBy returns, per value of a field (entries without it, or skipped, left
// out), the entry last seen most recently, and the values sorted.
func latestBy(entries []LogEntry, field string, skip func(string) bool) (map[string]LogEntry, []string) {
	latest := map[string]LogEntry{}
	var keys []string
	for _, e := range entries {
		k := e.Fields[field]
		if k == "" || skip != nil && skip(k) {
			continue
		}
		if old, ok := latest[k]; !ok {
			keys = append(keys, k)
		} else if !lastTime(e).After(lastTime(old)) {
			continue
		}
		latest[k] = e
	}
	sort.Strings(keys)
	return latest, keys
}

func lastTime(e LogEntry) time.Time {
	if e.LastSeen != nil {
		return e.LastSeen.Time
	}
	return e.Time
}

// csrsNotAuthorized reports the reason the machine approver gave for not
// approving a CSR that is no longer pending in the snapshot (or whose CSRs were
// not read) and that it never approved later.
func (a *analysis) csrsNotAuthorized() {
	approved := map[string]bool{}
	for _, e := range a.s.Logs.EntriesOf(LogKindCSRApproved) {
		approved[e.Fields["csr"]] = true
	}
	pending := map[string]bool{}
	for _, c := range a.s.CertificateSigningRequests {
		pending[c.Name] = true
	}
	latest, names := latestBy(a.s.Logs.EntriesOf(LogKindCSRNotAuthorized), "csr", func(name string) bool { return approved[name] || pending[name] })
	for _, name := range names {
		e := latest[name]
		a.add(Finding{Code: CodeCSRNotAuthorizedInLog, Severity: SeverityInfo, Class: ClassInforms, Subject: "certificatesigningrequest/" + name,
			Message: fmt.Sprintf("The machine approver did not approve %s (%s, last at %s): %s; the CSR is not pending in the snapshot (approved by someone else, denied, or garbage-collected).",
				name, countTimes(e.Count), lastTime(e).UTC().Format(time.RFC3339), orNone(e.Fields["reason"])),
			Evidence: evidenceOf(logLinesOf(e)),
			Details:  map[string]string{"csr": name, "reason": e.Fields["reason"]}})
	}
}

func countTimes(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// addLogEvidence gives the findings the objects prove the log lines that say the
// same: the abandoned update behind a Completed history over a mixed cluster,
// the precondition, retrieval and signature failures behind ReleaseNotAccepted,
// the failed applies of a stuck manifest, the refused evictions of a budget's
// drain, a degraded daemon's own words, an installer's last line, and the
// approver's reason for a pending CSR.
func (a *analysis) addLogEvidence() {
	l := a.s.Logs
	if l == nil {
		return
	}
	for i := range a.out {
		f := &a.out[i]
		sp := findingSpecs[f.Code]
		if sp == nil || sp.logEvidence == nil {
			continue
		}
		lines := sp.logEvidence(l, a, f)
		if len(lines) > maxLogEvidence {
			lines = lines[len(lines)-maxLogEvidence:]
		}
		f.Evidence = append(f.Evidence, evidenceOf(lines)...)
	}
}

// The log evidence rules of the finding registry (FindingSpec.logEvidence).

// evidenceAbandonedUpdate: the abandoned update behind a Completed history.
func evidenceAbandonedUpdate(l *LogEvidence, _ *analysis, _ *Finding) []LogLine {
	var lines []LogLine
	for _, e := range l.EntriesOf(LogKindCVOAbandonedUpdate) {
		if len(e.Proof) > 0 {
			lines = append(lines, e.Proof[0], e.Proof[len(e.Proof)-1])
		}
	}
	return lines
}

// evidenceReleaseNotAccepted: the precondition, retrieval and signature failures.
func evidenceReleaseNotAccepted(l *LogEvidence, _ *analysis, _ *Finding) []LogLine {
	var lines []LogLine
	for _, k := range []string{LogKindCVOPrecondition, LogKindCVORetrieval, LogKindCVOSignature} {
		for _, e := range l.EntriesOf(k) {
			lines = append(lines, lastLine(e))
		}
	}
	return lines
}

// evidenceStuckManifest: the failed applies of the stuck manifest.
func evidenceStuckManifest(l *LogEvidence, _ *analysis, f *Finding) []LogLine {
	var lines []LogLine
	for _, e := range l.EntriesOf(LogKindCVOApplyError) {
		if e.Fields["task"] == f.Details["object"] {
			lines = append(lines, logLinesOf(e)...)
		}
	}
	return lines
}

// evidenceDrainBlockedByPDB: the refused evictions of the budget's pods.
func evidenceDrainBlockedByPDB(l *LogEvidence, _ *analysis, f *Finding) []LogLine {
	var lines []LogLine
	for _, e := range l.EntriesOf(LogKindEvictionRefused) {
		if e.Fields["budget"] == "true" && containsString(strings.Split(f.Details["pods"], ","), e.Fields["namespace"]+"/"+e.Fields["pod"]) {
			lines = append(lines, logLinesOf(e)...)
		}
	}
	return lines
}

// evidenceNodeDegraded: a degraded daemon's own words.
func evidenceNodeDegraded(l *LogEvidence, _ *analysis, f *Finding) []LogLine {
	var lines []LogLine
	for _, e := range l.Entries {
		if (e.Kind == LogKindNodeDegraded || e.Kind == LogKindDrainTimeout) && "node/"+e.Fields["node"] == f.Subject {
			lines = append(lines, lastLine(e))
		}
	}
	return lines
}

// evidenceInstallerEnd: the installer's last line.
func evidenceInstallerEnd(_ *LogEvidence, a *analysis, f *Finding) []LogLine {
	if op := StaticPodComponentFor(f.Details["component"]); op != nil {
		if e := a.installerEnd(op.Namespace, f.Details["installer"]); e != nil {
			return []LogLine{e.LogLine}
		}
	}
	return nil
}

// evidenceCSRPending: the approver's reason for a pending CSR.
func evidenceCSRPending(l *LogEvidence, _ *analysis, f *Finding) []LogLine {
	var lines []LogLine
	for _, e := range l.EntriesOf(LogKindCSRNotAuthorized) {
		if containsString(strings.Split(f.Details["csrs"], ","), e.Fields["csr"]) {
			lines = append(lines, lastLine(e))
		}
	}
	return lines
}

// maxLogEvidence bounds the log lines added to one finding.
const maxLogEvidence = 4

func lastLine(e LogEntry) LogLine {
	if e.LastSeen != nil {
		return *e.LastSeen
	}
	return e.LogLine
}
