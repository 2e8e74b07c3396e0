// Runs the compiler over the DSL sources and tests (tsconfig.test.json), so the `expectTypeOf`
// pins and `@ts-expect-error` lines in *.types.test.ts are really checked.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

it("type tests compile under the strict base config", () => {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("typescript/package.json");
  const bin = (require(pkg) as { bin: { tsc: string } }).bin.tsc;
  const tsc = fileURLToPath(new URL(bin, `file://${pkg}`));
  const project = fileURLToPath(new URL("../tsconfig.test.json", import.meta.url));
  const run = spawnSync(process.execPath, [tsc, "-p", project], { encoding: "utf8", timeout: 120_000 });
  expect(`${run.stdout}${run.stderr}`).toBe("");
  expect(run.status).toBe(0);
}, 130_000);
