package inspect

import (
	"fmt"
	"strings"
	"time"

	"github.com/openshift-recover/recover/internal/openshift"
)

// The expiry thresholds of CertificateExpiry: an error when a certificate is
// expired or has less than certErrorWithin left, a warning under certWarnWithin.
// A certificate valid for less than 150 days is measured against its own life
// instead (an error under a fifth of it, a warning under half), because the
// rotation controller renews such signers half-way (aggregator-client-signer and
// csr-signer are valid 30 days and renewed after 15; library-go certrotation) and a
// fixed 30 days would flag every healthy one.
const (
	certErrorWithin = 14 * 24 * time.Hour
	certWarnWithin  = 30 * 24 * time.Hour
)

// certThresholds returns the error and warning thresholds for a certificate.
func certThresholds(c CertificateSecret) (errWithin, warnWithin time.Duration) {
	errWithin, warnWithin = certErrorWithin, certWarnWithin
	if c.NotBefore.IsZero() || !c.NotAfter.After(c.NotBefore) {
		return
	}
	life := c.NotAfter.Sub(c.NotBefore)
	if life < 150*24*time.Hour {
		errWithin, warnWithin = min(errWithin, life/5), min(warnWithin, life/2)
	}
	return
}

// certificates reports signer certificates that are expired or expire soon,
// measured at the snapshot's time (W11, W13).
func (a *analysis) certificates() {
	s := a.s
	now := s.Source.CollectedAt
	if now.IsZero() {
		return
	}
	var paused []string
	for _, p := range s.MachineConfigPools {
		if p.Paused {
			paused = append(paused, p.Name)
		}
	}
	for _, c := range s.Certificates {
		if c.NotAfter.IsZero() {
			continue
		}
		remaining := c.NotAfter.Sub(now)
		errWithin, warnWithin := certThresholds(c)
		var sev, class, state string
		switch {
		case remaining <= 0:
			sev, class, state = SeverityError, ClassBlocks, fmt.Sprintf("expired %s ago", roundDay(-remaining))
		case remaining < errWithin:
			sev, class, state = SeverityError, ClassBlocks, fmt.Sprintf("expires in %s", roundDay(remaining))
		case remaining < warnWithin:
			sev, class, state = SeverityWarning, ClassInforms, fmt.Sprintf("expires in %s", roundDay(remaining))
		default:
			continue
		}
		subject := "secret/" + c.Namespace + "/" + c.Name
		msg := fmt.Sprintf("Certificate %s/%s %s (notAfter %s), past the point its rotation controller should have renewed it.", c.Namespace, c.Name, state, c.NotAfter.UTC().Format(time.RFC3339))
		if c.Name == openshift.KubeletSigner {
			msg = fmt.Sprintf("The kubelet signer %s/%s %s (notAfter %s): kubelets that do not get its successor in their kubelet-ca.crt stop talking to the API server when it expires.", c.Namespace, c.Name, state, c.NotAfter.UTC().Format(time.RFC3339))
			if len(paused) > 0 {
				msg += fmt.Sprintf(" Pool %s is paused and keeps the new CA bundle from its nodes: unpause it (runbook MachineConfigControllerPausedPoolKubeletCA).", strings.Join(paused, ", "))
			}
		} else if remaining <= 0 {
			msg += " Components that use it fail TLS; see the OpenShift docs on recovering from expired control plane certificates."
		}
		ev := []Evidence{
			claim(fmt.Sprintf("%s %s, %s %s", openshift.AnnotationCertNotAfter, c.NotAfter.UTC().Format(time.RFC3339), openshift.AnnotationCertNotBefore, timeOrUnknown(c.NotBefore)), subject+" metadata.annotations"),
			rule(fmt.Sprintf("measured at %s (%s): an error under %s left, a warning under %s; signers rotate at 80%% of their life or earlier (library-go pkg/operator/certrotation)",
				now.UTC().Format(time.RFC3339), s.Source.CollectedAtFrom, roundDay(errWithin), roundDay(warnWithin))),
		}
		if c.Name == openshift.KubeletSigner && len(paused) > 0 {
			ev = append(ev, reality("paused pools: "+strings.Join(paused, ", "), "machineconfigpools spec.paused"))
		}
		a.add(Finding{Code: CodeCertificateExpiry, Severity: sev, Class: class, Subject: subject, Message: msg, Evidence: ev,
			Details: map[string]string{"notAfter": c.NotAfter.UTC().Format(time.RFC3339), "remaining": remaining.Round(time.Second).String()}})
	}
}

// roundDay prints a duration in days and hours ("3d4h"), or hours under a day.
func roundDay(d time.Duration) string {
	d = d.Round(time.Hour)
	if d < 24*time.Hour {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	days := d / (24 * time.Hour)
	if h := (d % (24 * time.Hour)) / time.Hour; h > 0 {
		return fmt.Sprintf("%dd%dh", days, h)
	}
	return fmt.Sprintf("%dd", days)
}

func timeOrUnknown(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}
