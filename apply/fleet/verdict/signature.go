package verdict

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// perInstanceKinds are the subject kinds whose names differ from cluster to
// cluster for the same wedge (a node's CSR is pending on worker-2 here and on
// compute-7 there): the signature keeps their kind only.
var perInstanceKinds = []string{"node", "certificatesigningrequest"}

// SignatureText is the canonical text the signature digests: one line per
// cause ("<code> <subject>", per-node subjects folded to "<kind>/*"), then the
// answer with its remedies and --accept names. Two clusters wedged the same way
// give the same text.
func SignatureText(v *Verdict) string {
	var b strings.Builder
	for _, c := range v.Causes {
		b.WriteString("cause " + c.Code + " " + foldSubject(c.Subject) + "\n")
	}
	b.WriteString("answer " + string(v.Remedy.Answer) + "\n")
	if len(v.Remedy.Remedies) > 0 {
		b.WriteString("remedies " + strings.Join(v.Remedy.Remedies, ",") + "\n")
	}
	if len(v.Remedy.Accept) > 0 {
		b.WriteString("accept " + strings.Join(v.Remedy.Accept, ",") + "\n")
	}
	return b.String()
}

// Signature is the first 12 hex digits of the sha256 of SignatureText: short
// enough for a label value and a table column.
func Signature(v *Verdict) string {
	sum := sha256.Sum256([]byte(SignatureText(v)))
	return hex.EncodeToString(sum[:])[:12]
}

// foldSubject keeps the kind of a per-instance subject ("node/master-1" becomes
// "node/*") and every other subject as it is.
func foldSubject(subject string) string {
	kind, _, ok := strings.Cut(subject, "/")
	if !ok {
		return subject
	}
	for _, k := range perInstanceKinds {
		if kind == k {
			return kind + "/*"
		}
	}
	return subject
}
