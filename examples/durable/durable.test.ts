/**
 * The durable demo as a user runs it: a throwaway PostgreSQL, two workers, a SIGKILL mid-call;
 * every run finishes, every write reaches server-memory once, nothing is left running. And without
 * PostgreSQL it says how to install it and exits non-zero.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const main = fileURLToPath(new URL("./main.ts", import.meta.url));

function runDemo(env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", main], { cwd: repo, env, timeout: 240_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

describe("npm run demo:durable", () => {
  it("finishes every run after the busy worker is killed: 0 duplicated, 0 lost, last line is the summary", async () => {
    const { code, out } = await runDemo({ PATH: process.env.PATH, HOME: process.env.HOME });
    const lines = out.trim().split("\n");
    expect(lines.at(-1), out).toBe("durable: 3 runs, 16 steps, 0 duplicated, 0 lost");
    expect(code, out).toBe(0);
    expect(out).toMatch(/SIGKILL worker-\d while it waits for add_observations/);
    expect(out).toContain("outcome_unknown (worker died mid-call)");
    expect(out).toContain("took effect: not sent again");
    expect(out).not.toMatch(/executed [02-9]×/); // every step reached the server exactly once
  }, 240_000);

  it("without PostgreSQL it says how to install it and exits non-zero", async () => {
    const { code, out } = await runDemo({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TOOLWRIGHT_PG_BINDIR: "/nonexistent/postgresql/bin",
    });
    expect(code).not.toBe(0);
    expect(out).toContain("apt-get install -y postgresql");
  }, 60_000);
});
