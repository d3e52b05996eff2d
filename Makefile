# Build, test and benchmark entry points. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: test test-unit test-spec test-diff check-nostd fmt-check bench demo workloads clean

test: fmt-check check-nostd
	$(CARGO) test --release --all-targets

fmt-check:
	$(CARGO) fmt --all -- --check

# The library must build without std for the wasm32 components.
check-nostd:
	rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true
	$(CARGO) build --lib --no-default-features --target wasm32-unknown-unknown

clean:
	$(CARGO) clean
