/**
 * Generated code (examples and golden expected output) must be clean under the strictest options a
 * user might have. Runs the real `tsc` on test/typecheck/tsconfig.strict.json.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const tsc = join(repo, "node_modules", ".bin", "tsc");

describe("generated code type-checks strictly", () => {
  beforeAll(() => {
    // Generated code imports @toolwright/runtime through its package exports, i.e. dist/*.d.ts.
    const build = spawnSync(tsc, ["-b", "packages/dsl", "packages/runtime"], { cwd: repo, encoding: "utf8" });
    expect(build.status, build.stdout + build.stderr).toBe(0);
  }, 120_000);

  it("tsc --noEmit -p test/typecheck/tsconfig.strict.json", () => {
    const run = spawnSync(tsc, ["--noEmit", "-p", "test/typecheck/tsconfig.strict.json"], { cwd: repo, encoding: "utf8" });
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  }, 120_000);

  it("generated code also compiles with isolatedDeclarations (library authors' setting)", () => {
    const run = spawnSync(tsc, ["--noEmit", "-p", "test/typecheck/tsconfig.isolated.json"], { cwd: repo, encoding: "utf8" });
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  }, 120_000);

  it("the check would catch an error (a deliberately wrong file fails)", () => {
    const run = spawnSync(tsc, ["--noEmit", "-p", "test/typecheck/tsconfig.negative.json"], { cwd: repo, encoding: "utf8" });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toMatch(/negative\.ts.*error TS/);
  }, 120_000);
});
