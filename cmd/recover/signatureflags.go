package main

import (
	"context"
	"fmt"

	"github.com/openshift-recover/recover/inspect"
	"github.com/openshift-recover/recover/plan"

	"github.com/spf13/cobra"

	"github.com/openshift-recover/recover/plan/payload/signature"
)

// signatureFlags choose how recover plan verifies the target release's signature:
// --release-keyring (repeatable; every keyring must have signed) and
// --signature-store (repeatable). Without a keyring, verification is skipped and
// the plan records why.
type signatureFlags struct {
	keyrings []string
	stores   []string
	files    []string
}

// addSignatureFlags registers --release-keyring and --signature-store on cmd.
func addSignatureFlags(cmd *cobra.Command) *signatureFlags {
	f := &signatureFlags{}
	fs := cmd.Flags()
	fs.StringArrayVar(&f.keyrings, "release-keyring", nil, "OpenPGP public keyring (armored or binary) that must have signed the target release (repeatable: every keyring must have signed). Without it, verification is skipped and the plan says so.")
	fs.StringArrayVar(&f.stores, "signature-store", nil, "Release signature store: an http(s):// or file:// URL or a directory in the <algo>=<hex>/signature-N layout (repeatable). Default with --release-keyring: "+officialStore+".")
	fs.StringArrayVar(&f.files, "release-signature", nil, "A release signature file the admin downloaded (signature-N from a signature store, repeatable). With --release-keyring, a release the CVO refuses because it cannot verify it gets the signature remedy: recover verifies the signature offline and the plan creates the signature ConfigMap the CVO reads (never --force). --signature-store also supplies them.")
	_ = cmd.MarkFlagFilename("release-keyring", "gpg", "asc", "pub")
	return f
}

// given reports whether a keyring or a store was named.
func (f *signatureFlags) given() bool {
	return len(f.keyrings) > 0 || len(f.stores) > 0 || len(f.files) > 0
}

// validate refuses signatures without a keyring to verify them with.
func (f *signatureFlags) validate() error {
	if len(f.files) > 0 && len(f.keyrings) == 0 {
		return usageError{msg: "--release-signature needs --release-keyring: recover supplies only a signature it has verified against the release keyring"}
	}
	return nil
}

// officialStore is where Red Hat publishes OpenShift release signatures.
const officialStore = "https://mirror.openshift.com/pub/openshift-v4/signatures/openshift/release"

// options returns the verifier's options (the official store when a keyring is
// given without a store).
func (f *signatureFlags) options() signature.Options {
	o := signature.Options{Keyrings: f.keyrings, Stores: f.stores, Files: f.files}
	if len(o.Keyrings) > 0 && len(o.Stores) == 0 && len(o.Files) == 0 {
		o.Stores = []string{officialStore}
	}
	return o
}

// verifier returns the hook recover plan calls with the chosen target's pull
// spec: it verifies when asked to and returns the plan's SignatureVerification
// record ("verified: ..." or "skipped: ..."); an unsigned release is an error.
func (f *signatureFlags) verifier() func(ctx context.Context, pullSpec string) (string, error) {
	o := f.options()
	return func(ctx context.Context, pullSpec string) (string, error) {
		return signature.Record(ctx, pullSpec, o)
	}
}

// releaseSignatures verifies, offline against the keyrings, a signature for
// every release the snapshot's CVO refuses because it cannot verify it
// (ReleaseNotAccepted, class signature), from --release-signature files and
// --signature-store stores: what the signature remedy puts in the cluster. A
// signature that does not verify is an error (bad input, exit 4) that says why;
// none is looked for without --release-signature or --signature-store.
func (f *signatureFlags) releaseSignatures(ctx context.Context, snap *inspect.Snapshot) (plan.ReleaseSignatures, error) {
	if len(f.keyrings) == 0 || len(f.files) == 0 && len(f.stores) == 0 {
		return nil, nil
	}
	o := f.options()
	out := plan.ReleaseSignatures{}
	for _, fd := range snap.FindingsWithCode(inspect.CodeReleaseNotAccepted) {
		if fd.Details["class"] != inspect.ReleaseClassSignature {
			continue
		}
		digest, err := signature.DigestOf(fd.Details["image"])
		if err != nil {
			return nil, err
		}
		res, err := signature.Verify(ctx, digest, o)
		if err != nil {
			return nil, fmt.Errorf("not supplying a signature for release %s: %w", fd.Details["image"], err)
		}
		out[digest] = res.Signatures
	}
	return out, nil
}
