// Type-checks the server tests, fixtures and the conformance server under the strict base config
// (vitest itself does not type-check).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

it("server tests and fixtures compile under the strict base config", () => {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("typescript/package.json");
  const tsc = fileURLToPath(new URL("bin/tsc", `file://${pkg}`));
  const project = fileURLToPath(new URL("./tsconfig.json", import.meta.url));
  const run = spawnSync(process.execPath, [tsc, "-p", project], { encoding: "utf8", timeout: 120_000 });
  expect(`${run.stdout}${run.stderr}`).toBe("");
  expect(run.status).toBe(0);
}, 130_000);
