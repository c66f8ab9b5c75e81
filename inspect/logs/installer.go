package logs

import (
	"bytes"

	"github.com/openshift-recover/recover/inspect"
)

// The static-pod installer's lines (openshift/library-go
// pkg/operator/staticpod/installerpod/cmd.go). An installer that ran to its end
// logs, in order: "Getting controller reference for node <node>", "Waiting for
// installer revisions to settle for node <node>", "Pruning staging directory",
// "Getting secrets ...", "Getting config maps ...", "Creating target resource
// directory", "Creating directory for static pod manifest", "Writing a pod under
// "<pod>.yaml" key" (then the pod's YAML, lines without a klog header), "Writing
// pod manifest", and last "Writing static pod manifest "<path>" ..." (then the
// final pod). Since July 2021 a SIGTERM prints "Received SIGTERM or SIGINT signal,
// shutting down the process." before the installer stops.
//
// The parser keeps the manifest write and the SIGTERM line, and at the end of the
// log one LogKindInstallerEnd entry: the last line the installer wrote, with
// wroteManifest and sigterm. An installer pod the kubelet reports Succeeded whose
// log ends without the manifest written, or after the SIGTERM line, never
// installed its revision: incident 2, proven from the installer's own words.
type installerParser struct {
	wrote, sigterm bool
}

func (p *installerParser) line(s *scan, h header, n int) {
	msg := h.msg
	switch {
	case bytes.HasPrefix(msg, []byte("Writing static pod manifest ")):
		p.wrote = true
		f := map[string]string{}
		if m := bytes.IndexByte(msg, '"'); m >= 0 {
			if end := closingQuote(msg, m); end > m {
				f["manifest"] = unquoteAll(string(msg[m : end+1]))
			}
		}
		s.emit(inspect.LogKindInstallerManifest, f["manifest"], h, n, f)
	case bytes.HasPrefix(msg, []byte("Received SIGTERM or SIGINT signal")):
		p.sigterm = true
		s.emit(inspect.LogKindInstallerSIGTERM, "", h, n, nil)
	}
}

func (p *installerParser) end(s *scan) {
	if s.last == nil {
		return
	}
	h := split(s.last)
	s.emit(inspect.LogKindInstallerEnd, "", h, s.lastN, map[string]string{"wroteManifest": boolText(p.wrote), "sigterm": boolText(p.sigterm)})
}
