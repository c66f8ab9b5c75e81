#!/usr/bin/env bash
# container-test.sh runs the container test (hack/containertest: the image make
# image builds, in podman with runc, on the real kube-apiserver, through an
# in-cluster apply killed with SIGKILL and resumed by a second container) and
# prints one line for make test's summary:
#   container test: ok: ...                 it ran and passed
#   container test: SKIPPED, ...: <why>     no container runtime could be had
#   container test: FAIL ...                after the test's output
# It always runs afresh (-count=1): podman, runc and the image are outside what
# Go's test cache knows. Needs the control-plane binaries (RECOVER_KUBE_BIN).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
go="${GO:-go}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rc=0
"$go" test -count=1 -v -timeout "${TEST_TIMEOUT:-30m}" ./hack/containertest >"$log" 2>&1 || rc=$?
line="$(sed -n 's/.*\(container test: .*\)/\1/p' "$log" | tail -n 1)"
if [ "$rc" -ne 0 ]; then
	# The API server's klog lines are left out here; the whole log is kept.
	grep -vE '^I[0-9]{4} ' "$log" | tail -n 80
	kept="${TMPDIR:-/tmp}/recover-container-test.log"
	cp "$log" "$kept"
	echo "container test: FAIL (go test exit $rc; its output above, all of it in $kept)"
	exit "$rc"
fi
echo "${line:-container test: ok}"
