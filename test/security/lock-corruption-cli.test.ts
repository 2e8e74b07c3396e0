/**
 * `toolwright gen` through the built bin over generated corruptions of a real lock (the pulled
 * catalogues in examples/catalogues): exit 2 and one line naming the lock file, the server, the
 * tool and the field; never the design file, a stack trace or an internal function's name.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyLock, lockCorruption, put } from "../support/lock-corruptions.js";
import { runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
// Inside the repo (git-ignored) so the design resolves @toolwright/dsl like a user's project.
const root = join(repo, ".tmp", `lock-corruption-${process.pid}`);

beforeAll(() => {
  const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
  const build = spawnSync(process.execPath, [tsc, "-b", "packages/dsl", "packages/runtime", "packages/codegen"], {
    cwd: repo,
    encoding: "utf8",
  });
  expect(build.status, build.stdout + build.stderr).toBe(0);
  mkdirSync(root, { recursive: true });
  copyFileSync(join(repo, "examples", "catalogues", "design.ts"), join(root, "design.ts"));
}, 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("gen over a corrupted lock", () => {
  // Generated, with a fixed seed so a failure replays; each run starts the CLI once.
  const samples = fc.sample(lockCorruption, { seed: 25_14, numRuns: 10 });

  it.each(samples.map((c, i) => [i, c] as const))(
    "corruption %i names the lock, server, tool and field",
    async (_i, c) => {
      const lock = copyLock();
      put(lock, c.path, c.value);
      writeFileSync(join(root, "design.lock.json"), JSON.stringify(lock, null, 2));
      const run = await runToolwright(["gen", "design.ts", "--out", "gen", "--no-cache"], { cwd: root, killAfterMs: 120_000 });
      expect(run.killed).toBe(false);
      expect(run.status, run.output).toBe(2);
      const line = run.output.trim();
      expect(line.split("\n")).toHaveLength(1);
      expect(line.startsWith("error: design.lock.json")).toBe(true);
      expect(line).not.toMatch(/design\.ts|\n\s+at |\w\(\)/);
      if (typeof c.path[1] === "string") expect(line).toContain(`server ${JSON.stringify(c.path[1])}`);
      if (c.tool !== undefined) expect(line).toContain(`tool ${JSON.stringify(c.tool)}`);
      if (c.field !== undefined) expect(line).toContain(`field ${JSON.stringify(c.field)}`);
    },
    120_000,
  );
});
