#!/usr/bin/env bash
# Runs every fuzz target of recover for a fixed time, one at a time (fuzzing uses
# every core), and prints one line of figures per target. Usage:
#   hack/fuzz.sh 300x          # the budget make test gives (make fuzz-smoke): a count of
#                              # inputs, not a time, so a loaded CI machine cannot cut the
#                              # seed corpus's baseline short
#   hack/fuzz.sh 5m            # a longer run (make fuzz); figures go to docs/reliability.md
# New inputs that widen coverage stay in the Go fuzz cache; a crasher is written to
# the package's testdata/fuzz/<Target>/ and fails the run.
#
# Each package's instrumented test binary is built once, kept in bin/fuzz, and run for
# each of its targets as go test -fuzz would run it: in the package's directory, with
# the Go fuzz cache of the package (-test.fuzzcachedir). go test -fuzz takes one target
# per invocation and linked the package's instrumented binary again for each.
#
# The instrumentation is go test -fuzz's own (the compiler's -d=libfuzzer coverage
# counters). go test -fuzz gives it to every package the binary holds: client-go,
# openshift/api, the standard library's archive and compression readers, all compiled
# a second time, instrumented (292 s of a cold make test). FUZZ_INSTRUMENT=module
# gives it to recover's own packages only, so the dependencies are the test build's
# compiled packages: make fuzz-smoke does that, since 300 inputs per target do not
# reach far into the dependencies anyway. make fuzz (FUZZ_INSTRUMENT=all, the
# default) keeps go test -fuzz's guidance through the parsers recover calls.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
budget="${1:-5s}"
instrument="${FUZZ_INSTRUMENT:-all}"
go="${GO:-go}"
failed=0
work="$(mktemp -d)"
log="$work/log"
trap 'rm -rf "$work"' EXIT
fuzzcache="$("$go" env GOCACHE)/fuzz"

# Every fuzz target, found rather than listed: the packages whose test files
# declare one, then each package's targets as its test binary lists them. (A
# list kept by hand named apply's FuzzLoadPlan long after it moved to plan as
# FuzzLoad; go test -fuzz of a name that matches nothing passes, so the smoke ran
# 13 targets while it said 14.)
mapfile -t pkgs < <(grep -lE '^func Fuzz[A-Za-z0-9_]*\([a-z]+ \*testing\.F\)' $(git ls-files '*_test.go' 2>/dev/null || find . -name '*_test.go' -not -path './hack/kube/*') |
	xargs -n1 dirname | sed 's|^\./||; s|^|./|' | sort -u)
# The binaries stay in bin/fuzz: go test -c -o does not link again a binary whose
# build ID says it is up to date, so a second run links only what changed.
bins="$PWD/bin/fuzz"
mkdir -p "$bins"
declare -A bin importpath dir
case "$instrument" in
all) instrument_flags=(-fuzz .) ;;
module) instrument_flags=("-gcflags=$("$go" list -m)/...=-d=libfuzzer") ;;
*) echo "fuzz: FUZZ_INSTRUMENT is all or module, not $instrument" >&2; exit 2 ;;
esac
# make test gives the link flags of its test binaries (TEST_LDFLAGS: -w).
link_flags=()
if [ -n "${TEST_LDFLAGS:-}" ]; then
	link_flags=("-ldflags=$TEST_LDFLAGS")
fi
build_secs=0
for pkg in "${pkgs[@]}"; do
	read -r importpath[$pkg] dir[$pkg] < <("$go" list -f '{{.ImportPath}} {{.Dir}}' "$pkg")
	start=$SECONDS
	out="$bins/$(tr -c 'a-zA-Z0-9\n' _ <<<"${pkg#./}").test"
	# -vet=off: make test's vet has checked every package already.
	if "$go" test -c -vet=off "${instrument_flags[@]}" "${link_flags[@]}" -o "$out" "$pkg" >"$log" 2>&1; then
		bin[$pkg]="$out"
	else
		echo "fuzz: building the instrumented test binary of $pkg failed:"
		cat "$log"
		failed=1
	fi
	build_secs=$((build_secs + SECONDS - start))
done
targets=()
for pkg in "${pkgs[@]}"; do
	[ -n "${bin[$pkg]:-}" ] || continue
	if ! (cd "${dir[$pkg]}" && "${bin[$pkg]}" -test.short -test.list '^Fuzz') >"$log" 2>&1; then
		echo "fuzz: listing the fuzz targets of $pkg failed:"
		cat "$log"
		failed=1
		continue
	fi
	while read -r name; do
		targets+=("$pkg:$name")
	done < <(grep -E '^Fuzz' "$log")
done
if [ "${#targets[@]}" -eq 0 ]; then
	echo "fuzz: no fuzz target found"
	exit 1
fi

fuzz_secs=0
printf '%-28s %-18s %8s %12s %10s %6s %s\n' package target budget execs "new-corpus" secs result
for t in "${targets[@]}"; do
	pkg="${t%%:*}" name="${t##*:}"
	result=FAIL
	start=$SECONDS
	for attempt in 1 2; do
		# -test.short: packages whose TestMain starts a control plane skip it (fuzz
		# workers run TestMain too).
		if (cd "${dir[$pkg]}" && "${bin[$pkg]}" -test.paniconexit0 -test.short -test.run '^$' -test.fuzz "^${name}\$" \
			-test.fuzztime "$budget" -test.fuzzminimizetime 3s -test.fuzzcachedir "$fuzzcache/${importpath[$pkg]}") >"$log" 2>&1; then
			result=ok
			# A target that fuzzed nothing is no pass.
			grep -q 'no fuzz tests to fuzz' "$log" && result=FAIL
			break
		fi
		# Go's fuzzer reports "context deadline exceeded" when a time budget ends
		# before the seed corpus's coverage baseline does (a loaded machine); that is
		# not a finding, so it is tried once more. A real crasher says "Failing input".
		if grep -q 'Failing input' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
			break
		fi
	done
	secs=$((SECONDS - start))
	fuzz_secs=$((fuzz_secs + secs))
	[ "$result" = ok ] || failed=1
	last="$(grep -E '^fuzz: elapsed: .*execs' "$log" | tail -1 || true)"
	execs="$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")"
	newc="$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")"
	printf '%-28s %-18s %8s %12s %10s %6s %s\n' "$pkg" "$name" "$budget" "${execs:-?}" "${newc:-?}" "$secs" "$result"
	if [ "$result" = FAIL ]; then
		grep -vE '^fuzz: elapsed' "$log" | tail -30
	fi
done
echo "fuzz: ${#pkgs[@]} instrumented test binaries ($instrument) built in ${build_secs} s; ${#targets[@]} targets fuzzed in ${fuzz_secs} s"
exit "$failed"
