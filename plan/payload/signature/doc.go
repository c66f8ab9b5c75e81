// Package signature verifies OpenShift release image signatures the way the
// cluster-version operator does (openshift/library-go pkg/verify): a signature is
// an OpenPGP signed message whose content is an "atomic container signature"
// (containers/image) naming the image's manifest digest; signatures live in a
// store at <store>/<algo>=<hex>/signature-<N>, N counting from 1 (at most 10 are
// searched); every configured keyring must have signed the digest.
//
// recover plan records the outcome in the plan (Inputs.SignatureVerification):
// "verified: ..." with the signing keys, or "skipped: <why>" when no keyring was
// given. A release that fails verification stops the plan.
//
// Stores can be http(s):// URLs (the official one is
// https://mirror.openshift.com/pub/openshift-v4/signatures/openshift/release),
// file:// URLs or directories, for disconnected clusters that mirror the
// signatures. OpenPGP comes from github.com/ProtonMail/go-crypto, the maintained
// fork of golang.org/x/crypto/openpgp that library-go used.
package signature
