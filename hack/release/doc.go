// Command release builds recover's release: one reproducible tar.gz per platform
// (the stripped binary, its man pages and shell completions, README.md and LICENSE
// when present), SHA256SUMS over the archives, and the krew plugin manifest
// plugins/recover.yaml that points at them. make release runs it; make release-check
// runs it twice and compares the outputs byte for byte.
//
//	go run ./hack/release [-out dist] [-platforms linux/amd64,darwin/arm64] [-verify]
//
// Reproducible means the outputs depend on the source and the Go toolchain alone:
// the version comes from git describe, every timestamp is SOURCE_DATE_EPOCH (the
// commit time unless set), binaries are built with CGO_ENABLED=0 and -trimpath, and
// the archives have sorted entries, owner 0:0 and a gzip header without name or time.
//
// It lives in the main module so it builds the tree it sits in, and nothing of the
// product imports it.
package main
