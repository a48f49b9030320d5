# Marvin: build, test, lint, bench, install.
.PHONY: build release test lint bench hot-functions install uninstall vendor clean

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

# The functions common runs execute, for the linker to place together (link/hot-functions.txt;
# needs valgrind). Run it after a new toolchain or a change that moves much code.
hot-functions:
	scripts/hot_functions.py

# Installs the binary, the manual page and the completions under $(DESTDIR)$(PREFIX); BIN names
# an already built binary to install instead of building the release one.
PREFIX ?= /usr/local
BIN ?= target/release/marvin
INSTALLED = bin/marvin share/man/man1/marvin.1 share/bash-completion/completions/marvin \
	share/zsh/site-functions/_marvin share/fish/vendor_completions.d/marvin.fish

install:
	@if [ "$(BIN)" = target/release/marvin ]; then cargo build --release --locked; fi
	install -Dm755 "$(BIN)" "$(DESTDIR)$(PREFIX)/bin/marvin"
	install -Dm644 doc/marvin.1 "$(DESTDIR)$(PREFIX)/share/man/man1/marvin.1"
	"$(BIN)" --completions bash | install -Dm644 /dev/stdin "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/marvin"
	"$(BIN)" --completions zsh | install -Dm644 /dev/stdin "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_marvin"
	"$(BIN)" --completions fish | install -Dm644 /dev/stdin "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/marvin.fish"

# Removes exactly what install put there.
uninstall:
	cd "$(DESTDIR)$(PREFIX)" && rm -f $(INSTALLED)

# Copy every dependency into vendor/ for an offline build (see scripts/vendor.sh).
vendor:
	scripts/vendor.sh

clean:
	cargo clean
