#!/usr/bin/env bash
# Builds the API reference from the JSDoc with TypeDoc into .tmp/api-docs (typedoc.json: warnings
# are errors, so an undocumented export, a type the API uses but does not export, or a broken
# {@link} fails). TypeDoc needs the TypeScript 5/6 compiler API, which the native TypeScript 7 the
# repo builds with does not have, so TypeDoc and its TypeScript live in a private folder,
# .tmp/typedoc/, installed from the npm registry. Idempotent. Run after `npm run build` (the
# packages' cross-references resolve through their built .d.ts files).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/.tmp/typedoc"
WANT_TYPEDOC="0.28.20"
WANT_TS="6.0.3"
have() { grep -q "\"version\": \"$2\"" "$DIR/node_modules/$1/package.json" 2>/dev/null; }
if ! have typedoc "$WANT_TYPEDOC" || ! have typescript "$WANT_TS"; then
  mkdir -p "$DIR"
  [ -f "$DIR/package.json" ] || printf '{"name":"tw-typedoc","private":true}\n' >"$DIR/package.json"
  (cd "$DIR" && npm install --no-audit --no-fund --loglevel=error "typedoc@$WANT_TYPEDOC" "typescript@$WANT_TS" >/dev/null)
fi
cd "$ROOT"
node "$DIR/node_modules/typedoc/bin/typedoc" --logLevel Warn
echo "API reference written to .tmp/api-docs/index.html"
