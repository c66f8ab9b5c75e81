package main

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Exit codes of every recover command. They are the contract scripted runbooks rely
// on: documented in the README, never renumbered, only added to.
const (
	// ExitOK: the command did what it was asked. inspect exits 0 whatever it found.
	ExitOK = 0
	// ExitError: an unexpected failure no other code covers.
	ExitError = 1
	// ExitUsage: bad flags or arguments.
	ExitUsage = 2
	// ExitRisksNotAccepted: plan found safe targets, but only ones whose update edges
	// carry risks not named in --accept; or the remedies the cluster needs are an
	// admin's promises (an admin-gate ack, removing overrides, a cloud-credential
	// upgradeable-to, a forced redeployment) not named in --accept.
	ExitRisksNotAccepted = 3
	// ExitBadInput: an input file or document (must-gather, archive, graph, payload,
	// plan, policy, journal) is missing, unreadable or malformed.
	ExitBadInput = 4
	// ExitCluster: the cluster could not be reached, is not an OpenShift cluster, or
	// refused a request recover needs (permissions).
	ExitCluster = 5
	// ExitNoSafeTarget: plan found no target that satisfies the policy.
	ExitNoSafeTarget = 6
	// ExitPreflight: apply refused to start: missing permissions, a stale plan, no
	// backup record, or the plan does not match the cluster.
	ExitPreflight = 7
	// ExitLocked: another recover apply holds the lock on this cluster.
	ExitLocked = 8
	// ExitGateFailed: apply stopped because a gate failed or timed out; the journal
	// is resumable with recover apply --resume.
	ExitGateFailed = 9
	// ExitAborted: apply was aborted (by the user or a signal); the journal is
	// resumable with recover apply --resume.
	ExitAborted = 10
	// ExitStepFailed: apply stopped because the API server refused a step's change
	// (invalid manifest, admission, conflict); the journal is resumable with
	// recover apply --resume.
	ExitStepFailed = 11
	// ExitRemedyRefused: plan found what holds the cluster, but the only remedies
	// are ones recover refuses as unsafe (relaxing a guard PDB, approving a CSR no
	// node or machine vouches for); the report says what to repair instead. apply
	// exits with it when it refuses a remediation step because the live cluster
	// is not what the plan was made for (a recreated object, a CSR that changed or
	// that nobody vouches for any more); nothing was changed for the step, and the
	// journal is resumable.
	ExitRemedyRefused = 12
	// ExitAdvice: plan (and tui) made no plan because recover changes nothing:
	// the CVO keeps the wheel, or what holds the update is for the admin; the
	// report (-o json: kind NoPlan) names the rule, why and the findings.
	ExitAdvice = 13
)

// Library packages classify their errors without importing this package: an error
// (or one it wraps) reports its class through one of these methods.
type (
	// badInputError is implemented by errors about input files and documents.
	badInputError interface{ BadInput() bool }
	// exitCoder is implemented by errors that carry their own exit code, such as
	// the CLI's own usage errors and the engine's stop reasons.
	exitCoder interface{ ExitCode() int }
)

// usageError is a bad flag or argument.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
func (e usageError) ExitCode() int { return ExitUsage }

// codedError attaches an exit code to an error.
type codedError struct {
	err  error
	code int
}

func (e codedError) Error() string { return e.err.Error() }
func (e codedError) Unwrap() error { return e.err }
func (e codedError) ExitCode() int { return e.code }

// withExitCode wraps err so that exitCodeFor returns code for it.
func withExitCode(err error, code int) error {
	if err == nil {
		return nil
	}
	return codedError{err: err, code: code}
}

// exitCodeFor maps an error returned by a command to its exit code.
func exitCodeFor(err error) int {
	if err == nil {
		return ExitOK
	}
	var coder exitCoder
	if errors.As(err, &coder) {
		return coder.ExitCode()
	}
	var bad badInputError
	if errors.As(err, &bad) && bad.BadInput() {
		return ExitBadInput
	}
	// A failed operation on a local path (missing, a directory, a symlink loop,
	// unreadable) is about an input file; its syscall.Errno would otherwise pass
	// for a network error below.
	var pathErr *fs.PathError
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.As(err, &pathErr) {
		return ExitBadInput
	}
	if isClusterError(err) {
		return ExitCluster
	}
	if errors.Is(err, context.Canceled) {
		return ExitAborted
	}
	return ExitError
}

// isClusterError reports whether err came from talking to the API server.
func isClusterError(err error) bool {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrDeadlineExceeded)
}
