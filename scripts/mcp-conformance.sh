#!/usr/bin/env bash
# Installs the official MCP conformance suite (@modelcontextprotocol/conformance, nobody here
# wrote it) from npm into DIR, once, and prints the directory of its `conformance` program.
# 0.1.13 is the newest that runs on Node.js 20: 0.1.14 and later (0.1.16 tried) import
# fs.globSync (Node 22). 0.1.13 has 19 auth/ scenarios; 0.1.16 adds offline-access-scope,
# offline-access-not-supported and cross-app-access-complete-flow, not played here.
#   scripts/mcp-conformance.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/mcp-conformance.sh DIR}
VERSION=0.1.13
command -v npm >/dev/null || { echo "mcp-conformance: npm is not installed (Node.js 20 or newer is needed)" >&2; exit 1; }
mkdir -p "$dir"
if command -v flock >/dev/null; then
  exec 9>"$dir/.install.lock"
  flock 9
fi
if ! grep -q "\"version\": \"$VERSION\"" "$dir/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$VERSION" >&2
fi
echo "$dir/node_modules/.bin"
