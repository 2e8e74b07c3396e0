/**
 * The pool over Streamable HTTP with a real server-everything on 127.0.0.1: a server that goes
 * away fails its health probe and is evicted; the next call rebuilds the connection once it is back.
 * Also: calls made while start() is still connecting wait for it instead of failing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMcpManager, type McpManager, parseMcpConfig } from "../../packages/runtime/src/manager.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { DYNAMIC, NODE, startEverythingHttp } from "./helpers.js";

let manager: McpManager | undefined;
const servers: Awaited<ReturnType<typeof startEverythingHttp>>[] = [];
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
  for (const s of servers.splice(0)) await s.stop();
});
const status = (name: string) => manager?.listServers().find((s) => s.name === name);

// No child process, handle, listener or watcher may outlive this file's tests.
let leaks: LeakCheck;
beforeAll(() => {
  leaks = createLeakCheck();
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

describe("HTTP eviction and rebuild", () => {
  it("evicts a vanished HTTP server on probe and reconnects on the next call after it returns", async () => {
    const first = await startEverythingHttp();
    servers.push(first);
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { remote: { url: first.url, probeTimeoutMs: 30_000 } } })));
    await manager.start();
    expect(status("remote")?.connected).toBe(true);
    expect(await manager.probe("remote")).toEqual({ ok: true, value: undefined });
    await first.stop();
    const probe = await manager.probe("remote");
    expect(probe).toMatchObject({ ok: false, failure: { kind: "unavailable" } });
    expect(status("remote")?.state).toBe("failed");
    // While it is down, a call fails as a value and nothing throws.
    const down = await manager.callTool("remote.echo", { message: "x" });
    expect(down.ok === false && down.failure.kind).toBe("unavailable");
    const second = await startEverythingHttp(first.port);
    servers.push(second);
    const back = await manager.callTool("remote.echo", { message: "back" });
    expect(back.ok && back.value).toBe("Echo: back");
    expect(status("remote")?.connected).toBe(true);
  });
});

describe("HTTP connection loss without a probe", () => {
  it("a call that finds the server gone fails as unavailable and the next call rebuilds the connection", async () => {
    const first = await startEverythingHttp();
    servers.push(first);
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { remote: { url: first.url } } })));
    await manager.start();
    const before = await manager.callTool("remote.echo", { message: "one" });
    expect(before.ok).toBe(true);
    await first.stop();
    const lost = await manager.callTool("remote.echo", { message: "two" });
    expect(lost.ok === false && lost.failure.kind).toBe("unavailable");
    expect(status("remote")?.state).toBe("failed");
    servers.push(await startEverythingHttp(first.port));
    const rebuilt = await manager.callTool("remote.echo", { message: "three" });
    expect(rebuilt.ok && rebuilt.value).toBe("Echo: three");
    expect(status("remote")?.connected).toBe(true);
  });
});

describe("startup races", () => {
  it("a call made while start() is connecting waits for the connection", async () => {
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { dyn: { command: NODE, args: [DYNAMIC] } } })));
    const starting = manager.start();
    const early = manager.callTool("dyn.alpha");
    const [statuses, result] = await Promise.all([starting, early]);
    expect(statuses[0]?.connected).toBe(true);
    expect(result.ok).toBe(true);
  });

  it("refreshTools re-lists a connected server and reports no change when nothing changed", async () => {
    // A long debounce keeps the list_changed refresh out of the way of the explicit one.
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { dyn: { command: NODE, args: [DYNAMIC] } } })), {
      listChangedDebounceMs: 60_000,
    });
    await manager.start();
    const same = await manager.refreshTools("dyn");
    expect(same).toEqual({ ok: true, value: { added: [], removed: [], changed: [] } });
    await manager.callTool("dyn.add-tools");
    const diff = await manager.refreshTools("dyn");
    expect(diff.ok && [...diff.value.added].sort()).toEqual(["beta", "secret-two"]);
    const missing = await manager.refreshTools("nope");
    expect(missing.ok).toBe(false);
  });
});
