import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Tests run against package sources, so a half-built tree never hides a change.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@toolwright\/runtime\/server$/, replacement: src("./packages/runtime/src/server.ts") },
      { find: /^@toolwright\/runtime\/stdio$/, replacement: src("./packages/runtime/src/stdio.ts") },
      { find: /^@toolwright\/runtime\/http$/, replacement: src("./packages/runtime/src/http.ts") },
      { find: /^@toolwright\/runtime\/caller$/, replacement: src("./packages/runtime/src/caller.ts") },
      { find: /^@toolwright\/runtime\/manager$/, replacement: src("./packages/runtime/src/manager.ts") },
      { find: /^@toolwright\/runtime\/providers$/, replacement: src("./packages/runtime/src/providers.ts") },
      { find: /^@toolwright\/runtime\/durable$/, replacement: src("./packages/runtime/src/durable.ts") },
      { find: /^@toolwright\/dbos\/postgres$/, replacement: src("./packages/dbos/src/postgres.ts") },
      { find: /^@toolwright\/dbos$/, replacement: src("./packages/dbos/src/index.ts") },
      { find: /^@toolwright\/runtime\/auth$/, replacement: src("./packages/runtime/src/auth.ts") },
      { find: /^@toolwright\/runtime\/client-features$/, replacement: src("./packages/runtime/src/client-features.ts") },
      { find: /^@toolwright\/runtime\/protocol$/, replacement: src("./packages/runtime/src/protocol.ts") },
      { find: /^@toolwright\/runtime\/catalogue$/, replacement: src("./packages/runtime/src/catalogue.ts") },
      { find: /^@toolwright\/runtime\/codegen$/, replacement: src("./packages/runtime/src/codegen.ts") },
      { find: /^@toolwright\/runtime$/, replacement: src("./packages/runtime/src/index.ts") },
      { find: /^@toolwright\/ai-sdk$/, replacement: src("./packages/ai-sdk/src/index.ts") },
      { find: /^@toolwright\/code-mode$/, replacement: src("./packages/code-mode/src/index.ts") },
      { find: /^@toolwright\/testkit$/, replacement: src("./packages/testkit/src/index.ts") },
      { find: /^@toolwright\/vault$/, replacement: src("./packages/vault/src/index.ts") },
      { find: /^@toolwright\/langchain$/, replacement: src("./packages/langchain/src/index.ts") },
      { find: /^@toolwright\/dsl$/, replacement: src("./packages/dsl/src/index.ts") },
      { find: /^@toolwright\/codegen$/, replacement: src("./packages/codegen/src/index.ts") },
    ],
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**", "test/golden/*/expected/**"],
    // Timeouts bound a hang; they never measure speed. Most tests start real processes (servers, tsc,
    // npm), which at load average 8 on 2 cores take 4-10x their quiet time (issue 25, item 19), so the
    // bounds are generous, and a wait is for an event (vi.waitFor, expect.poll), never a fixed sleep.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    expect: { poll: { timeout: 30_000 } },
    pool: "forks",
  },
});
