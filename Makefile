# Lexora developer entry points. `make` alone lists the targets.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO ?= go
BIN := $(CURDIR)/bin
# The binaries `make build` produces, each named after its directory. Production (deployed):
# bin/server, bin/migrate, bin/seed, bin/drain, bin/prune, bin/fit, bin/outboxctl (the operators' tool).
CMDS := ./functions/cmd/server ./jobs/migrate ./jobs/seed ./jobs/drain ./jobs/prune ./jobs/fit ./jobs/outboxctl
# Development tools (never deployed; the dev/ folders): bin/demo, bin/devtoken, bin/devstack, bin/chaos.
DEV_CMDS := ./functions/cmd/dev/demo ./functions/cmd/dev/devtoken ./jobs/dev/devstack ./jobs/dev/chaos
# What the fault-injection harness (jobs/dev/chaos) runs.
CHAOS_CMDS := ./functions/cmd/server ./jobs/migrate ./jobs/seed ./jobs/drain ./jobs/dev/chaos

TEST_ENV := LEXORA_MAILPIT=$(BIN)/mailpit \
	LEXORA_TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'

WEB := $(CURDIR)/frontend
# npm ci writes node_modules/.package-lock.json: reinstall only when the lockfile changes.
WEB_DEPS := $(WEB)/node_modules/.package-lock.json

.PHONY: help build web web-deps run demo reset generate static check test web-check test-web chaos bench soak clean

help: ## List the targets.
	@echo "usage: make <target>"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{ printf "  %-8s %s\n", $$1, $$2 }'

build: ## Build every binary into bin/.
	$(GO) build -o $(BIN)/ $(CMDS) $(DEV_CMDS)

$(WEB_DEPS): $(WEB)/package-lock.json $(WEB)/package.json
	.ci/ensure-node
	cd $(WEB) && npm ci --no-audit --no-fund

web: $(WEB_DEPS) ## Build the web client into frontend/dist (make run serves it at /).
	cd $(WEB) && npm run --silent build

run: ## Run the whole stack locally (PostgreSQL, mailpit, server and web client, drain/prune/fit schedule); RUN_FLAGS='-port 8081' passes devstack flags.
	.ci/ensure-postgres
	.ci/ensure-mailpit
	$(MAKE) --no-print-directory build web
	exec $(BIN)/devstack -bin $(BIN) $(RUN_FLAGS)

demo: build ## Play the demo against `make run` (start that in another terminal).
	$(BIN)/demo

reset: ## Drop the local lexora database and mailbox; the next `make run` recreates and seeds them.
	.ci/ensure-postgres
	psql -h 127.0.0.1 -U postgres -d postgres -Xqc 'DROP DATABASE IF EXISTS lexora WITH (FORCE)'
	rm -f .run/mailpit.db*

generate: ## Regenerate package store (pkg/store/*.sql.go) with sqlc (sqlc.yaml), and package api (functions/api/api.gen.go) from functions/openapi.yaml with oapi-codegen.
	.ci/ensure-sqlc
	$(BIN)/sqlc generate
	$(GO) generate ./functions/api

static: ## Static checks: gofmt, generated code fresh (sqlc, oapi-codegen), go vet and golangci-lint on both modules.
	.ci/ensure-sqlc
	@# The store's generated code must match sqlc.yaml, pkg/store/queries and schema/.
	$(BIN)/sqlc diff || { echo "generated store code is stale: run make generate and commit"; exit 1; }
	@# The HTTP API's Go types (functions/api) must match functions/openapi.yaml.
	.ci/check-generated
	@unformatted=$$(git ls-files -z '*.go' | xargs -0 -r gofmt -l); \
	if [ -n "$$unformatted" ]; then echo "gofmt -l lists files that need formatting (run gofmt -w):"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	@# The River comparison is its own module: vet it so that make bench cannot rot unseen.
	cd pkg/outbox/internal/riverbench && $(GO) vet ./...
	@# The linters of .golangci.yaml (staticcheck, errorlint, testifylint, depguard: no test kit in production code...).
	.ci/ensure-golangci-lint
	$(BIN)/golangci-lint run ./...
	@# The River comparison module too, with the same configuration.
	cd pkg/outbox/internal/riverbench && $(BIN)/golangci-lint run --config $(CURDIR)/.golangci.yaml ./...

check: ## The quick gate while working (about 2 minutes warm): static checks, Go tests without -race, the client's types, lint and component tests.
	.ci/ensure-postgres
	.ci/ensure-mailpit
	.ci/ensure-pgbouncer
	$(MAKE) --no-print-directory static
	$(GO) test -count=1 ./...
	$(MAKE) --no-print-directory web-check

test: ## The full gate before stopping: static checks, all tests with -race, fuzzers, the short chaos profile, terraform checks, then the web client's (test-web).
	.ci/ensure-postgres
	.ci/ensure-mailpit
	.ci/ensure-pgbouncer
	@# Cold, the Terraform provider takes minutes of compiling: start it now, beside the
	@# tests (which wait on the database much of the time); .ci/terraform-check waits for it.
	@mkdir -p $(BIN); if command -v terraform >/dev/null; then \
		echo "terraform provider: building in the background if needed (log: bin/terraform-provider.log)"; \
		nohup .ci/ensure-terraform-provider >$(BIN)/terraform-provider.log 2>&1 </dev/null & fi
	@# Downloads, mostly waiting on the network, beside the CPU-bound builds: the Go modules,
	@# and the web client's packages and chromium (test-web waits for them below).
	@nohup $(GO) mod download >$(BIN)/go-mod-download.log 2>&1 </dev/null &
	@nohup flock $(BIN)/web-deps.lock $(MAKE) --no-print-directory web-deps >$(BIN)/web-deps.log 2>&1 </dev/null &
	$(MAKE) --no-print-directory static
	$(GO) test -race -count=1 ./...
	@# The previous release's code on this tree's migrations (expand, then contract):
	@# .ci/previous-release names it; the README's "Rolling back" says why.
	@# All of them, its seed's TestEndToEnd too.
	LEXORA_MAILPIT=$(BIN)/mailpit .ci/compat-previous $$(cat .ci/previous-release) \
		./functions/ ./pkg/study/ ./pkg/classroom/
	@# The request decoders' and the deck importer's fuzzers, for a bounded time (`go test` above runs their seeds).
	@# A count of runs rather than a duration, and no minimisation: a duration
	@# can end before the (growing) cached corpus is replayed, which fails the run.
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeJSON$$' -fuzztime 50000x -fuzzminimizetime 0 ./pkg/platform/httpx
	@for fuzzer in FuzzSubmitReview FuzzCreateAssignment FuzzEnrollLearner; do \
		$(GO) test -run '^$$' -fuzz "^$$fuzzer$$" -fuzztime 1000x -fuzzminimizetime 0 ./functions || exit 1; \
	done
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 50000x -fuzzminimizetime 0 ./pkg/deckimport
	$(GO) test -run '^$$' -fuzz '^FuzzExportImportsBack$$' -fuzztime 10000x -fuzzminimizetime 0 ./pkg/decks
	@# The whole product under fire for about 3 minutes (docs/chaos.md).
	$(GO) build -o $(BIN)/ $(CHAOS_CMDS)
	$(BIN)/chaos -profile short -bin $(BIN)
	@# The deployment's offline proof: terraform fmt, validate (real Google provider
	@# schema, built once per machine) and terraform test (mocked provider).
	.ci/terraform-check
	@# The background web-deps has finished (or failed: test-web then installs, and says why).
	@flock $(BIN)/web-deps.lock true
	$(MAKE) --no-print-directory test-web

web-deps: $(WEB_DEPS) ## Install the web client's packages (npm ci, when the lockfile changed) and Debian's chromium for its e2e.
	.ci/ensure-chromium

web-check: $(WEB_DEPS) ## The web client's quick checks: API document lint and client freshness, types, ESLint, component tests.
	cd $(WEB) && npm run --silent check:api
	cd $(WEB) && npm run --silent typecheck
	cd $(WEB) && npm run --silent lint
	cd $(WEB) && npm test

test-web: $(WEB_DEPS) ## The web client: its quick checks (web-check), then end-to-end in chromium.
	.ci/ensure-postgres
	.ci/ensure-mailpit
	.ci/ensure-chromium
	$(MAKE) --no-print-directory web-check
	$(MAKE) --no-print-directory build web
	cd $(WEB) && npm run --silent e2e

chaos: ## The fault-injection harness's long profile (30 minutes); its report goes to .run/chaos-report.md (build output; docs/chaos.md keeps a summary).
	.ci/ensure-mailpit
	$(GO) build -o $(BIN)/ $(CHAOS_CMDS)
	$(BIN)/chaos -profile long -bin $(BIN) -report .run/chaos-report.md

bench: ## Benchmarks (one iteration each): the outbox, the write path, River; again on a production-like cluster; charts.
	.ci/ensure-postgres
	.ci/ensure-mailpit
	$(GO) build -o $(BIN)/ $(CHAOS_CMDS)
	@mkdir -p .run
	@# -p 1: one package at a time, so that no benchmark's transactions hold another's vacuum horizon.
	@# The machine is shared: the load average before and after each part goes into its output (and the charts).
	echo "load average: $$(cat /proc/loadavg)" > .run/bench.txt
	$(TEST_ENV) $(GO) test -p 1 -run '^$$' -bench . -benchtime 1x -timeout 30m ./pkg/outbox/... ./functions | tee -a .run/bench.txt
	echo "load average: $$(cat /proc/loadavg)" >> .run/bench.txt
	cd pkg/outbox/internal/riverbench && $(TEST_ENV) $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./... | tee -a ../../../../.run/bench.txt
	cd pkg/learning/optimizer/oracle && $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m . | tee -a ../../../../.run/bench.txt
	@# The workload of a class deck (docs/benchmarks.md): the simulation alone and the read function, 35 learners.
	$(TEST_ENV) $(GO) test -run '^$$' -bench 'SimulateWorkload|GetDeckWorkload' -benchtime 50x -benchmem -timeout 10m ./pkg/learning ./functions | tee -a .run/bench.txt
	echo "load average: $$(cat /proc/loadavg)" | tee -a .run/bench.txt > .run/bench-prodlike.txt
	@# The drain, enqueue, prune, claim, write-path and import benchmarks again on a private cluster with
	@# autovacuum and fsync on (docs/benchmarks.md); its WAL figures are the ones to quote.
	$(TEST_ENV) $(BIN)/chaos cluster -bin $(BIN) -- $(GO) test -p 1 -run '^$$' \
		-bench 'DrainNoop|DrainTasks|Enqueue|RowSizes|ClaimEmptied|Prune|WritePath|ImportWhileReviewing' \
		-benchtime 1x -timeout 30m ./pkg/outbox ./functions | tee -a .run/bench-prodlike.txt
	echo "load average: $$(cat /proc/loadavg)" >> .run/bench-prodlike.txt
	@# Each chart from the server docs/benchmarks.md quotes it for, captioned with that server and the load.
	$(BIN)/chaos charts -shared .run/bench.txt -private .run/bench-prodlike.txt -out docs/bench

soak: ## The outbox soak: 30 minutes at 200 events/s on a production-like cluster; writes docs/bench/soak.{csv,json,png} (the run, its commit and command).
	$(GO) build -o $(BIN)/ $(CHAOS_CMDS)
	@# Normal priority, as make chaos: at nice 19 on a loaded machine the harness starved its own processes (docs/chaos.md, History).
	$(BIN)/chaos soak -bin $(BIN) -out docs/bench

clean: ## Remove build output and local state (bin/, .run/, frontend/dist).
	rm -rf bin .run frontend/dist
