/**
 * The pool: lazy connect, idle reaping that never cuts a call in flight, health probes with their
 * own timeout (ping on legacy, tools/list on 2026), eviction and transparent rebuild, clean stop.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createHttpCaller } from "../../packages/runtime/src/http.js";
import type { CallOptions } from "../../packages/runtime/src/index.js";
import { createMcpManager, type HttpClientFactory, type McpManager, parseMcpConfig } from "../../packages/runtime/src/manager.js";
import { createToolServer, serveHttp } from "../../packages/runtime/src/server.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { alive, DYNAMIC, NODE } from "./helpers.js";

let manager: McpManager | undefined;
const stopped: number[] = [];
afterEach(async () => {
  for (const pid of stopped.splice(0)) if (alive(pid)) process.kill(pid, "SIGCONT");
  await manager?.stop();
  manager = undefined;
});
const config = (servers: object) => parseMcpConfig(JSON.stringify({ mcpServers: servers }));
const dyn = (more: object = {}) => ({ command: NODE, args: [DYNAMIC], ...more });
const status = (name = "dyn") => manager?.listServers().find((s) => s.name === name);

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

describe("lazy connect", () => {
  it("connects nothing in start() and connects a server on its first call", async () => {
    manager = createMcpManager(config({ dyn: dyn(), other: dyn() }), { lazy: true, collisionPolicy: "prefix" });
    const statuses = await manager.start();
    expect(statuses.map((s) => s.state)).toEqual(["disconnected", "disconnected"]);
    expect(manager.tools()).toEqual([]);
    const result = await manager.callTool("dyn.alpha");
    expect(result.ok && result.value).toBe(`alpha from ${status()?.pid}`);
    expect(status()?.connected).toBe(true);
    expect(status("other")?.connected).toBe(false);
  });

  it("autoStart: false makes one server lazy while the others start", async () => {
    manager = createMcpManager(config({ eager: dyn(), later: dyn({ autoStart: false }) }), { collisionPolicy: "prefix" });
    await manager.start();
    expect(status("eager")?.connected).toBe(true);
    expect(status("later")?.state).toBe("disconnected");
    const client = manager.getClient("later");
    const response = await client?.callTool({ name: "alpha", arguments: {} });
    expect(response?.ok).toBe(true);
    expect(status("later")?.connected).toBe(true);
  });
});

describe("idle reaper", () => {
  it("closes an idle server, keeps its tools, and the next call reconnects", async () => {
    manager = createMcpManager(config({ dyn: dyn({ lifecycle: { idleTimeoutMs: 60 } }) }), { reapIntervalMs: 15 });
    await manager.start();
    const first = status()?.pid as number;
    await vi.waitFor(() => expect(status()?.state).toBe("idle"), { timeout: 30_000 });
    expect(status()?.pid).toBeUndefined();
    await vi.waitFor(() => expect(alive(first)).toBe(false), { timeout: 30_000 });
    expect(manager.tools().some((t) => t.id === "dyn.alpha")).toBe(true);
    const again = await manager.callTool("dyn.alpha");
    expect(again.ok).toBe(true);
    expect(status()?.connected).toBe(true);
    expect(status()?.pid).not.toBe(first);
  });

  it("never reaps a server with a call in flight, even one longer than the idle time", async () => {
    manager = createMcpManager(config({ dyn: dyn({ lifecycle: { idleTimeoutMs: 40 } }) }), { reapIntervalMs: 10 });
    await manager.start();
    const pid = status()?.pid;
    const reapedDuring: string[] = [];
    const slow = manager.callTool("dyn.sleep", { ms: 400 });
    await vi.waitFor(() => expect(status()?.inFlight).toBe(1), { timeout: 30_000 });
    // Run the reaper by hand as well while the call is in flight.
    for (let i = 0; i < 5; i++) {
      reapedDuring.push(...(await manager.reapIdle()));
      await new Promise((r) => setTimeout(r, 50));
    }
    const result = await slow;
    expect(result.ok && result.value).toBe("slept 400");
    expect(reapedDuring).toEqual([]);
    expect(status()?.pid).toBe(pid);
  });

  it("keep-alive servers are never reaped", async () => {
    manager = createMcpManager(config({ dyn: dyn({ lifecycle: "keep-alive" }) }), { reapIntervalMs: 10 });
    await manager.start();
    expect(await manager.reapIdle()).toEqual([]);
    expect(status()?.connected).toBe(true);
  });
});

describe("health probe", () => {
  it("pings a live legacy server; a hung one times out on the probe budget, is evicted and rebuilt", async () => {
    // A budget a live server meets on a busy machine too; the stopped one waits it out.
    manager = createMcpManager(config({ dyn: dyn({ probeTimeoutMs: 5000 }) }), { client: { closeGraceMs: 30 } });
    await manager.start();
    expect(await manager.probe("dyn")).toEqual({ ok: true, value: undefined });
    const hung = status()?.pid as number;
    process.kill(hung, "SIGSTOP");
    stopped.push(hung);
    const probe = await manager.probe("dyn");
    expect(probe).toMatchObject({ ok: false, failure: { kind: "timeout" } });
    expect(status()?.state).toBe("failed");
    expect(status()?.error).toMatch(/health probe failed/);
    await vi.waitFor(() => expect(alive(hung)).toBe(false), { timeout: 30_000 });
    const rebuilt = await manager.callTool("dyn.alpha");
    expect(rebuilt.ok).toBe(true);
    expect(status()?.pid).not.toBe(hung);
  });

  it("uses tools/list, not ping, on a 2026-07-28 server (the client is a real HTTP caller on a real server)", async () => {
    const http = await serveHttp(
      createToolServer({
        name: "modern",
        version: "1.0.0",
        tools: [{ name: "t", inputSchema: { type: "object" }, handler: () => ({ content: [] }) }],
      }),
    );
    try {
      const used: string[] = [];
      // The manager's client is the same SessionCaller type every caller is: observe it, do not fake it.
      const createHttpClient: HttpClientFactory = (o) => {
        const real = createHttpCaller({ ...o, env: {} });
        const { listTools, ping } = real;
        return Object.assign(real, {
          listTools: (options?: CallOptions) => (used.push("tools/list"), listTools(options)),
          ping: (options?: CallOptions) => (used.push("ping"), ping(options)),
        });
      };
      manager = createMcpManager(config({ modern: { url: http.url } }), { client: { createHttpClient } });
      await manager.start();
      expect(status("modern")?.state).toBe("connected");
      used.length = 0;
      expect(await manager.probe("modern")).toEqual({ ok: true, value: undefined });
      expect(used).toEqual(["tools/list"]);
    } finally {
      await manager?.stop();
      manager = undefined;
      await http.close();
    }
  });
});

describe("stop", () => {
  it("leaves no child process and no timer behind", async () => {
    // Record every timer created while the manager runs; Node marks a timer _destroyed once cleared or fired.
    const created: NodeJS.Timeout[] = [];
    const realTimeout = globalThis.setTimeout;
    const realInterval = globalThis.setInterval;
    const spyT = vi.spyOn(globalThis, "setTimeout").mockImplementation(((...args: Parameters<typeof setTimeout>) => {
      const t = realTimeout(...args);
      created.push(t);
      return t;
    }) as typeof setTimeout);
    const spyI = vi.spyOn(globalThis, "setInterval").mockImplementation(((...args: Parameters<typeof setInterval>) => {
      const t = realInterval(...args);
      created.push(t);
      return t;
    }) as typeof setInterval);
    try {
      manager = createMcpManager(config({ a: dyn({ lifecycle: { idleTimeoutMs: 10_000 } }), b: dyn() }), {
        reapIntervalMs: 10,
        probeIntervalMs: 10,
        collisionPolicy: "prefix",
      });
      await manager.start();
      await manager.callTool("a.alpha");
      const pids = manager.listServers().map((s) => s.pid as number);
      const pending = () => created.filter((t) => !(t as unknown as { _destroyed: boolean })._destroyed).length;
      expect(pending()).toBeGreaterThanOrEqual(2);
      await manager.stop();
      expect(pending()).toBe(0);
      for (const pid of pids) expect(alive(pid)).toBe(false);
    } finally {
      spyT.mockRestore();
      spyI.mockRestore();
    }
    const after = await manager.callTool("a.alpha");
    expect(after.ok === false && after.failure.kind).toBe("unavailable");
  });
});

describe("protocol era per server", () => {
  it("passes the era to the stdio client: auto falls back to legacy, a 2026 pin fails on a legacy-only server", async () => {
    manager = createMcpManager(config({ auto: dyn({ era: "auto" }), pinned: dyn({ era: "2026-07-28", connectTimeoutMs: 60_000 }) }), {
      collisionPolicy: "prefix",
    });
    await manager.start();
    expect(status("auto")?.connected).toBe(true);
    expect(status("auto")?.protocolVersion).not.toBe("2026-07-28");
    expect(status("pinned")?.connected).toBe(false);
    expect(status("pinned")?.error).toMatch(/does not speak 2026-07-28/);
  });
});

describe("stop during start, enable and disable", () => {
  it("stop() while servers are still connecting leaves no child process", async () => {
    manager = createMcpManager(config({ a: dyn(), b: dyn(), c: dyn() }), { collisionPolicy: "prefix" });
    const { execFileSync } = await import("node:child_process");
    const children = () =>
      execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" })
        .split("\n")
        .filter((l) => l.includes("dynamic-server.mjs"));
    const starting = manager.start();
    await vi.waitFor(() => expect(children().length).toBeGreaterThan(0), { timeout: 30_000 });
    await manager.stop();
    await starting;
    expect(children()).toEqual([]);
    expect(manager.tools()).toEqual([]);
  });

  it("applyConfig disables and re-enables a server in place", async () => {
    manager = createMcpManager(config({ dyn: dyn() }));
    await manager.start();
    const pid = status()?.pid as number;
    expect(await manager.applyConfig(config({ dyn: dyn({ enabled: false }) }))).toEqual([]);
    expect(status()?.state).toBe("disabled");
    expect(manager.tools()).toEqual([]);
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 30_000 });
    const refused = await manager.callTool("dyn.alpha");
    expect(refused.ok === false && refused.failure.message).toMatch(/disabled/);
    // Retrying cannot reach a disabled server: replan (it was an invented transport fault, retry, before).
    expect(refused).toMatchObject({
      ok: false,
      failure: { kind: "unavailable", reason: "server_disabled", source: "local", recovery: { action: "replan" } },
    });
    await manager.applyConfig(config({ dyn: dyn() }));
    expect(status()?.connected).toBe(true);
    expect((await manager.callTool("dyn.alpha")).ok).toBe(true);
  });
});
