package logs

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/openshift-recover/recover/inspect"
)

// The machine-config daemon's and controller's lines
// (openshift/machine-config-operator):
//
//	vendor/k8s.io/kubectl/pkg/drain/drain.go (the drain both run; ErrOut is klog.Error)
//	    error when evicting pods/"<pod>" -n "<ns>" (will retry after 5s): <error>      (4.7+)
//	    error when evicting pod "<pod>" (will retry after 5s): <error>                (4.6 and earlier: no namespace;
//	                                                                                   4.5 and 4.6 log "evicting pod <ns>/<pod>" first)
//	    error when evicting pods/"<pod>" -n "<ns>": global timeout reached: <timeout>
//	  where a budget's refusal reads "Cannot evict pod as it would violate the pod's
//	  disruption budget." (the API server's eviction response; a guard pod's too).
//	pkg/controller/drain/drain_controller.go (4.11+, the controller drains)
//	    node <node>: initiating drain | node <node>: cordoning                    (logNode)
//	    node <node>: Drain failed. ... Error message from drain: <error>
//	    node <node>: drain exceeded timeout: 1h0m0s. Will continue to retry.
//	pkg/daemon/drain.go, pkg/daemon/update.go (the daemon drained its own node before)
//	    failed to drain node: <node> after 1 hour ...   (failed to drain node : <node> ... in 4.6/4.7)
//	pkg/daemon/writer.go
//	    Marking Degraded due to: <error>     (%v; %q since 4.12)
//
// The daemon's lines are about its own node (the pod's node, which the source
// gives the file); the controller's name the node, and an eviction line is tied
// to the node the controller last said it drains.
var (
	nodePrefix      = regexp.MustCompile(`^node (\S+): (.*)`)
	drainTimeout    = regexp.MustCompile(`drain exceeded timeout: (\S+?)\.?(?:\s|$)`)
	drainFailedNode = regexp.MustCompile(`failed to drain node ?: ?(\S+) after (.*)`)
	evicting        = regexp.MustCompile(`^evicting pod ([^/\s]+)/(\S+)`)
)

// maxPodNamespaces bounds the pods whose namespace the parser remembers.
const maxPodNamespaces = 4096

// budgetRefusal is what the API server answers an eviction a
// PodDisruptionBudget refuses (k8s.io/kubernetes pkg/registry/core/pod/storage/eviction.go).
const budgetRefusal = "disruption budget"

// mcoParser reads a machine-config daemon's or controller's log.
type mcoParser struct {
	// draining is the node the controller last said it cordons or drains.
	draining string
	// namespace of the pods it said it evicts ("evicting pod <ns>/<pod>", 4.5
	// and 4.6), for the eviction errors of those releases, which name the pod
	// alone.
	namespace map[string]string
}

func (p *mcoParser) line(s *scan, h header, n int) {
	msg := errText(h.msg)
	node := ""
	if bytes.HasPrefix(msg, []byte("node ")) {
		if m := nodePrefix.FindSubmatch(msg); m != nil {
			node = string(m[1])
			if rest := m[2]; bytes.HasPrefix(rest, []byte("initiating drain")) || bytes.HasPrefix(rest, []byte("cordoning")) {
				p.draining = node
			}
		}
	}
	if bytes.HasPrefix(msg, []byte("Marking Degraded due to: ")) {
		reason := unquoteAll(string(msg[len("Marking Degraded due to: "):]))
		f := map[string]string{"reason": Text([]byte(reason))}
		s.emit(inspect.LogKindNodeDegraded, f["reason"], h, n, f)
		return
	}
	if bytes.HasPrefix(msg, []byte("evicting pod ")) {
		if m := evicting.FindSubmatch(msg); m != nil {
			if p.namespace == nil {
				p.namespace = map[string]string{}
			}
			if len(p.namespace) < maxPodNamespaces {
				p.namespace[string(m[2])] = string(m[1])
			}
		}
		return
	}
	if i := bytes.Index(msg, []byte("error when evicting pod")); i >= 0 {
		p.eviction(s, h, n, msg[i:], node)
		return
	}
	drain := bytes.Contains(msg, []byte("drain"))
	switch {
	case drain && bytes.Contains(msg, []byte("drain exceeded timeout")):
		f := map[string]string{"node": firstNonEmpty(node, p.draining)}
		if m := drainTimeout.FindSubmatch(msg); m != nil {
			f["timeout"] = string(m[1])
		}
		s.emit(inspect.LogKindDrainTimeout, f["node"], h, n, f)
	case drain && bytes.Contains(msg, []byte("failed to drain node")):
		f := map[string]string{}
		if m := drainFailedNode.FindSubmatch(msg); m != nil {
			f["node"], f["timeout"] = string(m[1]), strings.TrimSpace(string(m[2]))
		}
		s.emit(inspect.LogKindDrainTimeout, f["node"], h, n, f)
	}
}

// eviction sees an eviction the API server refused. It is the hot line of a
// held drain (one every 5 s per pod, for hours): a repeat is counted before
// anything is built.
func (p *mcoParser) eviction(s *scan, h header, n int, msg []byte, node string) {
	pod, ns, rest, ok := parseEviction(msg)
	if !ok {
		return
	}
	if len(ns) == 0 && p.namespace != nil {
		ns = []byte(p.namespace[string(pod)])
	}
	if s.file.Family == inspect.LogFamilyMachineConfigController && node == "" {
		node = p.draining
	}
	budget := bytes.Contains(rest, []byte(budgetRefusal))
	b := []byte("false")
	if budget {
		b = []byte("true")
	}
	key := s.keyOf(inspect.LogKindEvictionRefused, ns, pod, []byte(node), b)
	if s.repeat(key, n) {
		return
	}
	f := map[string]string{"pod": string(pod), "namespace": string(ns), "budget": boolText(budget)}
	if s.file.Family == inspect.LogFamilyMachineConfigController {
		f["node"] = node
	}
	if i := bytes.Index(rest, []byte(": ")); i >= 0 {
		f["error"] = Text(rest[i+2:])
	}
	s.add(key, inspect.LogKindEvictionRefused, h, n, f)
}

// parseEviction takes an eviction error apart: `pods/"<pod>" -n "<ns>"<rest>`,
// or `pod "<pod>"[ from terminating namespace "<ns>"]<rest>`, after "error when
// evicting ".
func parseEviction(msg []byte) (pod, ns, rest []byte, ok bool) {
	const prefix = "error when evicting pod"
	rest = msg[len(prefix):]
	quoted := func(b []byte) ([]byte, []byte, bool) {
		if len(b) == 0 || b[0] != '"' {
			return nil, nil, false
		}
		end := bytes.IndexByte(b[1:], '"')
		if end < 0 {
			return nil, nil, false
		}
		return b[1 : end+1], b[end+2:], true
	}
	switch {
	case bytes.HasPrefix(rest, []byte(`s/"`)):
		if pod, rest, ok = quoted(rest[2:]); !ok {
			return nil, nil, nil, false
		}
		if bytes.HasPrefix(rest, []byte(` -n "`)) {
			if ns, rest, ok = quoted(rest[4:]); !ok {
				return nil, nil, nil, false
			}
		}
	case bytes.HasPrefix(rest, []byte(` "`)):
		if pod, rest, ok = quoted(rest[1:]); !ok {
			return nil, nil, nil, false
		}
		if bytes.HasPrefix(rest, []byte(` from terminating namespace "`)) {
			if ns, rest, ok = quoted(rest[len(` from terminating namespace `):]); !ok {
				return nil, nil, nil, false
			}
		}
	default:
		return nil, nil, nil, false
	}
	return pod, ns, rest, true
}

func (p *mcoParser) end(*scan) {}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
