// Round trip over real stdio: the runtime's own createStdioCaller spawns a tsx script that serves
// the demo server with serveStdio.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStdioCaller, type StdioCaller } from "../../packages/runtime/src/stdio.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";

const require = createRequire(import.meta.url);
const tsxCli = fileURLToPath(new URL("dist/cli.mjs", `file://${require.resolve("tsx/package.json")}`));
const script = fileURLToPath(new URL("./fixtures/serve-demo.ts", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));

describe("serveStdio through createStdioCaller", () => {
  let caller: StdioCaller;
  let leaks: LeakCheck;
  beforeAll(async () => {
    leaks = createLeakCheck();
    caller = createStdioCaller({
      name: "demo",
      command: process.execPath,
      args: [tsxCli, script, "--page-size", "4"],
      cwd: root,
      connectTimeoutMs: 20_000,
    });
    const hello = await caller.connect();
    expect(hello.ok).toBe(true);
    leaks.track([caller.pid]);
  });
  afterAll(async () => {
    await caller.close();
    const report = await leaks.check();
    leaks.dispose();
    expect(report.processes).toEqual([]);
    expect(report.handles).toEqual([]);
  });

  it("negotiates 2025-11-25 and reports the server's info", () => {
    expect(caller.handshake).toMatchObject({
      protocolVersion: "2025-11-25",
      serverInfo: { name: "demo-server", version: "1.2.3" },
      instructions: "Use add to add numbers.",
    });
  });

  it("lists every tool through three pages", async () => {
    const listed = await caller.listTools();
    expect(listed.ok && listed.value.map((t) => t.name)).toEqual([
      "add",
      "echo",
      "fail",
      "slow",
      "observations",
      "log",
      "ask",
      "resumable",
      "no_structured",
    ]);
  });

  it("calls a tool with structured output", async () => {
    const r = await caller.callTool({ name: "add", arguments: { a: 40, b: 2 } });
    expect(r.ok && r.value.structuredContent).toEqual({ sum: 42 });
  });

  it("bad arguments and handler throws come back as isError results (a thrown message is withheld)", async () => {
    const bad = await caller.callTool({ name: "add", arguments: { a: "forty" } });
    expect(bad.ok && bad.value.isError).toBe(true);
    expect(bad.ok && bad.value._meta).toEqual({
      "io.toolwright/issues": [
        { field: "a", constraint: "invalid_field_type", expected: "number", actual: "forty" },
        { field: "b", constraint: "missing_field" },
      ],
    });
    const thrown = await caller.callTool({ name: "fail", arguments: {} });
    expect(thrown.ok && thrown.value).toEqual({
      content: [{ type: "text", text: 'Tool "fail" failed with an internal error (the server\'s log has the details).' }],
      isError: true,
    });
  });

  it("an unknown tool is a -32602 failure value", async () => {
    const r = await caller.callTool({ name: "missing", arguments: {} });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.failure).toMatchObject({ kind: "invalid_call", rpc: { code: -32602 } });
  });

  it("streams progress to the caller", async () => {
    const seen: number[] = [];
    const r = await caller.callTool({ name: "slow", arguments: { steps: 4 } }, { onProgress: (p) => seen.push(p.progress) });
    expect(r.ok && r.value.content).toEqual([{ type: "text", text: "done after 4 steps" }]);
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it("aborting a call sends notifications/cancelled and the server aborts the handler", async () => {
    const controller = new AbortController();
    const pending = caller.callTool(
      { name: "slow", arguments: { steps: 500, label: "stdio-cancel" } },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    const r = await pending;
    expect(!r.ok && r.failure.kind).toBe("canceled");
    // The handler notices the abort on its next tick; poll the server until it reports it.
    let aborted: string[] = [];
    for (let i = 0; i < 50 && !aborted.includes("stdio-cancel"); i++) {
      const seen = await caller.callTool({ name: "observations", arguments: {} });
      aborted = seen.ok ? (seen.value.structuredContent as { aborted: string[] }).aborted : [];
    }
    expect(aborted).toContain("stdio-cancel");
  });

  it("answers ping", async () => {
    expect(await caller.ping()).toEqual({ ok: true, value: undefined });
  });
});

describe("the served process", () => {
  it("exits by itself with code 0 when the client closes stdin, without SIGTERM", async () => {
    const child = spawn(process.execPath, [tsxCli, script], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n`,
    );
    child.stdin.write("this is not json\n");
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}\n`);
    while (!out.includes('"id":2')) await once(child.stdout, "data");
    child.stdin.end();
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const lines = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: unknown; result?: { protocolVersion?: string }; error?: { code: number } });
    expect(lines.map((l) => l.id)).toEqual([1, null, 2]);
    expect(lines[0]?.result?.protocolVersion).toBe("2024-11-05");
    expect(lines[1]?.error?.code).toBe(-32700);
  });
});

describe("serveStdio in the stateless 2026-07-28 era (createStdioCaller era: modern)", () => {
  let caller: StdioCaller;
  beforeAll(async () => {
    const handlers = new Map([["elicitation/create", async () => ({ action: "accept", content: { name: "Grace" } })]]);
    caller = createStdioCaller({
      name: "demo",
      command: process.execPath,
      args: [tsxCli, script],
      cwd: root,
      era: "2026-07-28",
      handlers,
      connectTimeoutMs: 20_000,
    });
  });
  afterAll(async () => {
    await caller.close();
  });

  it("calls tools without initialize, and answers input_required rounds through the caller's handlers", async () => {
    const sum = await caller.callTool({ name: "add", arguments: { a: 5, b: 6 } });
    expect(sum.ok && sum.value.structuredContent).toEqual({ sum: 11 });
    const ask = await caller.callTool({ name: "ask", arguments: { message: "Who?" } });
    expect(ask.ok && ask.value.content).toEqual([{ type: "text", text: "accept: Grace" }]);
    const listed = await caller.listTools();
    expect(listed.ok && listed.value).toHaveLength(9);
  });
});
