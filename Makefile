# Veil: build, test and run. `make demo` and `make test` do all the set-up
# they need on a fresh Debian machine with Go.

GO       ?= go
GOROOT   := $(shell $(GO) env GOROOT)
WASMPATH := $(GOROOT)/lib/wasm:$(PATH)
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all help build dist demo test test-go test-wasm test-e2e test-types conformance wpt bench fuzz soak soak-redeem deps clean

all: build

## help: list the targets and what each does
help:
	@awk '/^## [a-z-]+:/ { sub(/^## /, ""); print; next } /^## / { sub(/^## /, "    "); print }' $(MAKEFILE_LIST)

## build: write dist/ (webmcp.js, worker.js, veil.wasm, wasm_exec.js, .br/.gz,
## THIRD_PARTY_NOTICES, SHA256SUMS)
build dist:
	$(GO) run ./js/cmd/veil-dist -out dist

## deps: install what the tests need and the machine lacks (Chromium, at least
## CHROMIUM_MIN, whose own WebMCP the e2e suite pins down; redis-server, redis-cli;
## nginx with its brotli_static module, which serves dist/ in e2e; firefox-esr,
## webkit2gtk-driver and xvfb, the other engines of the WPT-format suite)
CHROMIUM_MIN := 156
deps:
	@missing=""; \
	if [ -z "$$CHROME_PATH" ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then missing="$$missing chromium"; fi; \
	if [ -z "$$CHROME_PATH" ] && command -v chromium >/dev/null 2>&1 && \
	  [ "$$(chromium --version 2>/dev/null | sed -n 's/^Chromium \([0-9]*\).*/\1/p')" -lt $(CHROMIUM_MIN) ] 2>/dev/null; then missing="$$missing chromium"; fi; \
	if ! command -v redis-server >/dev/null 2>&1; then missing="$$missing redis-server"; fi; \
	if ! command -v redis-cli >/dev/null 2>&1; then missing="$$missing redis-tools"; fi; \
	if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then missing="$$missing nginx"; fi; \
	if [ ! -e /usr/lib/nginx/modules/ngx_http_brotli_static_module.so ]; then missing="$$missing libnginx-mod-http-brotli-static"; fi; \
	if [ -z "$$VEIL_FIREFOX_PATH" ] && ! command -v firefox-esr >/dev/null 2>&1 && ! command -v firefox >/dev/null 2>&1; then missing="$$missing firefox-esr"; fi; \
	if [ -z "$$VEIL_WEBKIT_DRIVER" ] && ! command -v WebKitWebDriver >/dev/null 2>&1; then missing="$$missing webkit2gtk-driver"; fi; \
	if [ -z "$$VEIL_XVFB_PATH" ] && ! command -v Xvfb >/dev/null 2>&1; then missing="$$missing xvfb"; fi; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

WASMTEST := PATH="$(WASMPATH)" GOOS=js GOARCH=wasm $(GO) test -count=1 ./wasm/...
TSC      := node_modules/.bin/tsc --strict -p js/types
TSCJS    := node_modules/.bin/tsc -p js/types/tsconfig.runtime.json
TSCJSX   := node_modules/.bin/tsc -p js/types/tsconfig.jsx.json

## test: everything: native Go tests, Redis and Chromium suites, a few files of the
## WPT-format suite in Chromium, Firefox and WebKit, wasm tests under Node, tsc
## over webmcp.d.ts and over the runtime's modules, the runtime's pure modules
## under node --test;
## ends with each skipped test with its reason, the ten slowest tests, the time
## the tests that run one at a time kept the parallel ones waiting, a line per
## suite and the total
# Every wait in the browser suites has its own bound (VEIL_TEST_TIMEOUT_SCALE
# scales them); the packages' -timeout is only a last resort against a hang
# that none of them catches, and must not end a slow but sound run: beside
# other work on 2 cores the browser suite has run for 18 minutes.
GOTESTTIMEOUT ?= 45m
# How many tests of a package run side by side, each browser test in a
# tab of its own: their waits overlap. Eight at once on a busy 2-core
# machine starved the pages until waits the runtime itself bounds (10 s
# for a module's load) ran out.
PARALLEL ?= 4
test: deps node_modules/.package-lock.json
	$(GO) vet ./... ./.ci/testsummary
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/...
	$(GO) run ./.ci/testsummary \
	  'native=$(GO) test -json -count=1 -timeout $(GOTESTTIMEOUT) -parallel $(PARALLEL) ./... ./.ci/testsummary' \
	  -as redeem/redisstore=redis -as e2e=browser -as e2e/wpt=wpt \
	  'wasm=$(WASMTEST) -json' \
	  'types=$(TSC)' \
	  'checkjs=$(TSCJS)' \
	  'jsx=$(TSCJSX)' \
	  'node=node --test js/*/test/*.test.js'

## test-go: the native Go tests but the browser suites, e2e and e2e/wpt (no browser
## needed; Redis's run)
test-go: deps
	$(GO) vet ./... ./.ci/testsummary
	$(GO) test -count=1 $$($(GO) list ./... | grep -Ev '/e2e(/wpt)?$$')

# The tests whose matrices VEIL_TEST_FULL=1 runs in full.
FULLTESTS := ^TestClobberedNamesNeitherStopNorSteerTheRuntime$$

## test-e2e: the headless-browser suite (e2e/) alone
test-e2e: deps node_modules/.package-lock.json
	$(GO) vet ./e2e
	$(GO) test -count=1 -timeout $(GOTESTTIMEOUT) -parallel $(PARALLEL) ./e2e

## conformance: the browser suite's generated matrices in full (VEIL_TEST_FULL=1):
## every combination, where make test runs each pair of values (docs/testing.md)
conformance: deps node_modules/.package-lock.json
	VEIL_TEST_FULL=1 $(GO) test -count=1 -timeout $(GOTESTTIMEOUT) -parallel $(PARALLEL) -run '$(FULLTESTS)' ./e2e

## test-wasm: the engine and glue under Node (GOOS=js GOARCH=wasm)
test-wasm:
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/...
	$(WASMTEST)

## wpt: the WPT-format suite under e2e/wpt in each mode (runtime, Veil injected;
## native, Chromium's own WebMCP; none, no WebMCP) in Chromium, Firefox and WebKit:
## a line per mode and engine, then runtime mode's failures by name; WPTFLAGS
## passes flags (go run ./js/cmd/veil-wpt -h); exits non-zero on a runtime failure
WPTFLAGS ?=
wpt: deps node_modules/.package-lock.json
	$(GO) run ./js/cmd/veil-wpt $(WPTFLAGS)

## test-types: tsc --strict over webmcp.d.ts and the programs in js/types/, then
## tsc over the runtime's modules, whose ops are typed by the generated contract,
## then <veil-secrets> in React's JSX
test-types: node_modules/.package-lock.json
	$(TSC)
	$(TSCJS)
	$(TSCJSX)

# npm ci installs what package.json pins: TypeScript, esbuild with the MCP
# client packages the e2e tests bundle, and Vite, which builds
# docs/install.md's recipes; npm itself comes from apt-get.
node_modules/.package-lock.json: package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "installing: npm"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq npm; }
	npm ci --no-audit --no-fund

## bench: Go benchmarks, the 1 MiB view against the engine before the session's
## scrub set (BENCH_BASE), then three runs of the browser benchmark against
## Chromium's own WebMCP, with each budget's range over the runs (docs/benchmarks.md)
BENCH_BASE ?= eeb5459
bench: deps node_modules/.package-lock.json
	$(GO) test -run='^$$' -bench=. -benchmem $$($(GO) list ./... | grep -v /e2e)
	$(GO) run ./js/cmd/benchbase -base $(BENCH_BASE) -bench 'BenchmarkOutput/1MiB-x-sensitive$$' -budget 1.15
	$(GO) test ./e2e -run='^$$' -bench=BenchmarkBrowser -benchtime=3x -timeout=30m
	$(GO) test ./e2e -run='^$$' -bench=BenchmarkMCPTab -benchtime=1x -count=3

## fuzz: run each engine fuzz target for FUZZTIME (not part of `make test`)
FUZZTIME ?= 10m
fuzz:
	for target in FuzzEchoes FuzzSession FuzzNoLeak FuzzParse FuzzMayFoldToReference FuzzLatin1MayFoldToReference FuzzEscapeInRun; do \
	  $(GO) test ./wasm/engine -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) || exit 1; \
	done
	$(GO) test ./wasm/engine/internal/schema -run '^$$' -fuzz '^FuzzFastPath$$' -fuzztime $(FUZZTIME)

## soak: drive the demo page through every agent path for SOAK (default 10m),
## with aborts, parallel calls and reveals; not part of `make test` (docs/soak.md)
SOAK ?= 10m
soak: deps node_modules/.package-lock.json
	$(GO) vet -tags soak ./e2e
	SOAK=$(SOAK) $(GO) test -tags soak ./e2e -run '^TestSoak$$' -count=1 -v -timeout 60m

## soak-redeem: issue and race redemptions at a steady rate against the memory
## store, redis-server and a Redis Cluster on loopback (docs/soak.md)
soak-redeem: deps
	$(GO) vet -tags soak ./redeem/...
	$(GO) test -tags soak ./redeem/redisstore -run '^TestSoakRedeem$$' -count=1 -v -timeout 30m

## demo: run the demo server on 127.0.0.1:8080
demo: build
	$(GO) run ./demo

## clean: remove dist/ and packed tarballs
clean:
	rm -rf dist veilmcp-veil-*.tgz
