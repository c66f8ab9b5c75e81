# recover's build and test entry points. `make test` is what CI runs (.ci/run).
GO        ?= go
# Every build make test makes uses the release binary's settings (-trimpath, cgo off;
# docs/release.md): the test binaries, vet, the fuzz binaries, the release test, the
# image and hack/kube-binaries.sh then share one compile of each dependency. With go's
# defaults a cold make test compiled client-go and the rest of the tree twice (once
# for the tests, once for the release binary). A GOFLAGS given to make or in the
# environment is kept, with -trimpath added; CGO_ENABLED=1 (for -race) may be given.
export GOFLAGS     := -trimpath $(filter-out -trimpath,$(GOFLAGS))
export CGO_ENABLED ?= 0
# Integration tests start real control planes; a generous timeout covers a slow disk.
TEST_TIMEOUT ?= 30m
# Packages tested at once: go's default (-p, one per core; 2 on the 2-core
# machine CI runs on) unless TEST_PARALLEL is given. The integration packages
# run their own tests side by side (apply's lanes, the simulator's clusters)
# and keep both cores busy: with 4 packages at once, the go test phase was
# CPU-bound from start to end, and the contention cost CPU of its own (polls
# and gates that run longer, API servers that start slower). Measured on this
# machine, go test of every package (test binaries cached): -p 4 took 1,110 s
# and 2,154 CPU-s; -p 2, 912 s and 1,542 CPU-s.
TEST_PARALLEL ?=
# make test links its test binaries (about 60 of them, and the fuzz binaries)
# without DWARF: -w cuts a link's CPU by a fifth to a quarter (apply's test
# binary: 13.2 to 9.7 CPU-s). A panic's stack trace reads the pclntab, which -w
# keeps; a debugger needs DWARF: run go test yourself for that.
TEST_LDFLAGS ?= -w

.PHONY: all build test test-short kube-binaries vet fmt-check bench example help container-test

all: build

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

build: ## build bin/recover
	$(GO) build -o bin/recover ./cmd/recover

kube-binaries: ## build (once, cached) etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok
	@hack/kube-binaries.sh >/dev/null

vet: ## go vet
	$(GO) vet ./...

fmt-check: ## fail when gofmt would change a file
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './hack/kube/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# The container test runs on its own after the rest (hack/container-test.sh): afresh
# each time, with one line for the summary; its image build then finds the release
# test's compiled packages in Go's build cache.
test: kube-binaries fmt-check vet ## the whole suite: unit, integration (real kube-apiserver), end-to-end, the container test
	RECOVER_KUBE_BIN=$$(hack/kube-binaries.sh) $(GO) test -ldflags='$(TEST_LDFLAGS)' $(if $(TEST_PARALLEL),-p $(TEST_PARALLEL)) -timeout $(TEST_TIMEOUT) $$($(GO) list ./... | grep -v '/hack/containertest$$')
	@RECOVER_KUBE_BIN=$$(hack/kube-binaries.sh) GO=$(GO) TEST_TIMEOUT=$(TEST_TIMEOUT) hack/container-test.sh
	@if command -v tmux >/dev/null 2>&1; then hack/tui-smoke.sh; else echo "tui smoke test skipped: tmux not found"; fi

container-test: kube-binaries ## the image (make image, host platform) run by podman with runc through an in-cluster apply, a kill and a resume; skips without podman and runc
	@RECOVER_KUBE_BIN=$$(hack/kube-binaries.sh) GO=$(GO) TEST_TIMEOUT=$(TEST_TIMEOUT) hack/container-test.sh

test-short: ## unit tests only, no control plane
	$(GO) test -short ./...

bench: kube-binaries ## benchmarks (figures for the notes)
	RECOVER_KUBE_BIN=$$(hack/kube-binaries.sh) $(GO) test -run '^$$' -bench . -benchmem ./...

.PHONY: release release-check image
release: ## reproducible release archives (linux, darwin; amd64, arm64), SHA256SUMS and the krew manifest plugins/recover.yaml into dist/
	$(GO) run ./hack/release -out dist
release-check: ## build the release archives of every platform and the image twice into temporary directories and fail unless they are byte-identical
	$(GO) run ./hack/release -verify
IMAGE_PLATFORMS ?= linux/amd64,linux/arm64
IMAGE_OUT ?= dist/image
image: ## a reproducible OCI image of the static binary (no base image, non-root) as an OCI layout in dist/image: make image [IMAGE_PLATFORMS=linux/amd64] [IMAGE_OUT=dir]
	$(GO) run ./hack/release -image -platforms $(IMAGE_PLATFORMS) -out $(IMAGE_OUT)

.PHONY: lab
SCENARIO ?= examples/reconciled-4.3-to-4.4
LAB_FLAGS ?=
lab: kube-binaries ## a simulated wedged cluster to try recover on: make lab [SCENARIO=examples/false-success-revision] [LAB_FLAGS=--fast]
	RECOVER_KUBE_BIN=$$(hack/kube-binaries.sh) $(GO) run ./internal/lab/sim/cmd/recover-lab --scenario $(SCENARIO) $(LAB_FLAGS)

# Fuzzing (docs/reliability.md): every fuzz target runs for a short fixed budget as
# part of make test, and for longer with make fuzz; one target at a time.
FUZZ_SMOKE_TIME ?= 300x
FUZZ_TIME ?= 5m
.PHONY: fuzz-smoke fuzz
test: fuzz-smoke
fuzz-smoke: ## every fuzz target for FUZZ_SMOKE_TIME, recover's packages instrumented (part of make test)
	@GO=$(GO) FUZZ_INSTRUMENT=module TEST_LDFLAGS='$(TEST_LDFLAGS)' hack/fuzz.sh $(FUZZ_SMOKE_TIME)
fuzz: ## every fuzz target for FUZZ_TIME (default 5m), one at a time; crashers land in testdata/fuzz/
	@GO=$(GO) hack/fuzz.sh $(FUZZ_TIME)
