// Package sigtest makes release signatures for tests: OpenPGP keys, keyring
// files, atomic container signatures (signed messages, as 'gpg --sign' writes
// them) and signature stores in the <algo>=<hex>/signature-N layout. Only tests
// import it.
package sigtest
