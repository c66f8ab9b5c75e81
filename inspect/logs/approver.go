package logs

import (
	"bytes"
	"regexp"

	"github.com/openshift-recover/recover/inspect"
)

// The machine approver's lines (openshift/cluster-machine-approver):
//
//	pkg/controller/controller.go (before March 2021, e309f8d9)
//	    CSR <name> not authorized: <why>          (the reconcile error, as the controller logs it)
//	pkg/controller/controller.go, csr_check.go (since)
//	    <name>: <why>                               (e.g. "csr-8vx2k: Serving Cert: No target machine for node \"worker-3\"")
//	    <name>: CSR not authorized
//	    CSR <name> approved                        (both)
//
// Either way the parser keeps one entry per CSR and reason: why the approver
// leaves a node's certificate signing request pending.
var (
	csrNotAuthorizedOld = regexp.MustCompile(`CSR (\S+) not authorized: (.*)`)
	csrLine             = regexp.MustCompile(`^(csr-\S+): (.*)`)
	csrApproved         = regexp.MustCompile(`^CSR (\S+) approved`)
)

// maxCSRReasons bounds the reasons remembered per CSR name.
const maxCSRReasons = 4096

type approverParser struct {
	// why is the last reason the approver logged per CSR.
	why map[string]string
}

func (p *approverParser) line(s *scan, h header, n int) {
	msg := errText(h.msg)
	if m := csrNotAuthorizedOld.FindSubmatch(msg); m != nil {
		f := map[string]string{"csr": string(m[1]), "reason": Text(m[2])}
		s.emit(inspect.LogKindCSRNotAuthorized, f["csr"]+"|"+f["reason"], h, n, f)
		return
	}
	if m := csrApproved.FindSubmatch(msg); m != nil {
		s.emit(inspect.LogKindCSRApproved, string(m[1]), h, n, map[string]string{"csr": string(m[1])})
		return
	}
	if !bytes.HasPrefix(msg, []byte("csr-")) {
		return
	}
	m := csrLine.FindSubmatch(msg)
	if m == nil {
		return
	}
	name, rest := string(m[1]), m[2]
	if string(rest) == "CSR not authorized" {
		f := map[string]string{"csr": name, "reason": p.why[name]}
		s.emit(inspect.LogKindCSRNotAuthorized, f["csr"]+"|"+f["reason"], h, n, f)
		return
	}
	if p.why == nil {
		p.why = map[string]string{}
	}
	if _, ok := p.why[name]; ok || len(p.why) < maxCSRReasons {
		p.why[name] = Text(rest)
	}
}

func (p *approverParser) end(*scan) {}
