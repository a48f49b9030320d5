# Marvin: build, test, lint, bench, install.
.PHONY: build release test lint bench install vendor clean

build:
	cargo build --locked

release:
	cargo build --release --locked

# Unit tests and integration tests that run the built binary against local replay servers.
test:
	cargo build --locked --all-targets
	cargo test --locked --lib --tests

lint:
	cargo fmt --all -- --check
	cargo clippy --locked --all-targets -- -D warnings

# Speed and size against a local server streaming 1,000 tokens (a benchmark, not a test).
bench:
	scripts/bench.sh

install:
	cargo install --locked --path .

# Copy every dependency into vendor/ for an offline build (see scripts/vendor.sh).
vendor:
	scripts/vendor.sh

clean:
	cargo clean
