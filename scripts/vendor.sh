#!/usr/bin/env bash
# Vendors every dependency into vendor/ so Marvin builds with no network:
#   scripts/vendor.sh            # once, with network
#   cargo build --release --offline --locked \
#     --config 'source.crates-io.replace-with="vendored-sources"' \
#     --config 'source.vendored-sources.directory="vendor"'
# With --check it also performs that offline build to prove the tree is complete.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo vendor --locked --quiet vendor >/dev/null
echo "vendored $(ls vendor | wc -l) crates into vendor/"
if [ "${1:-}" = "--check" ]; then
  CARGO_TARGET_DIR=target/vendored cargo build --release --offline --locked \
    --config 'source.crates-io.replace-with="vendored-sources"' \
    --config 'source.vendored-sources.directory="vendor"'
  echo "offline build from vendor/ succeeded"
fi
