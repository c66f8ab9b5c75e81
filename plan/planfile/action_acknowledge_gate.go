package planfile

import (
	"fmt"
	"regexp"

	"github.com/openshift-recover/recover/internal/openshift"
)

// acknowledge-admin-gate: set an admin gate's key to "true" in
// openshift-config/admin-acks; a condition-cleared wait on the restored CVO's
// Upgradeable follows. The admin's promise: --accept admin-ack:<gate key>. The
// planner's half is remedy_promise.go.
func init() {
	register(&ActionSpec{
		Action:     ActionAcknowledgeGate,
		Changes:    "ConfigMap openshift-config/admin-acks data.<gate key> to \"true\"",
		Mutates:    true,
		Remedy:     true,
		RevertHint: "an acknowledgement is lasting; remove the key from openshift-config/admin-acks by hand to withdraw it",
		Accept:     AcceptAdminAck,
		AcceptForm: AcceptAdminAck + "<gate key>",
		Fields:     [][]string{{"data", "*"}},
		IDWords: func(st *Step) []string {
			if len(st.Change.Fields) == 1 && len(st.Change.Fields[0]) == 2 {
				return []string{st.Change.Fields[0][1]}
			}
			return nil
		},
		acceptName: func(st *Step) string {
			if st.Change != nil && len(st.Change.Fields) == 1 && len(st.Change.Fields[0]) == 2 {
				return AcceptAdminAck + st.Change.Fields[0][1]
			}
			return AcceptAdminAck + "?"
		},
		AcceptSubject: func(k string) string {
			if adminAckKeyRE.MatchString(k) {
				return ""
			}
			return fmt.Sprintf("%q is not an admin gate key (the CVO's pattern %s, e.g. ack-4.18-kube-1.32-api-removals-in-4.19)", k, openshift.AdminAckGatePattern)
		},
		validate: func(p *Plan, i int, at problemFunc) { validateChange(&p.Steps[i], at) },
		note:     changeVerbNote("acknowledges an admin gate in"),
		hand:     changeHand,
	})
}

var adminAckKeyRE = regexp.MustCompile(openshift.AdminAckGatePattern)
