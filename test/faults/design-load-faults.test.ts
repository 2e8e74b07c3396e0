/**
 * Designs that never finish, through the built CLI in a child process (bounded by a kill timer the
 * tests never expect to need): a top-level await nothing can settle, one that waits past
 * `--load-timeout`, a design that leaves a timer and a listening socket open, and one that calls
 * `process.exit(0)` while it loads. Each ends with the documented exit code and a message naming
 * the file; nothing is written for a design that did not load.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToolwright } from "../support/toolwright-cli.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const root = join(repo, ".tmp", `design-load-faults-${process.pid}`);
const KILL_AFTER_MS = 90_000;

const toolwright = (...argv: string[]) => runToolwright(argv, { cwd: root, killAfterMs: KILL_AFTER_MS });

const TOOLSET = `toolset("x", fromExternalMCP("x"), (t) => t.tool("a", { input: object({}) }))`;
const HEAD = `import { design, externalServer, fromExternalMCP, fromMCP, object, toolset } from "@toolwright/dsl";\n`;

function designFile(name: string, body: string): string {
  writeFileSync(join(root, name), `${HEAD}${body}\nexport default design({ toolsets: [${TOOLSET}] });\n`);
  return name;
}

beforeAll(() => {
  mkdirSync(root, { recursive: true });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("designs that never finish loading", () => {
  it("a top-level await nothing can settle: exit 2 naming the file, nothing written (gen and --check)", async () => {
    const file = designFile("never.design.ts", "await new Promise(() => {});");
    const gen = await toolwright("gen", file, "--out", "never-out", "--no-cache");
    expect(gen.killed).toBe(false);
    expect(gen.status).toBe(2);
    expect(gen.output).toMatch(/design error: never\.design\.ts: loading the design never finishes: a top-level await/);
    expect(existsSync(join(root, "never-out"))).toBe(false);
    const check = await toolwright("gen", file, "--out", "never-out", "--check");
    expect(check.status).toBe(2);
    expect(check.output).toMatch(/never\.design\.ts: loading the design never finishes/);
    const json = await toolwright("gen", file, "--out", "never-out", "--json");
    expect(JSON.parse(json.output)).toMatchObject({ ok: false, exitCode: 2, location: { file: "never.design.ts" } });
  }, 300_000);

  it("a top-level await on a long timer: exit 2 at --load-timeout, naming the file and the budget", async () => {
    const file = designFile("slow.design.ts", "await new Promise((resolve) => setTimeout(resolve, 3_600_000));");
    const gen = await toolwright("gen", file, "--out", "slow-out", "--load-timeout", "1500");
    expect(gen.killed).toBe(false);
    expect(gen.status).toBe(2);
    expect(gen.output).toMatch(/slow\.design\.ts: loading the design did not finish within 1500 ms .*--load-timeout/);
    expect(existsSync(join(root, "slow-out"))).toBe(false);
  }, 120_000);

  it("a design stuck in a synchronous loop: the watchdog reports it at the deadline and ends the process", async () => {
    const file = designFile("spin.design.ts", "for (;;) {}");
    const gen = await toolwright("gen", file, "--out", "spin-out", "--load-timeout", "1000");
    // Ended by the CLI's own watchdog, not by this test's kill timer.
    expect(gen.killed).toBe(false);
    expect(gen.signal).toBe("SIGKILL");
    expect(gen.output).toMatch(/design error: spin\.design\.ts: loading the design did not finish within 1000 ms and it does not yield/);
    expect(existsSync(join(root, "spin-out"))).toBe(false);
  }, 120_000);

  it("pull has the same deadline", async () => {
    const file = "pull-never.design.ts";
    writeFileSync(
      join(root, file),
      `${HEAD}await new Promise(() => {});\nconst s = externalServer("s", { command: "node" });\nexport default design({ toolsets: [toolset("s", fromMCP(s))] });\n`,
    );
    const pull = await toolwright("pull", file, "--load-timeout", "60000");
    expect(pull.killed).toBe(false);
    expect(pull.status).toBe(2);
    expect(pull.output).toMatch(/pull-never\.design\.ts: loading the design never finishes/);
    expect(existsSync(join(root, "pull-never.design.lock.json"))).toBe(false);
  }, 120_000);

  it("--load-timeout must be a positive number", async () => {
    const run = await toolwright("gen", designFile("ok.design.ts", ""), "--out", "ok-out", "--load-timeout", "0");
    expect(run.status).toBe(2);
    expect(run.output).toMatch(/--load-timeout must be a positive number of milliseconds/);
  });
});

describe("designs that leave work behind", () => {
  it("a design leaving an interval and a listening socket open: gen writes its files, then exits 0 by itself", async () => {
    const file = designFile(
      "open.design.ts",
      `import { createServer } from "node:net";\nsetInterval(() => {}, 1000);\ncreateServer().listen(0, "127.0.0.1");`,
    );
    const gen = await toolwright("gen", file, "--out", "open-out", "--no-cache");
    expect(gen.killed).toBe(false);
    expect(gen.status).toBe(0);
    expect(gen.output).toMatch(/toolwright gen: 1 toolset, 1 tool, (\d+) files \(\1 written/);
    expect(readdirSync(join(root, "open-out", "x")).sort()).toContain("client.gen.ts");
    const check = await toolwright("gen", file, "--out", "open-out", "--check", "--no-cache");
    expect(check.killed).toBe(false);
    expect(check.status).toBe(0);
  }, 180_000);

  it("a design that calls process.exit(0) while loading does not pass for a successful run", async () => {
    const file = designFile("exit.design.ts", "process.exit(0);");
    const gen = await toolwright("gen", file, "--out", "exit-out", "--no-cache");
    expect(gen.status).toBe(2);
    expect(gen.output).toMatch(/the process was ended before the command finished/);
    expect(existsSync(join(root, "exit-out"))).toBe(false);
  });
});
