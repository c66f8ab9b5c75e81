package inspect

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
)

// The files the log rows use.
const (
	cvoLog      = "openshift-cluster-version/cluster-version-operator-6b5c7d9f8-x2x9q/cluster-version-operator"
	cvoPrevLog  = cvoLog + "/previous"
	mcdLog      = "openshift-machine-config-operator/machine-config-daemon-q8w2e/machine-config-daemon"
	approverLog = "openshift-cluster-machine-approver/machine-approver-7c5d8b9f4-hh2k8/machine-approver-controller"
)

var seedPayloadImage = "quay.io/openshift-release-dev/ocp-release@sha256:039a4ef7c128a049ccf916a1d68ce93e8f5494b44d5a75df60c85e9e7191dacc"

// logLine is a line of a file at a time before the fixture's now.
func logLine(file string, n int, ago time.Duration, text string) LogLine {
	return LogLine{Time: fixtureNow.Add(-ago), Source: "must-gather/" + file + ".log:" + strconv.Itoa(n), Text: text}
}

func entry(kind, file string, l LogLine, fields map[string]string) LogEntry {
	fam := LogFamilyCVO
	switch {
	case strings.Contains(file, "machine-config-daemon"):
		fam = LogFamilyMachineConfigDaemon
	case strings.Contains(file, "/installer"):
		fam = LogFamilyInstaller
	case strings.Contains(file, "machine-approver"):
		fam = LogFamilyMachineApprover
	}
	return LogEntry{Kind: kind, Family: fam, File: file, LogLine: l, Fields: fields, Count: 1}
}

// repeated makes e occur n times, the last one at last.
func repeated(e LogEntry, n int, last LogLine) LogEntry {
	e.Count, e.LastSeen = n, &last
	return e
}

// withLogs gives the snapshot the log entries, and a file record for each file
// they come from (the daemon's on node worker-0).
func withLogs(entries ...LogEntry) func(*Snapshot) {
	return func(s *Snapshot) {
		l := &LogEvidence{Entries: entries}
		seen := map[string]bool{}
		for _, e := range entries {
			if seen[e.File] {
				continue
			}
			seen[e.File] = true
			parts := strings.Split(e.File, "/")
			f := LogFile{Path: "must-gather/" + e.File + ".log", Namespace: parts[0], Pod: parts[1], Container: parts[2], Previous: len(parts) > 3,
				Family: e.Family, Lines: 100, Bytes: 10000, First: fixtureNow.Add(-3 * time.Hour), Last: fixtureNow.Add(-time.Minute)}
			if e.Family == LogFamilyMachineConfigDaemon {
				f.Node = "worker-0"
			}
			l.Files = append(l.Files, f)
		}
		s.Logs = l
	}
}

func both(edits ...func(*Snapshot)) func(*Snapshot) {
	return func(s *Snapshot) {
		for _, e := range edits {
			e(s)
		}
	}
}

// abandoned is the BZ1838497 sequence of the seed in a CVO log.
func abandoned(file string) []LogEntry {
	up := logLine(file, 5, 3*time.Hour, "Running sync "+seedPayloadImage+" (force=true) on generation 2 in state Updating at attempt 0")
	res := logLine(file, 12, 2*time.Hour+54*time.Minute, "Result of work: [update was cancelled at 0 of 573]")
	rec := logLine(file, 15, 2*time.Hour+51*time.Minute, "Running sync "+seedPayloadImage+" (force=true) on generation 2 in state Reconciling at attempt 0")
	e := entry(LogKindCVOAbandonedUpdate, file, up, map[string]string{"payload": seedPayloadImage, "generation": "2", "done": "0", "total": "573", "how": "cancelled", "wording": "cancellation"})
	e.Proof = []LogLine{up, res, rec}
	return []LogEntry{
		entry(LogKindCVOVersion, file, logLine(file, 1, 3*time.Hour+time.Second, "ClusterVersionOperator v4.3.19-202005041055-dirty"), map[string]string{"version": "v4.3.19-202005041055-dirty", "build": "202005041055"}),
		entry(LogKindCVOSync, file, up, map[string]string{"payload": seedPayloadImage, "generation": "2", "state": "Updating", "force": "true", "attempt": "0"}),
		entry(LogKindCVOResult, file, res, map[string]string{"ok": "false", "how": "cancelled", "done": "0", "total": "573", "errors": "[update was cancelled at 0 of 573]"}),
		entry(LogKindCVOSync, file, rec, map[string]string{"payload": seedPayloadImage, "generation": "2", "state": "Reconciling", "force": "true", "attempt": "0"}),
		e,
	}
}

func installerEnd(pod string, wrote, sigterm bool, text string) LogEntry {
	file := "openshift-kube-apiserver/" + pod + "/installer"
	return entry(LogKindInstallerEnd, file, logLine(file, 4, 2*time.Hour, text), map[string]string{"wroteManifest": strconv.FormatBool(wrote), "sigterm": strconv.FormatBool(sigterm)})
}

func addInstaller(node string, rev int, phase corev1.PodPhase) func(*fixture) {
	return func(f *fixture) { f.pods = append(f.pods, installerPod(node, rev, 0, phase, 0)) }
}

func eviction(ns, pod, node string, n int) LogEntry {
	first := logLine(mcdLog, 10, 2*time.Hour, `error when evicting pods/"`+pod+`" -n "`+ns+`" (will retry after 5s): `+openshift.EvictionRefused)
	e := entry(LogKindEvictionRefused, mcdLog, first, map[string]string{"pod": pod, "namespace": ns, "node": node, "budget": "true",
		"error": openshift.EvictionRefused})
	return repeated(e, n, logLine(mcdLog, 900, 5*time.Minute, first.Text))
}

func applyError(n int) LogEntry {
	first := logLine(cvoLog, 40, 50*time.Minute, `error running apply for clusteroperator "kube-apiserver" (99 of 778): Cluster operator kube-apiserver is updating versions`)
	e := entry(LogKindCVOApplyError, cvoLog, first, map[string]string{"kind": "clusteroperator", "object": "kube-apiserver", "task": `clusteroperator "kube-apiserver"`,
		"index": "99", "total": "778", "error": "Cluster operator kube-apiserver is updating versions"})
	if n > 1 {
		e = repeated(e, n, logLine(cvoLog, 400, 2*time.Minute, first.Text))
	}
	return e
}

func partialHistory(f *fixture) { f.cv.Status.History[0].State = configv1.PartialUpdate }

func degradedLine(reason string) LogEntry {
	return entry(LogKindNodeDegraded, mcdLog, logLine(mcdLog, 30, time.Hour, "Marking Degraded due to: "+reason), map[string]string{"node": "worker-0", "reason": reason})
}

func notAuthorized(csr, reason string) LogEntry {
	return entry(LogKindCSRNotAuthorized, approverLog, logLine(approverLog, 7, 30*time.Minute, "CSR "+csr+" not authorized: "+reason), map[string]string{"csr": csr, "reason": reason})
}

// logFindingCases are the rows of the log codes (formatVersion 1.2), read by
// TestWedgeFindings and TestEveryCodeIsTestedAndDocumented.
func logFindingCases() []wedgeFindingCase {
	osImage := `unexpected on-disk state validating against rendered-worker-new: expected target osImageURL "quay.io/x@sha256:aaaa", have "quay.io/x@sha256:bbbb"`
	return []wedgeFindingCase{
		{name: "the CVO's log shows the BZ1838497 race", code: CodeCVOAbandonedUpdate, subject: cvSubject, class: ClassBlocks, edit: withLogs(abandoned(cvoLog)...),
			details: map[string]string{"payload": seedPayloadImage, "generation": "2", "done": "0", "total": "573", "how": "cancelled",
				"cvoVersion": "v4.3.19-202005041055-dirty", "runningPredatesFix": "true"}},
		{name: "the CVO that raced was replaced by one with the fix", code: CodeCVOAbandonedUpdate, subject: cvSubject, edit: withLogs(append(abandoned(cvoPrevLog),
			entry(LogKindCVOVersion, cvoLog, logLine(cvoLog, 1, time.Hour, "ClusterVersionOperator v4.4.8-202006101445-dirty"), map[string]string{"version": "v4.4.8-202006101445-dirty", "build": "202006101445"}))...),
			details: map[string]string{"runningCVO": "v4.4.8-202006101445-dirty", "runningPredatesFix": "false"}},
		{name: "a log of syncs without the race", code: CodeCVOAbandonedUpdate, edit: withLogs(abandoned(cvoLog)[:4]...)},

		{name: "an installer Succeeded whose log stops early", code: CodeInstallerInterrupted, subject: "pod/openshift-kube-apiserver/installer-6-master-1", class: ClassBlocks,
			mutate: addInstaller("master-1", 6, corev1.PodSucceeded), edit: withLogs(installerEnd("installer-6-master-1", false, false, `Getting config maps ...`)),
			details: map[string]string{"component": "kube-apiserver", "node": "master-1", "revision": "6", "lastLine": "Getting config maps ...", "sigterm": "false"}},
		{name: "an installer Succeeded after SIGTERM", code: CodeInstallerInterrupted, subject: "pod/openshift-kube-apiserver/installer-6-master-1", class: ClassBlocks,
			mutate: addInstaller("master-1", 6, corev1.PodSucceeded), edit: withLogs(installerEnd("installer-6-master-1", false, true, "Received SIGTERM or SIGINT signal, shutting down the process.")),
			details: map[string]string{"sigterm": "true"}},
		{name: "an interrupted installer whose revision a retry installed informs", code: CodeInstallerInterrupted, subject: "pod/openshift-kube-apiserver/installer-5-master-1", class: ClassInforms,
			edit: withLogs(installerEnd("installer-5-master-1", false, false, `Getting secrets ...`))},
		{name: "an installer that wrote its manifest", code: CodeInstallerInterrupted, mutate: addInstaller("master-1", 6, corev1.PodSucceeded),
			edit: withLogs(installerEnd("installer-6-master-1", true, false, `Writing static pod manifest "/etc/kubernetes/manifests/kube-apiserver-pod.yaml" ...`))},
		{name: "a failed installer is not contradicted", code: CodeInstallerInterrupted, mutate: addInstaller("master-1", 6, corev1.PodFailed),
			edit: withLogs(installerEnd("installer-6-master-1", false, false, `Getting config maps ...`))},

		{name: "the daemon's log names a budget the must-gather lacks", code: CodeDrainBlockedByUnseenPDB, subject: "namespace/shop", class: ClassBlocks,
			edit:    both(func(s *Snapshot) { drainHeld(s.testNode("worker-0")) }, withLogs(eviction("shop", "web-1", "worker-0", 3))),
			details: map[string]string{"namespace": "shop", "pods": "shop/web-1", "nodes": "worker-0", "count": "3"}},
		{name: "the degraded node names the unseen budget", code: CodeNodeDegraded, subject: "node/worker-0", class: ClassBlocks,
			edit:    both(func(s *Snapshot) { drainHeld(s.testNode("worker-0")) }, withLogs(eviction("shop", "web-1", "worker-0", 3))),
			details: map[string]string{"cause": "namespace/shop"}},
		{name: "an unseen budget on a node that drained since informs", code: CodeDrainBlockedByUnseenPDB, subject: "namespace/shop", class: ClassInforms,
			edit: withLogs(eviction("shop", "web-1", "worker-0", 3))},
		{name: "a budget the snapshot holds is DrainBlockedByPDB's", code: CodeDrainBlockedByUnseenPDB, edit: both(pdbHoldsWorker(0), withLogs(eviction("shop", "web-1", "worker-0", 3)))},

		{name: "the CVO retries one manifest", code: CodeCVORetryingManifest, subject: "clusteroperator/kube-apiserver", class: ClassBlocks, mutate: partialHistory,
			edit: withLogs(applyError(5)), details: map[string]string{"object": `clusteroperator "kube-apiserver"`, "count": "5", "done": "99", "total": "778"}},
		{name: "retries after the update completed inform", code: CodeCVORetryingManifest, subject: "clusteroperator/kube-apiserver", class: ClassInforms, edit: withLogs(applyError(5))},
		{name: "one failed apply is no retry loop", code: CodeCVORetryingManifest, mutate: partialHistory, edit: withLogs(applyError(1))},

		{name: "a daemon's degraded reason the node lost", code: CodeNodeDegradedInLog, subject: "node/worker-0", class: ClassInforms, edit: withLogs(degradedLine(osImage)),
			details: map[string]string{"node": "worker-0", "class": NodeClassOSImageMismatch}},
		{name: "a degraded node without its reason", code: CodeNodeDegradedInLog, subject: "node/worker-0", class: ClassBlocks, edit: both(func(s *Snapshot) {
			s.testNode("worker-0").MCDState = MCDStateDegraded
		}, withLogs(degradedLine(osImage)))},
		{name: "a degraded node with its reason has NodeDegraded", code: CodeNodeDegradedInLog, edit: both(func(s *Snapshot) {
			n := s.testNode("worker-0")
			n.MCDState, n.MCDReason = MCDStateDegraded, osImage
		}, withLogs(degradedLine(osImage)))},

		{name: "the approver refused a CSR that is gone", code: CodeCSRNotAuthorizedInLog, subject: "certificatesigningrequest/csr-8vx2k", class: ClassInforms,
			edit: withLogs(notAuthorized("csr-8vx2k", `No target machine for node "worker-3"`)), details: map[string]string{"reason": `No target machine for node "worker-3"`}},
		{name: "a CSR approved later", code: CodeCSRNotAuthorizedInLog, edit: withLogs(notAuthorized("csr-8vx2k", "No target machine"),
			entry(LogKindCSRApproved, approverLog, logLine(approverLog, 9, time.Minute, "CSR csr-8vx2k approved"), map[string]string{"csr": "csr-8vx2k"}))},
	}
}

// TestLogEvidenceJoinsFindings: the findings the objects prove carry the log
// lines that say the same, with their source and time.
func TestLogEvidenceJoinsFindings(t *testing.T) {
	for _, tc := range []struct {
		name, code, subject, source string
		mutate                      func(*fixture)
		edit                        func(*Snapshot)
	}{
		{"a budget's refused evictions", CodeDrainBlockedByPDB, "poddisruptionbudget/shop/web", mcdLog + ".log:10", nil,
			both(pdbHoldsWorker(0), withLogs(eviction("shop", "web-1", "worker-0", 3)))},
		{"a degraded node's own words", CodeNodeDegraded, "node/worker-0", mcdLog + ".log:30", nil, both(func(s *Snapshot) {
			n := s.testNode("worker-0")
			n.MCDState, n.MCDReason = MCDStateDegraded, "boom"
		}, withLogs(degradedLine("boom")))},
		{"an installer's last line", CodeInstallerSucceededWithoutRevision, "node/master-1", "installer-6-master-1/installer.log:4",
			addInstaller("master-1", 6, corev1.PodSucceeded), withLogs(installerEnd("installer-6-master-1", false, false, "Getting config maps ..."))},
		{"the abandoned update's syncs", CodeUpdateClaimedCompleteButMixed, cvSubject, cvoLog + ".log:15", mutateMixed, withLogs(abandoned(cvoLog)...)},
		{"a failed precondition", CodeReleaseNotAccepted, cvSubject, cvoLog + ".log:60", func(f *fixture) {
			setCVCondition(f.cv, "ReleaseAccepted", "False", "PreconditionChecks", `Preconditions failed for payload loaded version="4.5.1" image="quay.io/x@sha256:451": Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired"`)
		}, withLogs(entry(LogKindCVOPrecondition, cvoLog, logLine(cvoLog, 60, time.Hour, `Precondition error (force false, block true): Precondition "ClusterVersionUpgradeable" failed because of "AdminAckRequired": ...`),
			map[string]string{"precondition": "ClusterVersionUpgradeable", "reason": "AdminAckRequired"}))},
		{"a stuck manifest's failed applies", CodeCVOStuckOnManifest, "deployment/openshift-monitoring/cluster-monitoring-operator", cvoLog + ".log:70", func(f *fixture) {
			updatingTo445(f)
			setCVCondition(f.cv, "Failing", "True", "UpdatePayloadResourceInvalid", msgCouldNotUpdate)
		}, withLogs(entry(LogKindCVOApplyError, cvoLog, logLine(cvoLog, 70, time.Hour, `error running apply for deployment "openshift-monitoring/cluster-monitoring-operator" (412 of 812): admission webhook "validation.gatekeeper.sh" denied the request`),
			map[string]string{"task": `deployment "openshift-monitoring/cluster-monitoring-operator"`, "kind": "deployment", "object": "openshift-monitoring/cluster-monitoring-operator"}))},
		{"the approver's reason for a pending CSR", CodeCSRPending, "node/worker-1", approverLog + ".log:7", nil, both(func(s *Snapshot) {
			s.Machines = []Machine{{Namespace: "openshift-machine-api", Name: "worker-1", Created: fixtureNow.Add(-20 * time.Minute),
				Addresses: []Address{{Type: "InternalDNS", Address: "worker-1"}}}}
			s.CertificateSigningRequests = []CertificateSigningRequest{csr("csr-b", "kubernetes.io/kube-apiserver-client-kubelet", "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper", "system:node:worker-1", fixtureNow.Add(-10*time.Minute))}
		}, withLogs(notAuthorized("csr-b", "No target machine")))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := stuckSnapshot(tc.mutate, tc.edit)
			f := assertFinding(t, s, tc.code, tc.subject)
			for _, e := range f.Evidence {
				if strings.HasSuffix(e.Source, tc.source) && !e.Time.IsZero() {
					return
				}
			}
			t.Fatalf("%s has no evidence from %s: %+v", tc.code, tc.source, f.Evidence)
		})
	}
}

func TestCVOPredatesFix(t *testing.T) {
	for _, tc := range []struct{ version, build, want string }{
		{"v4.3.19-202005041055-dirty", "202005041055", "true"},
		{"v4.3.25-202006101400", "202006101400", "false"},
		{"v4.4.3-202004290920", "202004290920", "true"},
		{"v4.2.36-202006230000", "202006230000", "false"},
		{"v4.1.41-202006010000", "202006010000", "true"},
		{"v4.6.1", "", "false"},
		{"v4.3.19", "", "unknown"},
		{"v1.0.0-1234-gabcdef", "", "unknown"},
	} {
		if got := CVOPredatesFix(tc.version, tc.build); got != tc.want {
			t.Errorf("CVOPredatesFix(%s, %s) = %s, want %s", tc.version, tc.build, got, tc.want)
		}
	}
}

// TestTimelineOrdersAndLinks: the timeline is oldest first, holds the CVO's
// lines of the race and the history, and the wedge of the abandoned update names
// the entries of the lines it rests on, in order.
func TestTimelineOrdersAndLinks(t *testing.T) {
	s := stuckSnapshot(nil, withLogs(abandoned(cvoLog)...))
	tl := s.Timeline
	if tl == nil || len(tl.Entries) == 0 {
		t.Fatal("no timeline")
	}
	for i := 1; i < len(tl.Entries); i++ {
		if tl.Entries[i].Time.Before(tl.Entries[i-1].Time) {
			t.Fatalf("timeline not oldest first at %d: %+v", i, tl.Entries)
		}
		if tl.Entries[i].ID != "t"+strconv.Itoa(i+1) {
			t.Fatalf("entry %d has ID %s", i, tl.Entries[i].ID)
		}
	}
	var w *Wedge
	for i := range s.Wedges {
		if s.Wedges[i].Code == CodeCVOAbandonedUpdate {
			w = &s.Wedges[i]
		}
	}
	if w == nil {
		t.Fatalf("no wedge for the abandoned update: %+v", s.Wedges)
	}
	var texts []string
	for _, id := range w.Timeline {
		texts = append(texts, tl.Entry(id).Source)
	}
	want := []string{cvoLog + ".log:5", cvoLog + ".log:12", cvoLog + ".log:15"}
	if len(texts) != len(want) {
		t.Fatalf("wedge timeline %v, want the sources %v", texts, want)
	}
	for i := range want {
		if !strings.HasSuffix(texts[i], want[i]) {
			t.Errorf("wedge timeline entry %d from %s, want %s", i, texts[i], want[i])
		}
	}
}

// TestTimelineIsBounded: a snapshot with more entries than the bound keeps the
// ones findings rest on and counts the rest.
func TestTimelineIsBounded(t *testing.T) {
	var entries []LogEntry
	for i := range 300 {
		l := logLine(cvoLog, 100+i, time.Duration(300-i)*time.Minute, "Result of work: []")
		entries = append(entries, entry(LogKindCVOResult, cvoLog, l, map[string]string{"ok": "true", "errors": "[]", "n": strconv.Itoa(i)}))
	}
	s := stuckSnapshot(nil, withLogs(append(entries, abandoned(cvoLog)...)...))
	if len(s.Timeline.Entries) != MaxTimelineEntries || s.Timeline.Omitted == 0 {
		t.Fatalf("timeline has %d entries, %d omitted", len(s.Timeline.Entries), s.Timeline.Omitted)
	}
	linked := 0
	for _, e := range s.Timeline.Entries {
		if len(e.Findings) > 0 {
			linked++
		}
	}
	if linked < 3 {
		t.Fatalf("the entries the findings rest on were dropped: %d linked", linked)
	}
}

func TestResolveLogYear(t *testing.T) {
	ref := time.Date(2021, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   time.Time
		want int
	}{
		{time.Date(0, 12, 31, 23, 0, 0, 0, time.UTC), 2020},
		{time.Date(0, 1, 1, 1, 0, 0, 0, time.UTC), 2021},
		{time.Date(0, 1, 3, 1, 0, 0, 0, time.UTC), 2021}, // a day of skew
		{time.Date(2019, 5, 1, 0, 0, 0, 0, time.UTC), 2019},
	} {
		if got := ResolveLogYear(tc.in, ref).Year(); got != tc.want {
			t.Errorf("ResolveLogYear(%s) year %d, want %d", tc.in, got, tc.want)
		}
	}
}

// mutateMixed leaves an operator behind a history that says Completed.
func mutateMixed(f *fixture) { f.co("dns").Status.Versions[0].Version = "4.4.3" }
