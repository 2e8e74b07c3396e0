/**
 * Era pinning on stdio: `modern` speaks 2026-07-28 (discover, per-request `_meta`, MRTR, stdio
 * cancellation), `auto` probes then falls back to `initialize`, `legacy` (default) never probes.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedServer } from "../support/scripted-stdio-server.js";

const MODERN = fileURLToPath(new URL("./fixtures/modern-stdio-server.mjs", import.meta.url));
let caller: StdioCaller | undefined;
const cleanups: (() => void)[] = [];

afterEach(async () => {
  await caller?.close();
  caller = undefined;
  for (const c of cleanups.splice(0)) c();
});

function modernServer(extraEnv: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), "tw-modern-"));
  const log = join(dir, "wire.jsonl");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const wire = () => {
    try {
      return readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  };
  return { command: process.execPath, args: [MODERN], env: [`MODERN_WIRE_LOG=${log}`, ...extraEnv], wire };
}

describe("stdio eras", () => {
  it("modern: discover, then _meta on every request and trace context on calls", async () => {
    const s = modernServer();
    caller = createStdioCaller({ ...s, era: "2026-07-28", clientInfo: { name: "tw", version: "1.2.3" }, traceContext: true });
    const hs = await caller.connect();
    expect(hs).toMatchObject({ ok: true, value: { protocolVersion: "2026-07-28", serverInfo: { name: "modern-stdio" } } });
    const out = await caller.callTool({ name: "meta", arguments: { a: 1 }, meta: { "com.example/k": "v" } });
    expect(out.ok).toBe(true);
    const params = out.ok ? JSON.parse((out.value.content[0] as { text: string }).text) : {};
    expect(params._meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    expect(params._meta["io.modelcontextprotocol/clientInfo"]).toEqual({ name: "tw", version: "1.2.3" });
    // Nothing declared but the tasks extension, which callers declare and serve unless `tasks: false`.
    expect(params._meta["io.modelcontextprotocol/clientCapabilities"]).toEqual({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    expect(params._meta["com.example/k"]).toBe("v");
    expect(params._meta.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(s.wire().map((m: { method?: string }) => m.method)).toEqual(["server/discover", "tools/call"]);
    expect((await caller.ping()).ok).toBe(true);
    const discover = await caller.request("server/discover");
    expect(discover).toMatchObject({ ok: true, value: { supportedVersions: ["2026-07-28"] } });
    const unknown = await caller.request("nope/nothing", { x: 1 });
    expect(unknown).toMatchObject({ ok: false, failure: { rpc: { code: -32601 }, tool: "nope/nothing" } });
  });

  it("modern: the MRTR loop calls the roots handler and echoes requestState", async () => {
    const s = modernServer();
    const handlers = new Map([["roots/list", () => ({ roots: [{ uri: "file:///tmp" }] })]]);
    caller = createStdioCaller({ ...s, era: "2026-07-28", handlers });
    const out = await caller.callTool({ name: "confirm", arguments: {} });
    expect(out).toMatchObject({ ok: true, value: { content: [{ text: JSON.stringify({ roots: [{ uri: "file:///tmp" }] }) }] } });
    const calls = s.wire().filter((m: { method?: string }) => m.method === "tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[1].params.requestState).toBe("st");
    expect(calls[1].id).not.toBe(calls[0].id);
  });

  it("modern on stdio still cancels with notifications/cancelled", async () => {
    const s = modernServer();
    caller = createStdioCaller({ ...s, era: "2026-07-28" });
    const out = await caller.callTool({ name: "wait", arguments: {} }, { timeoutMs: 100 });
    expect(out).toMatchObject({ ok: false, failure: { kind: "timeout" } });
    await expect.poll(() => s.wire().filter((m: { method?: string }) => m.method === "notifications/cancelled").length).toBe(1);
  });

  it("modern: opens subscriptions/listen for list changes and cancels it on close", async () => {
    const s = modernServer(["MODERN_LISTEN=1"]);
    const seen: string[] = [];
    caller = createStdioCaller({ ...s, era: "2026-07-28", onNotification: (n) => seen.push(n.method) });
    await caller.connect();
    await expect.poll(() => seen).toContain("notifications/subscriptions/acknowledged");
    await caller.callTool({ name: "change", arguments: {} });
    await expect.poll(() => seen).toContain("notifications/tools/list_changed");
    const listen = s.wire().find((m: { method?: string }) => m.method === "subscriptions/listen");
    expect(listen.params.notifications).toEqual({ toolsListChanged: true });
    await caller.close();
    caller = undefined;
    const cancels = s.wire().filter((m: { method?: string }) => m.method === "notifications/cancelled");
    expect(cancels.map((m: { params: { requestId: unknown } }) => m.params.requestId)).toEqual([listen.id]);
  });

  it("auto: probes a modern server and stays modern", async () => {
    const s = modernServer();
    caller = createStdioCaller({ ...s, era: "auto" });
    expect(await caller.connect()).toMatchObject({ ok: true, value: { protocolVersion: "2026-07-28" } });
  });

  it("auto: a legacy server answers the probe with an error, then initialize runs", async () => {
    const s = scriptedServer();
    cleanups.push(() => s.dispose());
    caller = createStdioCaller({ command: s.command, args: s.args, env: s.env, era: "auto" });
    const hs = await caller.connect();
    expect(hs.ok && hs.value.protocolVersion).toMatch(/^20\d\d-/);
    const methods = s
      .wire()
      .filter((e) => e.event === "in")
      .map((e) => e.msg?.method);
    expect(methods.slice(0, 2)).toEqual(["server/discover", "initialize"]);
  });

  it("a call started after close() is a programmer error and throws, spawning nothing", async () => {
    const s = scriptedServer();
    cleanups.push(() => s.dispose());
    const closedCaller = createStdioCaller({ command: s.command, args: s.args, env: s.env });
    await closedCaller.close();
    await expect(closedCaller.callTool({ name: "echo", arguments: {} })).rejects.toThrow(/closed/);
    expect(s.pids()).toEqual([]);
  });

  it("legacy is the stdio default: no probe", async () => {
    const s = scriptedServer();
    cleanups.push(() => s.dispose());
    caller = createStdioCaller({ command: s.command, args: s.args, env: s.env });
    expect((await caller.connect()).ok).toBe(true);
    expect(s.received("server/discover")).toHaveLength(0);
    expect(s.received("initialize")).toHaveLength(1);
  });

  it("modern pinned against a legacy server fails clearly without initialize", async () => {
    const s = scriptedServer();
    cleanups.push(() => s.dispose());
    caller = createStdioCaller({ command: s.command, args: s.args, env: s.env, era: "2026-07-28" });
    const out = await caller.callTool({ name: "echo", arguments: {} });
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.failure.message).toContain("does not speak 2026-07-28");
    expect(s.received("initialize")).toHaveLength(0);
  });
});
