#!/usr/bin/env bash
# Runs every fuzz target of recover for a fixed time, one at a time (fuzzing uses
# every core), and prints one line of figures per target. Usage:
#   hack/fuzz.sh 300x          # the budget make test gives (make fuzz-smoke): a count of
#                              # inputs, not a time, so a loaded CI machine cannot cut the
#                              # seed corpus's baseline short
#   hack/fuzz.sh 5m            # a longer run (make fuzz); figures go to docs/reliability.md
# New inputs that widen coverage stay in the Go fuzz cache; a crasher is written to
# the package's testdata/fuzz/<Target>/ and fails the run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
budget="${1:-5s}"
go="${GO:-go}"
targets=(
	./plan/graph:FuzzParse
	./plan/graph:FuzzGraphData
	./plan/payload:FuzzDecodeFile
	./plan/payload:FuzzLoadDir
	./plan/payload:FuzzReadObject
	./plan:FuzzManifestDigest
	./plan/payload/signature:FuzzVerify
	./plan/policy:FuzzParse
	./inspect:FuzzReadSnapshot
	./inspect/internal/decode:FuzzDocuments
	./inspect/mustgather:FuzzArchive
	./inspect/insights:FuzzArchive
	./apply:FuzzLoadPlan
	./apply/journal:FuzzLoad
)
failed=0
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
printf '%-28s %-16s %8s %12s %10s %s\n' package target time execs "new-corpus" result
for t in "${targets[@]}"; do
	pkg="${t%%:*}" name="${t##*:}"
	# -short: packages whose TestMain starts a control plane skip it (fuzz workers run TestMain too).
	result=FAIL
	for attempt in 1 2; do
		if "$go" test -short -run '^$' -fuzz "^${name}\$" -fuzztime "$budget" -fuzzminimizetime 3s "$pkg" >"$log" 2>&1; then
			result=ok
			break
		fi
		# Go's fuzzer reports "context deadline exceeded" when a time budget ends
		# before the seed corpus's coverage baseline does (a loaded machine); that is
		# not a finding, so it is tried once more. A real crasher says "Failing input".
		if grep -q 'Failing input' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
			break
		fi
	done
	[ "$result" = ok ] || failed=1
	last="$(grep -E '^fuzz: elapsed: .*execs' "$log" | tail -1 || true)"
	execs="$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")"
	newc="$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")"
	printf '%-28s %-16s %8s %12s %10s %s\n' "$pkg" "$name" "$budget" "${execs:-?}" "${newc:-?}" "$result"
	if [ "$result" = FAIL ]; then
		grep -vE '^fuzz: elapsed' "$log" | tail -30
	fi
done
exit "$failed"
