#!/usr/bin/env bash
# Installs the MCP reference servers the tests run (nobody here wrote them) from npm into DIR,
# once: a second run with the same versions installs nothing.
#   scripts/mcp-test-servers.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/mcp-test-servers.sh DIR}
EVERYTHING=2026.8.31
FILESYSTEM=2026.8.31
command -v npm >/dev/null || { echo "mcp-test-servers: npm is not installed (Node.js 18 or newer is needed)" >&2; exit 1; }
mkdir -p "$dir"
if command -v flock >/dev/null; then
  exec 9>"$dir/.install.lock"
  flock 9
fi
installed() {
  grep -q "\"version\": \"$2\"" "$dir/node_modules/@modelcontextprotocol/$1/package.json" 2>/dev/null
}
if ! installed server-everything "$EVERYTHING" || ! installed server-filesystem "$FILESYSTEM"; then
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-everything@$EVERYTHING" \
    "@modelcontextprotocol/server-filesystem@$FILESYSTEM" >&2
fi
echo "$dir/node_modules/.bin"
