package logs

import (
	"bytes"
	"regexp"

	"github.com/openshift-recover/recover/inspect"
)

// The cluster-version operator's lines (openshift/cluster-version-operator):
//
//	cmd/start.go                   ClusterVersionOperator v4.3.19-202005041055-dirty          (version.String; the build time is ART's)
//	pkg/cvo/sync_worker.go         Running sync <version or image> (force=<bool>) on generation <G> in state <Updating|Reconciling|Initializing> at attempt <N>   (4.1-4.9, V(4); V(2) in 4.8)
//	                               apply: <version> on generation <G> in state <state> at attempt <N>   (4.10+, V(2))
//	                               Payload loaded from <image> with hash <hash>[, architecture <arch>]
//	                               All errors were cancellation errors: [...]                (before 536bdfd1, May 2020)
//	                               All errors were context errors: [...]                     (after it)
//	                               Precondition error (force <bool>, block <bool>): Precondition "<name>" failed because of "<reason>": <message>
//	                               Retrieving payload failed version="<v>" image="<image>" failure=<why>
//	pkg/payload/task_graph.go      Result of work: [<errors>]                                 (Result of work: errs=[...] since Oct 2024)
//	pkg/payload/task.go            error running apply for <kind> "<ns>/<name>" (<i> of <n>): <error>   (utilruntime.HandleError: plain before apimachinery 0.30,
//	                                                                                                   then "Unhandled Error" err="...")
//	pkg/verify/verify.go           unable to load signature: <error>
//
// A task's error of the task graph that was cancelled or timed out reads
// "update was cancelled at <done> of <total>" before 536bdfd1, then
// "update context canceled at ..." or "update context deadline exceeded at ...".
//
// The BZ1838497 race (fixed by 536bdfd1 and 2834c0ce, cherry-picked to
// release-4.5 #378, 4.4 #379, 4.3 #380, 4.2 #382): summarizeTaskGraphErrors drops
// the cancellation errors, the sync counts as a success, and the next sync of the
// same payload and generation runs in state Reconciling. The parser proves it
// from the sequence: a sync in state Updating, its Result of work with a
// cancellation, then a sync of the same payload and generation in state
// Reconciling.
var (
	cvoVersion  = regexp.MustCompile(`^ClusterVersionOperator (v?\S+)`)
	cvoBuild    = regexp.MustCompile(`-(20\d{10})(?:\D|$)`)
	cvoSyncOld  = regexp.MustCompile(`^Running sync (\S+) \(force=(true|false)\) on generation (\d+) in state (\w+) at attempt (\d+)`)
	cvoSyncNew  = regexp.MustCompile(`^apply: (\S+) on generation (\d+) in state (\w+) at attempt (\d+)`)
	cvoLoaded   = regexp.MustCompile(`^Payload loaded from (\S+) with hash ([^\s,]+)`)
	cvoCancel   = regexp.MustCompile(`update (was cancelled|context canceled|context deadline exceeded) at (\d+) of (\d+)`)
	cvoCtxErrs  = regexp.MustCompile(`^All errors were (cancellation|context) errors: (.*)`)
	cvoApplyErr = regexp.MustCompile(`^error running apply for (\S+) "([^"]*)" \((\d+) of (\d+)\): (.*)`)
	cvoPrecond  = regexp.MustCompile(`Precondition "([^"]+)" failed because of "([^"]*)": (.*)`)
	cvoRetrieve = regexp.MustCompile(`^Retrieving payload failed version="([^"]*)" image="([^"]*)" failure=(.*)`)
)

// cvoParser reads a CVO log.
type cvoParser struct {
	// cur is the sync under way: its line and, once seen, its result.
	cur *cvoSync
}

type cvoSync struct {
	payload, generation, state string
	line                       inspect.LogLine
	result                     *inspect.LogLine
	done, total, how           string // the cancellation in its result
	ctxErrs                    *inspect.LogLine
	wording                    string
}

func (p *cvoParser) line(s *scan, h header, n int) {
	msg := h.msg
	if len(msg) == 0 {
		return
	}
	switch msg[0] {
	case 'C':
		if bytes.HasPrefix(msg, []byte("ClusterVersionOperator ")) {
			if m := cvoVersion.FindSubmatch(msg); m != nil {
				f := map[string]string{"version": string(m[1])}
				if b := cvoBuild.FindSubmatch(m[1]); b != nil {
					f["build"] = string(b[1])
				}
				s.emit(inspect.LogKindCVOVersion, f["version"], h, n, f)
			}
		}
	case 'R':
		switch {
		case bytes.HasPrefix(msg, []byte("Running sync ")) && !bytes.HasPrefix(msg, []byte("Running sync for ")):
			if m := cvoSyncOld.FindSubmatch(msg); m != nil {
				p.sync(s, h, n, string(m[1]), string(m[2]), string(m[3]), string(m[4]), string(m[5]))
			}
		case bytes.HasPrefix(msg, []byte("Result of work: ")):
			p.result(s, h, n, msg[len("Result of work: "):])
		case bytes.HasPrefix(msg, []byte("Retrieving payload failed ")):
			if m := cvoRetrieve.FindSubmatch(msg); m != nil {
				f := map[string]string{"version": string(m[1]), "image": string(m[2]), "failure": Text(m[3])}
				s.emit(inspect.LogKindCVORetrieval, f["version"]+"|"+f["image"]+"|"+f["failure"], h, n, f)
			}
		}
	case 'a':
		if bytes.HasPrefix(msg, []byte("apply: ")) {
			if m := cvoSyncNew.FindSubmatch(msg); m != nil {
				p.sync(s, h, n, string(m[1]), "", string(m[2]), string(m[3]), string(m[4]))
			}
		}
	case 'P':
		switch {
		case bytes.HasPrefix(msg, []byte("Payload loaded from ")):
			if m := cvoLoaded.FindSubmatch(msg); m != nil {
				f := map[string]string{"payload": string(m[1]), "hash": string(m[2])}
				s.emit(inspect.LogKindCVOPayloadLoaded, f["payload"]+"|"+f["hash"], h, n, f)
			}
		case bytes.HasPrefix(msg, []byte("Precondition error ")):
			f := map[string]string{}
			if m := cvoPrecond.FindSubmatch(msg); m != nil {
				f["precondition"], f["reason"], f["message"] = string(m[1]), string(m[2]), Text(m[3])
			}
			s.emit(inspect.LogKindCVOPrecondition, f["precondition"]+"|"+f["reason"], h, n, f)
		}
	case 'A':
		if m := cvoCtxErrs.FindSubmatch(msg); m != nil {
			f := map[string]string{"wording": string(m[1]), "errors": Text(m[2])}
			e := s.emit(inspect.LogKindCVOContextErrors, f["wording"]+"|"+f["errors"], h, n, f)
			if p.cur != nil && p.cur.result != nil && p.cur.ctxErrs == nil && e != nil {
				l := s.logLine(h, n)
				p.cur.ctxErrs, p.cur.wording = &l, f["wording"]
			}
		}
	case 'u':
		if bytes.HasPrefix(msg, []byte("unable to load signature")) {
			s.emit(inspect.LogKindCVOSignature, "", h, n, map[string]string{"error": Text(msg)})
		}
	}
	if msg[0] == 'e' || msg[0] == '"' {
		p.applyError(s, h, n, errText(msg))
	}
}

// sync sees the start of a sync: the BZ1838497 sequence closes when it follows
// an Updating sync of the same payload and generation whose work was cancelled.
func (p *cvoParser) sync(s *scan, h header, n int, payload, force, generation, state, attempt string) {
	f := map[string]string{"payload": payload, "generation": generation, "state": state, "attempt": attempt}
	if force != "" {
		f["force"] = force
	}
	s.emit(inspect.LogKindCVOSync, payload+"|"+force+"|"+generation+"|"+state, h, n, f)
	next := &cvoSync{payload: payload, generation: generation, state: state, line: s.logLine(h, n)}
	if c := p.cur; c != nil && c.state == "Updating" && c.result != nil && c.how != "" &&
		state == "Reconciling" && payload == c.payload && generation == c.generation {
		proof := []inspect.LogLine{c.line, *c.result}
		if c.ctxErrs != nil {
			proof = append(proof, *c.ctxErrs)
		}
		proof = append(proof, next.line)
		e := s.emit(inspect.LogKindCVOAbandonedUpdate, payload+"|"+generation+"|"+c.done+"|"+c.total, h, n, map[string]string{
			"payload": payload, "generation": generation, "done": c.done, "total": c.total, "how": c.how, "wording": c.wording,
		})
		if e != nil && e.Count == 1 {
			e.Proof = proof
			// The entry is about the abandoned Updating sync: it starts there.
			e.LogLine = c.line
		}
	}
	p.cur = next
}

// result sees the Result of work of the sync under way.
func (p *cvoParser) result(s *scan, h header, n int, rest []byte) {
	rest = bytes.TrimPrefix(rest, []byte("errs="))
	errs := Text(rest)
	f := map[string]string{"errors": errs, "ok": boolText(len(bytes.TrimSpace(rest)) == 0 || string(bytes.TrimSpace(rest)) == "[]")}
	m := cvoCancel.FindSubmatch(rest)
	if m != nil {
		f["how"], f["done"], f["total"] = cancelHow(string(m[1])), string(m[2]), string(m[3])
	}
	s.emit(inspect.LogKindCVOResult, errs, h, n, f)
	if p.cur != nil && p.cur.result == nil {
		l := s.logLine(h, n)
		p.cur.result = &l
		if m != nil {
			p.cur.how, p.cur.done, p.cur.total = f["how"], f["done"], f["total"]
		}
	}
}

// cancelHow names how the task graph stopped: "cancelled" or "timed out".
func cancelHow(s string) string {
	if s == "context deadline exceeded" {
		return "timed out"
	}
	return "cancelled"
}

// applyError sees a failed apply of one manifest (a retry of the task).
func (p *cvoParser) applyError(s *scan, h header, n int, msg []byte) {
	if !bytes.HasPrefix(msg, []byte("error running apply for ")) {
		return
	}
	m := cvoApplyErr.FindSubmatch(msg)
	if m == nil {
		return
	}
	f := map[string]string{"kind": string(m[1]), "object": string(m[2]), "index": string(m[3]), "total": string(m[4]), "error": Text(m[5])}
	f["task"] = f["kind"] + ` "` + f["object"] + `"`
	s.emit(inspect.LogKindCVOApplyError, f["task"], h, n, f)
}

func (p *cvoParser) end(*scan) {}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
