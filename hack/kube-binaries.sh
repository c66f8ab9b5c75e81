#!/usr/bin/env bash
# kube-binaries.sh builds the real control-plane binaries recover's integration tests run
# (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok) from the Go module
# proxy, once, into a cache directory keyed by their inputs, and prints that directory.
#
#   hack/kube-binaries.sh          build if missing, print the directory
#   hack/kube-binaries.sh --print  print the directory without building (may not exist yet)
#
# The key hashes hack/kube/go.mod and go.sum, the Go version and the build flags, so a bump
# of any of them (kwok's version is in go.mod) builds into a fresh directory and a cache
# hit is instant. A cold build took 15.7 minutes (module downloads included) on a 2-core
# machine when kwok was installed as a module of its own; the compile of the four
# Kubernetes binaries alone measured 11.9 min, 1,393 CPU-s (issue 34).
set -euo pipefail

KUBE_VERSION=v1.37.2

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mod="$here/kube"
minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${KUBE_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=${KUBE_VERSION}"

key=$( { cat "$mod/go.mod" "$mod/go.sum"; go env GOVERSION; echo "$ldflags" trimpath cgo-off; } | sha256sum | cut -c1-12)
cache=${RECOVER_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/recover}
out="$cache/kube-${KUBE_VERSION}-${key}"

if [ "${1:-}" = "--print" ]; then
  echo "$out"
  exit 0
fi

if [ -f "$out/.complete" ]; then
  echo "$out"
  exit 0
fi

echo "kube-binaries: first build of etcd, kube-apiserver, kube-controller-manager, kube-scheduler ${KUBE_VERSION} and kwok into $out (about 13 minutes cold on 2 cores; cached afterwards)" >&2
tmp="$out.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp/bin" "$tmp/kwok-stages"
trap 'rm -rf "$tmp"' EXIT

(
  cd "$mod"
  # One go build for all five keeps a single link cache; etcd's main package is named "server".
  # kwok is a tool of the wrapper too (hack/kube/go.mod), so it compiles against the
  # Kubernetes packages the other four have just compiled: built as its own module
  # (go install sigs.k8s.io/kwok/cmd/kwok@v0.8.0) it compiled client-go and the rest
  # again at its own versions, about 2.5 min of a cold build; in the wrapper it takes
  # about 23 s. Its version is the one hack/kube/go.mod requires.
  # The build uses make test's settings (-trimpath, cgo off: the Makefile's GOFLAGS and
  # CGO_ENABLED), whatever the caller's environment: k8s.io/api, apimachinery and
  # client-go are at the same versions in both modules, so the test build reuses these
  # compiled packages instead of compiling them again (a cold make test measured 19.6
  # min before, 17.5 min after).
  CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$tmp/bin/" \
    k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler \
    go.etcd.io/etcd/server/v3 \
    sigs.k8s.io/kwok/cmd/kwok
  # The stage files kwok needs ship in its module.
  GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' sigs.k8s.io/kwok > "$tmp/kwok-dir"
)
mv "$tmp/bin/server" "$tmp/bin/etcd"

kwokdir=$(cat "$tmp/kwok-dir")
rm -f "$tmp/kwok-dir"
# The stages kwok needs to make nodes Ready and pods Running, without chaos stages.
for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml \
         pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
  src="$kwokdir/kustomize/stage/$f"
  [ -f "$src" ] || { echo "kube-binaries: kwok stage $f not found in $kwokdir" >&2; exit 1; }
  cp "$src" "$tmp/kwok-stages/$(basename "$f")"
done
chmod -R u+w "$tmp"
echo "$KUBE_VERSION" > "$tmp/VERSION"
touch "$tmp/.complete"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "$out"
