#!/usr/bin/env bash
# Installs the MCP reference servers the tests run (nobody here wrote them) from npm into DIR,
# once: a second run with the same versions installs nothing. server-filesystem 2.0.1, which
# speaks the 2026-07-28 revision too, goes into DIR/modern (one package, two versions).
#   scripts/mcp-test-servers.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/mcp-test-servers.sh DIR}
EVERYTHING=2026.8.31
FILESYSTEM=2026.8.31
FILESYSTEM_MODERN=2.0.1
command -v npm >/dev/null || { echo "mcp-test-servers: npm is not installed (Node.js 18 or newer is needed)" >&2; exit 1; }
mkdir -p "$dir"
if command -v flock >/dev/null; then
  exec 9>"$dir/.install.lock"
  flock 9
fi
installed() {  # PREFIX PACKAGE VERSION
  grep -q "\"version\": \"$3\"" "$1/node_modules/@modelcontextprotocol/$2/package.json" 2>/dev/null
}
if ! installed "$dir" server-everything "$EVERYTHING" || ! installed "$dir" server-filesystem "$FILESYSTEM"; then
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-everything@$EVERYTHING" \
    "@modelcontextprotocol/server-filesystem@$FILESYSTEM" >&2
fi
if ! installed "$dir/modern" server-filesystem "$FILESYSTEM_MODERN"; then
  mkdir -p "$dir/modern"
  npm install --prefix "$dir/modern" --no-audit --no-fund --loglevel=error --engine-strict=false \
    "@modelcontextprotocol/server-filesystem@$FILESYSTEM_MODERN" >&2
fi
echo "$dir/node_modules/.bin"
