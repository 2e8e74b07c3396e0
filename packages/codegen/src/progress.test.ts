/**
 * Live progress. With a terminal on stderr, `pull` of several real servers shows each one
 * connecting and its tools listed, and `gen` shows its phases and the files being written; piped,
 * the output is the one summary line; `--json` prints only JSON. Checked twice: through `main`
 * with an injected stream (isTTY true or false), and through the real bin under a pseudo-terminal
 * (`script` from util-linux) against the same command piped.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "./cli.js";
import { createProgress } from "./progress.js";

const repo = fileURLToPath(new URL("../../..", import.meta.url));
const bin = join(repo, "packages", "codegen", "dist", "bin.js");
const server = (pkg: string) => join(repo, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");
let dir = "";

/** A stand-in for a terminal stderr: records what is drawn on it. */
function terminal(isTTY: boolean) {
  const drawn: string[] = [];
  return { stream: { isTTY, columns: 120, write: (t: string) => drawn.push(t) }, drawn };
}

async function cli(progress: { isTTY: boolean; write(t: string): unknown }, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: dir, progress });
  return { code, stdout: out, stderr: err };
}

beforeAll(() => {
  mkdirSync(join(repo, ".tmp"), { recursive: true });
  dir = mkdtempSync(join(repo, ".tmp", "progress-"));
  mkdirSync(join(dir, ".toolwright"));
  const config = {
    mcpServers: {
      memory: { command: process.execPath, args: [server("server-memory")], env: { MEMORY_FILE_PATH: join(dir, "m.jsonl") } },
      everything: { command: process.execPath, args: [server("server-everything"), "stdio"] },
    },
  };
  writeFileSync(join(dir, ".toolwright", "mcp.json"), JSON.stringify(config));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("createProgress", () => {
  it("draws nothing when the stream is not a terminal, or with --json", () => {
    for (const [isTTY, json] of [
      [false, false],
      [true, true],
    ] as const) {
      const t = terminal(isTTY);
      const p = createProgress(t.stream, { json });
      p.status("working");
      p.line("done one");
      p.end();
      expect(t.drawn).toEqual([]);
    }
  });

  it("on a terminal, rewrites one status line in place and keeps finished lines", () => {
    const t = terminal(true);
    const p = createProgress(t.stream);
    p.status("connecting a, b");
    p.line("  a: 3 tools");
    p.end();
    expect(t.drawn.join("")).toBe("\r\x1b[2Kconnecting a, b\r\x1b[2K  a: 3 tools\nconnecting a, b\r\x1b[2K");
  });
});

describe("pull and gen through main", () => {
  it("init the project (two real servers)", async () => {
    expect((await cli(terminal(false).stream, "init")).code).toBe(0);
  });

  it("pull on a terminal: each server connecting, then a line per server with its tools; the summary stays on stdout", async () => {
    const t = terminal(true);
    const r = await cli(t.stream, "pull", "design.ts");
    expect(r.code).toBe(0);
    const drawn = t.drawn.join("");
    expect(drawn).toMatch(/connecting (memory, everything|everything, memory) \(0\/2 done\)/);
    expect(drawn).toMatch(/ {2}memory: 9 tools listed over stdio \(\d+\.\d s\)\n/);
    expect(drawn).toMatch(/ {2}everything: \d+ tools listed over stdio/);
    expect(drawn.endsWith("\r\x1b[2K")).toBe(true);
    expect(r.stdout).toHaveLength(1);
    expect(r.stdout[0]).toMatch(/^toolwright pull: 2 servers/);
  });

  it("pull piped: nothing drawn, one summary line", async () => {
    const t = terminal(false);
    const r = await cli(t.stream, "pull", "design.ts");
    expect(r.code).toBe(0);
    expect(t.drawn).toEqual([]);
    expect(r.stderr).toEqual([]);
    expect(r.stdout).toHaveLength(1);
  });

  it("gen on a terminal: its phases and the files being written; --json on a terminal draws nothing", async () => {
    const t = terminal(true);
    const r = await cli(t.stream, "gen", "design.ts", "--out", "src/gen", "--no-cache");
    expect(r.code).toBe(0);
    const drawn = t.drawn.join("");
    expect(drawn).toMatch(/ {2}loaded design\.ts \(\d+\.\d s\)\n/);
    expect(drawn).toMatch(/ {2}resolved 2 toolsets, \d+ tools/);
    expect(drawn).toMatch(/ {2}generated \d+ files/);
    expect(drawn).toMatch(/toolwright gen: writing 1\/\d+ src\/gen\//);
    // stdout: the summary line, then the token bill (its heading, total, one line per toolset, the top five).
    expect(r.stdout[0]).toMatch(/^toolwright gen: 2 toolsets/);
    expect(r.stdout.slice(1).join("\n")).toMatch(
      /^token bill \(o200k_base[^\n]*\n {2}total: [^\n]*\n {2}toolset [^\n]*\n {2}toolset [^\n]*\n {2}most expensive tools: /,
    );
    expect(r.stdout).toHaveLength(6);
    const json = terminal(true);
    const j = await cli(json.stream, "gen", "design.ts", "--out", "src/gen", "--no-cache", "--json");
    expect(json.drawn).toEqual([]);
    expect(JSON.parse(j.stdout.join(""))).toMatchObject({ ok: true, command: "gen" });
  });
});

describe("the real bin under a pseudo-terminal", () => {
  const viaPty = (command: string) =>
    spawnSync("script", ["-qec", command, "/dev/null"], {
      cwd: dir,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, COLUMNS: "120" },
    });
  const piped = (...argv: string[]) => spawnSync(process.execPath, [bin, ...argv], { cwd: dir, encoding: "utf8", timeout: 120_000 });

  it("pull: live lines on the terminal; piped, stderr stays empty and stdout is one line", () => {
    const pty = viaPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} pull design.ts`);
    expect(pty.status, pty.stderr).toBe(0);
    expect(pty.stdout).toContain("\x1b[2K");
    expect(pty.stdout).toMatch(/connecting .*\(0\/2 done\)/);
    expect(pty.stdout).toMatch(/memory: 9 tools listed over stdio/);
    const p = piped("pull", "design.ts");
    expect(p.status).toBe(0);
    expect(p.stderr).toBe("");
    expect(p.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(p.stdout).not.toContain("\x1b");
  }, 120_000);

  it("gen: phases and files on the terminal; piped, the summary line and the token bill, nothing drawn", () => {
    const pty = viaPty(`${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} gen design.ts --out src/gen --no-cache`);
    expect(pty.status, pty.stderr).toBe(0);
    expect(pty.stdout).toMatch(/loaded design\.ts/);
    expect(pty.stdout).toMatch(/writing 1\/\d+ src\/gen\//);
    const p = piped("gen", "design.ts", "--out", "src/gen", "--no-cache");
    expect(p.status).toBe(0);
    expect(p.stderr).toBe("");
    const lines = p.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^toolwright gen: 2 toolsets/);
    expect(lines[1]).toMatch(/^token bill \(o200k_base tokens/);
    expect(lines).toHaveLength(6);
    expect(p.stdout).not.toContain("\x1b");
  }, 120_000);
});
