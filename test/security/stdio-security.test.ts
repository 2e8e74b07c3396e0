/**
 * Security over stdio: the child environment is an allowlist (checked with the real
 * server-everything `get-env` and with the scripted server), nothing goes through a shell, and
 * configured env values never show up in failures, rendered failures or thrown errors.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ToolFailure } from "@toolwright/runtime";
import { createStdioCaller, DEFAULT_INHERITED_ENV, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { renderFailure } from "../../packages/runtime/src/planner/render.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { type ScriptedServer, scriptedServer } from "../support/scripted-stdio-server.js";

const require = createRequire(import.meta.url);
const EVERYTHING = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");

const SECRET = `tw-parent-secret-${process.pid}-${Date.now()}`;
let leaks: LeakCheck;
let dir: string;
const callers: StdioCaller[] = [];
const servers: ScriptedServer[] = [];
const saved = { SECRET_TOKEN: process.env.SECRET_TOKEN, NODE_OPTIONS: process.env.NODE_OPTIONS };

beforeAll(() => {
  leaks = createLeakCheck();
  dir = mkdtempSync(join(tmpdir(), "tw-security-"));
  process.env.SECRET_TOKEN = SECRET;
});

afterEach(async () => {
  for (const c of callers.splice(0)) {
    leaks.track([c.pid]);
    await c.close();
  }
  for (const s of servers.splice(0)) {
    leaks.track(s.pids());
    s.dispose();
  }
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dir, { recursive: true, force: true });
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

function track<T extends StdioCaller>(c: T): T {
  callers.push(c);
  return c;
}

function scripted(env: readonly string[] = [], args: readonly string[] = []) {
  const server = scriptedServer({ env, args });
  servers.push(server);
  const caller = track(
    createStdioCaller({ name: "scripted", command: server.command, args: server.args, env: server.env, closeGraceMs: 200 }),
  );
  return { server, caller };
}

async function childEnv(caller: StdioCaller): Promise<Record<string, string>> {
  const r = await caller.callTool({ name: "env", arguments: {} });
  if (!r.ok) throw new Error(r.failure.message);
  return (r.value.structuredContent as { env: Record<string, string> }).env;
}

async function everythingEnv(env?: readonly string[]): Promise<string> {
  const caller = track(
    createStdioCaller({ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], ...(env ? { env } : {}) }),
  );
  const r = await caller.callTool({ name: "get-env", arguments: {} });
  if (!r.ok) throw new Error(r.failure.message);
  return r.value.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

describe("child environment is an allowlist", () => {
  it("server-everything get-env: a parent SECRET_TOKEN never reaches the child unless named", async () => {
    const hidden = await everythingEnv();
    expect(hidden).not.toContain("SECRET_TOKEN");
    expect(hidden).not.toContain(SECRET);
    const named = await everythingEnv(["SECRET_TOKEN"]);
    expect(JSON.parse(named).SECRET_TOKEN).toBe(SECRET);
  });

  it("scripted server: only the baseline, the named variables and literals are present", async () => {
    const { caller } = scripted(["LITERAL_ONE=one=two", "SECRET_TOKEN"]);
    const env = await childEnv(caller);
    const allowed = new Set([...DEFAULT_INHERITED_ENV, "LITERAL_ONE", "SECRET_TOKEN", "SCRIPTED_WIRE_LOG"]);
    expect(Object.keys(env).filter((k) => !allowed.has(k))).toEqual([]);
    expect(env.LITERAL_ONE).toBe("one=two");
    expect(env.SECRET_TOKEN).toBe(SECRET);
  });

  it("does not pass NODE_OPTIONS from the parent, so it cannot inject code into the child", async () => {
    const marker = join(dir, "node-options-ran");
    const evil = join(dir, "evil.cjs");
    writeFileSync(evil, `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");`);
    process.env.NODE_OPTIONS = `--require ${evil}`;
    try {
      const { caller } = scripted();
      const env = await childEnv(caller);
      expect(env.NODE_OPTIONS).toBeUndefined();
    } finally {
      process.env.NODE_OPTIONS = saved.NODE_OPTIONS ?? "";
      if (saved.NODE_OPTIONS === undefined) delete process.env.NODE_OPTIONS;
    }
    expect(existsSync(marker)).toBe(false);
  });
});

describe("no shell", () => {
  const hostile = (m: (n: number) => string) => [
    `; touch ${m(1)}`,
    `$(touch ${m(2)})`,
    `\`touch ${m(3)}\``,
    `| touch ${m(4)}`,
    `&& touch ${m(5)}`,
    `> ${m(6)}`,
    "$HOME ~ * ?",
  ];

  it("passes arguments with ; $(...) backticks | && > literally and runs none of them", async () => {
    const marker = (n: number) => join(dir, `shell-arg-${n}`);
    const args = hostile(marker);
    const { caller } = scripted([], args);
    const r = await caller.callTool({ name: "argv", arguments: {} });
    expect(r.ok && (r.value.structuredContent as { argv: string[] }).argv).toEqual(args);
    for (let n = 1; n <= 6; n++) expect(existsSync(marker(n))).toBe(false);
  });

  it("passes env literals with $(...) and backticks literally", async () => {
    const marker = join(dir, "shell-env");
    const { caller } = scripted([`HOSTILE=$(touch ${marker})\`touch ${marker}\``]);
    const env = await childEnv(caller);
    expect(env.HOSTILE).toBe(`$(touch ${marker})\`touch ${marker}\``);
    expect(existsSync(marker)).toBe(false);
  });

  it("treats a command with shell syntax as a file name: unavailable, nothing run", async () => {
    const marker = join(dir, "shell-command");
    for (const command of [`${process.execPath}; touch ${marker}`, `$(touch ${marker})`, `true | touch ${marker}`]) {
      const caller = track(createStdioCaller({ name: "hostile", command }));
      const r = await caller.callTool({ name: "echo", arguments: {} });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.failure.kind).toBe("unavailable");
    }
    expect(existsSync(marker)).toBe(false);
  });
});

describe("configured env values never leak into failures", () => {
  const value = `sk-live-${"9f8e7d6c5b4a".repeat(2)}`;

  function surfaces(failure: ToolFailure, caller: StdioCaller): string[] {
    return [JSON.stringify(failure), renderFailure(failure), caller.stderrTail()];
  }

  it("a server that prints its credential to stderr and crashes: stderr tail, message and rendering are redacted", async () => {
    const { caller } = scripted([`UPSTREAM_CREDENTIAL=${value}`]);
    const r = await caller.callTool({ name: "exit", arguments: { code: 9, stderr: `fatal: upstream rejected credential ${value}\n` } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failure.kind).toBe("unavailable");
    expect(r.failure.stderrTail).toContain("upstream rejected credential");
    for (const text of surfaces(r.failure, caller)) expect(text).not.toContain(value);
  });

  it("a named pass-through secret printed in key=value form is redacted too", async () => {
    const { caller } = scripted(["SECRET_TOKEN"]);
    const r = await caller.callTool({
      name: "exit",
      arguments: { code: 2, stderr: `env: SECRET_TOKEN=${SECRET}\nauth: Bearer ${SECRET}\n` },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    for (const text of surfaces(r.failure, caller)) expect(text).not.toContain(SECRET);
  });
});
