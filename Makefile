# Norn — build, test, run. `make test` is what CI runs.
GO      ?= go
BIN     := bin/norn
DEMO    := demo/vault
RUNDIR  ?= $(shell mktemp -d -t norn-demo-XXXXXX 2>/dev/null || echo /tmp/norn-demo)
FUZZTIME ?= 30s
NORN_ADDR ?= 127.0.0.1:7777

.PHONY: build test vet lint race bench fuzz run clean

build:
	$(GO) build -o $(BIN) ./cmd/norn

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

# Every test, with the race detector. Fuzz targets run only their seed corpus here.
test: vet
	$(GO) test -race -count=1 -timeout 20m ./...

# staticcheck, pinned (not part of `make test`: about 5 minutes on a cold cache).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: vet
	$(GO) run $(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

# Fuzz each target for FUZZTIME (go test -fuzz takes one target at a time).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

# Norn on a fresh copy of the demo vault: a short tour, then `norn serve --http`.
run: build
	@NORN_ADDR=$(NORN_ADDR) ./scripts/run-demo.sh $(BIN) $(DEMO) $(RUNDIR)

clean:
	rm -rf bin
