#!/usr/bin/env bash
# Installs the Node-22-only current majors of the AI SDK and the OpenAI SDK (ai 7, openai 7) into
# .tmp/providers-node22/, for the provider tests that run under the private Node 22 of the
# conformance setup. The root devDependencies keep the Node-20 majors (ai 6, openai 6) for the
# default run. Idempotent: an install already in place is left alone.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIR="$ROOT/.tmp/providers-node22"
WANT_AI="7.0.173"
WANT_OPENAI="7.59.0"
WANT_ZOD="4.6.7"
have() { grep -q "\"version\": \"$2\"" "$DIR/node_modules/$1/package.json" 2>/dev/null; }
if ! have ai "$WANT_AI" || ! have openai "$WANT_OPENAI" || ! have zod "$WANT_ZOD"; then
  mkdir -p "$DIR"
  [ -f "$DIR/package.json" ] || printf '{"name":"tw-providers-node22","private":true}\n' >"$DIR/package.json"
  (cd "$DIR" && npm install --no-audit --no-fund --loglevel=error "ai@$WANT_AI" "openai@$WANT_OPENAI" "zod@$WANT_ZOD" >/dev/null)
fi
echo "provider SDKs for Node 22 ready in $DIR"
