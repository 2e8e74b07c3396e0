/**
 * The provider tests again under the private Node 22 (.tmp/conformance/node22) with the current,
 * Node-22-only majors ai 7 and openai 7 (installed by test/providers/setup.sh into
 * .tmp/providers-node22). Run: `npm run test:providers22`.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "../../vitest.config.js";

const pkg = (p: string) => fileURLToPath(new URL(`../../.tmp/providers-node22/node_modules/${p}`, import.meta.url));

const alias = [
  { find: /^ai$/, replacement: pkg("ai/dist/index.js") },
  { find: /^ai\/test$/, replacement: pkg("ai/dist/test/index.js") },
  { find: /^openai$/, replacement: pkg("openai/index.mjs") },
  { find: /^openai\/version$/, replacement: pkg("openai/version.mjs") },
];

// Built by hand rather than with mergeConfig, which would append to the base config's test include list.
export default defineConfig({
  ...base,
  resolve: { ...base.resolve, alias: [...alias, ...((base.resolve?.alias ?? []) as { find: RegExp; replacement: string }[])] },
  test: {
    ...base.test,
    include: ["test/providers/ai-sdk.test.ts", "test/providers/openai-anthropic.test.ts", "test/providers/versions.test.ts"],
  },
});
