/**
 * examples/durable against the real server-memory from npm (the example's own test uses the
 * generated mock): `npm run demo:durable` as a user runs it, and the committed cassette its mock is
 * checked against must still be what the live server answers, so a server upgrade that changes
 * its answers fails here. Re-record: npx tsx examples/durable/record-cassette.ts
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { verifyCassette } from "@toolwright/testkit";
import { describe, expect, it } from "vitest";
import { MEMORY_CASSETTE, realMemoryOptions } from "../../examples/durable/record-cassette.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const main = fileURLToPath(new URL("../../examples/durable/main.ts", import.meta.url));

describe("examples/durable live", () => {
  it("npm run demo:durable finishes every run after the busy worker is killed: 0 duplicated, 0 lost", async () => {
    const { code, out } = await new Promise<{ code: number; out: string }>((resolve) => {
      const env = { PATH: process.env.PATH, HOME: process.env.HOME };
      execFile(process.execPath, ["--import", "tsx", main], { cwd: repo, env, timeout: 240_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, out: `${stdout}${stderr}` });
      });
    });
    const lines = out.trim().split("\n");
    expect(lines.at(-1), out).toBe("durable: 3 runs, 16 steps, 0 duplicated, 0 lost");
    expect(code, out).toBe(0);
    expect(out).toMatch(/SIGKILL worker-\d while it waits for add_observations \(run (librarian-\d), key \1\/\d+\)/);
    expect(out).toContain("outcome_unknown (worker died mid-call)");
    expect(out).toContain("took effect: not sent again");
    expect(out).not.toMatch(/executed [02-9]×/); // every step reached the server exactly once
  }, 240_000);

  it("the committed cassette is what the live server-memory answers, every answer equal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-durable-live-"));
    const live = createStdioCaller(realMemoryOptions(join(dir, "memory.jsonl")));
    try {
      const report = await verifyCassette(readFileSync(MEMORY_CASSETTE, "utf8"), live);
      expect(report.differences).toEqual([]);
      expect(report.checked).toBe(18);
    } finally {
      await live.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
