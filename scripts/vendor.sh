#!/usr/bin/env bash
# Vendors every dependency into vendor/ so Marvin builds on a machine with no network.
#
# On a connected machine, in a checkout:
#   scripts/vendor.sh                  # fills vendor/
#   scripts/vendor.sh --check          # ...and proves it: an offline build from vendor/ alone
#   tar czf ../marvin-src.tar.gz --exclude=./target .
# On the air-gapped machine (a Rust toolchain of 1.87 or newer, nothing else):
#   mkdir marvin && tar xzf marvin-src.tar.gz -C marvin && cd marvin
#   cargo build --release --offline --frozen \
#     --config 'source.crates-io.replace-with="vendored-sources"' \
#     --config 'source.vendored-sources.directory="vendor"'
#
# --check builds with an empty CARGO_HOME (no registry cache to fall back on) and cargo's
# network off (--offline --frozen), then runs `marvin --version` from that build. CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo vendor --locked --quiet vendor >/dev/null
echo "vendored $(ls vendor | wc -l) crates into vendor/"
if [ "${1:-}" = "--check" ]; then
  empty_home=$(mktemp -d)
  trap 'rm -rf "$empty_home"' EXIT
  CARGO_HOME="$empty_home" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
    CARGO_TARGET_DIR=target/vendored cargo build --offline --frozen --quiet --bin marvin \
    --config 'source.crates-io.replace-with="vendored-sources"' \
    --config 'source.vendored-sources.directory="vendor"'
  echo "offline build from vendor/ succeeded: $(target/vendored/debug/marvin --version)"
fi
