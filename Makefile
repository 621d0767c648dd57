# meshcook: build, test, bench, fuzz, lint. `make test` is what CI runs.
GO ?= go
FUZZTIME ?= 30s

.PHONY: all build test vet lint staticcheck bench bench-clod bench-compare bench-png bench-farm bench-e2e bench-textures fuzz samples cook-samples clean

all: build test

# The farm recipe (docs/build-integration.md "Identical binaries"): two
# machines with the same Go build byte-identical binaries, so they share
# cache entries.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=false -o bin/meshcook ./cmd/meshcook

test: vet
	$(GO) test -count=1 -timeout 25m ./...

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

# staticcheck, pinned, installed by the first `make lint` into
# bin/tools/<version>/ (a new version installs beside the old). Its checks
# are staticcheck.conf's. CI runs `make staticcheck` after `make test`.
STATICCHECK_VERSION := v0.7.0
STATICCHECK := $(CURDIR)/bin/tools/$(STATICCHECK_VERSION)/staticcheck

lint: vet staticcheck

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(dir $(STATICCHECK)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# inspect --png's target: a 1.4M-triangle mesh (the corpus bunny
# subdivided) drawn as three 1024² panels on one core; needs ../shared.
bench-png:
	$(GO) test -run '^$$' -bench RenderLarge -benchtime 9x -cpu 1 ./internal/preview

# Side-by-side with meshoptimizer (npm, WASM); needs node and ../shared/corpus.
bench-compare:
	npm ci --prefix bench/compare --no-audit --no-fund
	$(GO) run ./bench/compare $(COMPARE_FLAGS)

# Cluster LOD vs meshoptimizer's demo/clusterlod.h, built natively into
# /tmp from a meshoptimizer checkout named by MESHOPT_DIR (kept outside
# this repository, never committed); see bench/compare/README.md.
bench-clod:
	@test -n "$(MESHOPT_DIR)" || (echo "bench-clod: set MESHOPT_DIR to a meshoptimizer checkout"; exit 2)
	npm ci --prefix bench/compare --no-audit --no-fund
	g++ -O2 -DNDEBUG -std=c++17 -I$(MESHOPT_DIR)/src -I$(MESHOPT_DIR)/demo -o /tmp/meshcook-clodanchor bench/compare/clodanchor/clodanchor.cpp $(MESHOPT_DIR)/src/*.cpp
	$(GO) run ./bench/compare -only clusterlod -clod-anchor /tmp/meshcook-clodanchor $(COMPARE_FLAGS)

# Remote cache on the corpus (whole processes, nginx WebDAV on loopback):
# cold cook vs a second machine served by the remote and vs local hits,
# with the default textures and with rgba8 (146 MB of outputs); each run
# logs its ratios (BENCHTIME=3x for three).
bench-farm:
	$(GO) test ./cmd/meshcook/cli -run '^$$' -bench FarmCorpus -benchtime $(or $(BENCHTIME),1x)

# Whole-process cook vs gltfpack (npm, WASM) side by side; see bench/e2e/README.md.
bench-e2e: build
	npm ci --prefix bench/e2e --no-audit --no-fund
	$(GO) run ./bench/e2e -meshcook bin/meshcook $(E2E_FLAGS)

# Every corpus texture at full size in the codec `--textures auto` picks,
# transcoded by three's Basis Universal transcoder: per-file PSNR, sizes
# against the source images, total encode time. BOTH=1 adds the other codec.
bench-textures:
	npm ci --prefix formats/ktx2/testdata/node --no-audit --no-fund
	MESHCOOK_BENCH_TEXTURES=1 MESHCOOK_BENCH_BOTH=$(BOTH) $(GO) test -count=1 -run '^TestBenchTextures$$' -v ./formats/ktx2 | grep -v '^=== '

# Each fuzz target runs for FUZZTIME (go test allows one -fuzz target per run).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

samples:
	$(GO) test ./internal/samplegen -run TestSamplesMatchGenerator -update

cook-samples:
	$(GO) run ./cmd/meshcook cook testdata/samples -o out

clean:
	rm -rf bin out
