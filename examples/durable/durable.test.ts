/**
 * The durable demo offline: a real throwaway PostgreSQL, two real worker processes and a real
 * SIGKILL mid-call, with server-memory played by its generated mock on 127.0.0.1 (mock-memory.ts).
 * Every run finishes and every write reaches the server once. The mock's answers are checked
 * against a cassette of the real server; test/examples/durable-live.test.ts runs the same demo
 * against the real server-memory and checks the cassette against it.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startMock, verifyCassette } from "@toolwright/testkit";
import { describe, expect, it } from "vitest";
import { runDurableDemo } from "./demo.js";
import { memoryHandlers, startMockMemory } from "./mock-memory.js";
import { MEMORY_CASSETTE } from "./record-cassette.js";
import { createMemoryMock } from "./src/gen/memory/mock.gen.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const main = fileURLToPath(new URL("./main.ts", import.meta.url));

describe("the durable demo against the generated server-memory mock", () => {
  it("the mock answers the recorded session exactly as the real server-memory did", async () => {
    await using mock = await startMock(createMemoryMock(memoryHandlers()));
    // structuredContent: the design declares no output schema, so the client reads the text only.
    const report = await verifyCassette(readFileSync(MEMORY_CASSETTE, "utf8"), mock.caller, { ignore: ["structuredContent"] });
    expect(report.differences).toEqual([]);
    expect(report.checked).toBe(18);
    expect(mock.failures).toEqual([]);
  });

  it("finishes every run after the busy worker is killed: 0 duplicated, 0 lost, last line is the summary", async () => {
    const lines: string[] = [];
    const code = await runDurableDemo({ memory: startMockMemory, log: (line) => lines.push(...line.split("\n")) });
    const out = lines.join("\n");
    expect(lines.at(-1), out).toBe("durable: 3 runs, 16 steps, 0 duplicated, 0 lost");
    expect(code, out).toBe(0);
    expect(out).toMatch(/SIGKILL worker-\d while it waits for add_observations \(run (librarian-\d), key \1\/\d+\)/);
    expect(out).toContain("outcome_unknown (worker died mid-call)");
    expect(out).toContain("took effect: not sent again");
    expect(out).not.toMatch(/executed [02-9]×/); // every step reached the server exactly once
  }, 240_000);

  it("without PostgreSQL it says how to install it and exits non-zero", async () => {
    const { code, out } = await new Promise<{ code: number; out: string }>((resolve) => {
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, TOOLWRIGHT_PG_BINDIR: "/nonexistent/postgresql/bin" };
      execFile(process.execPath, ["--import", "tsx", main], { cwd: repo, env, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, out: `${stdout}${stderr}` });
      });
    });
    expect(code).not.toBe(0);
    expect(out).toContain("apt-get install -y postgresql");
  }, 60_000);
});
