# Norn — build, test, run. `make test` is what CI runs.
GO      ?= go
BIN     := bin/norn
DEMO    := demo/vault
RUNDIR  ?= $(shell mktemp -d -t norn-demo-XXXXXX 2>/dev/null || echo /tmp/norn-demo)
FUZZTIME ?= 30s
NORN_ADDR ?= 127.0.0.1:7777

.PHONY: build test vet lint race bench bench-scale fuzz run clean web

# The commit goes in by -ldflags too: the toolchain's own VCS stamp is off under
# -buildvcs=false and in some git worktrees.
COMMIT  := $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

build:
	$(GO) build -ldflags "-X main.commitStamp=$(COMMIT)" -o $(BIN) ./cmd/norn

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

# Every test, with the race detector. Fuzz targets run only their seed corpus here.
# Then, without it, the tests -race skips as too slow or distorted by it: the
# search-quality targets, the serving RSS, the rerank study and the writes on copies
# of the corpora (they skip if ../shared is absent).
test: vet
	$(GO) test -race -count=1 -timeout 20m ./...
	$(GO) test -count=1 -timeout 10m -run '^(TestQuality_IR|TestQuality_KnownItem|TestServe_RSS)$$' ./graph
	$(GO) test -count=1 -timeout 10m -run '^TestCLI_Corpus_' ./cmd/norn
	$(GO) test -count=1 -timeout 10m -run '^TestRerankStudy$$' ./bench

# staticcheck, pinned (not part of `make test`: about 5 minutes on a cold cache).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: vet
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

# The scale suite (docs/performance.md, "Scale"): vaults of SIZES notes made by
# ../shared/bench/scale_vault.py and cached in $TMPDIR/norn-scale, each measure
# beside git and FTS5 in the same run, one Markdown table on stdout. The 100,000-note
# size takes about half an hour the first time (generating and indexing the vault).
SIZES ?= 10000,100000
bench-scale: build
	$(BIN) bench scale --sizes $(SIZES)

# Fuzz each target for FUZZTIME (go test -fuzz takes one target at a time). A
# "context deadline exceeded" with no failing input written is a race in Go's
# fuzzing coordinator at the FUZZTIME boundary (golang/go#48820 and kin), not a
# finding: it is reported and the campaign goes on. Minimizing a new input is
# capped at 10 s (default 60 s, during which no fuzzing happens).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; \
	    out=$$($(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s $$pkg 2>&1); rc=$$?; \
	    echo "$$out" | tail -n 8; \
	    if [ $$rc -ne 0 ]; then \
	      if echo "$$out" | grep -q 'context deadline exceeded' && ! echo "$$out" | grep -q 'Failing input written'; then \
	        echo "   (Go fuzz coordinator deadline race, no finding)"; \
	      else exit 1; fi; \
	    fi; \
	  done; \
	done

# The web explorer's page: web/ (TypeScript, cytoscape) built by esbuild into
# server/web/dist, which is committed and embedded, so `go build` needs no Node.
# server/web's TestDist_Fresh fails when dist was not rebuilt after a change.
web:
	cd web && npm ci --no-audit --no-fund && npm run build

# Norn on a fresh copy of the demo vault: a short tour, then `norn serve --http`.
run: build
	@NORN_ADDR=$(NORN_ADDR) ./scripts/run-demo.sh $(BIN) $(DEMO) $(RUNDIR)

clean:
	rm -rf bin
