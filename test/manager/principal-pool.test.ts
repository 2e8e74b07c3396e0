/**
 * The pool of principals: the LRU bound and the idle reaper close a principal's connections (its
 * stdio process really exits), never while one of its calls is in flight, with an injected clock
 * (no sleeps, no wall-clock thresholds); and one process serves 1,000 principals against a real
 * bearer-checking Streamable HTTP server on 127.0.0.1, bounded.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryTokenStore } from "../../packages/runtime/src/auth.js";
import type { Principal } from "../../packages/runtime/src/caller.js";
import { createMcpManager, type McpManager, parseMcpConfig } from "../../packages/runtime/src/manager.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { startBearerServer } from "./fixtures/bearer-server.js";
import { alive, DYNAMIC, NODE } from "./helpers.js";

let manager: McpManager | undefined;
let leaks: LeakCheck;
beforeAll(() => {
  leaks = createLeakCheck();
});
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

const user = (n: number): Principal => ({ id: `user-${n}` });
const stdio = () => parseMcpConfig(JSON.stringify({ mcpServers: { notes: { command: NODE, args: [DYNAMIC] } } }));
const textOf = (r: { ok: boolean; value?: unknown }) => (r.ok ? String(r.value) : JSON.stringify(r));

async function pidOf(m: McpManager, p: Principal): Promise<number> {
  const answer = await (await m.forPrincipal(p)).callTool("notes.alpha");
  return Number(/from (\d+)/.exec(textOf(answer))?.[1]);
}

describe("the LRU bound", () => {
  it("closes the least recently used principal (its process exits) before a new one opens", async () => {
    manager = createMcpManager(stdio(), { principals: { maxPrincipals: 2, idleMs: 0 } });
    const one = await pidOf(manager, user(1));
    const two = await pidOf(manager, user(2));
    // user 1 is used again, so user 2 is now the least recently used.
    expect(await pidOf(manager, user(1))).toBe(one);
    const three = await pidOf(manager, user(3));
    expect(manager.livePrincipals()).toBe(2);
    expect(alive(two)).toBe(false);
    expect(alive(one)).toBe(true);
    expect(alive(three)).toBe(true);
    // user 2 comes back with a new process of its own.
    const again = await pidOf(manager, user(2));
    expect(again).not.toBe(two);
    expect(alive(one)).toBe(false);
    expect(manager.livePrincipals()).toBe(2);
  });

  it("never closes a principal with a call in flight: the bound waits for it", async () => {
    manager = createMcpManager(stdio(), { principals: { maxPrincipals: 1, idleMs: 0 } });
    const busy = await manager.forPrincipal(user(1));
    const pid = Number(/from (\d+)/.exec(textOf(await busy.callTool("notes.alpha")))?.[1]);
    const stop = new AbortController();
    const sleeping = busy.callTool("notes.sleep", { ms: 120_000 }, { signal: stop.signal });
    await pidOf(manager, user(2));
    // Over the bound while user 1 is busy, rather than failing user 1's call halfway.
    expect(manager.livePrincipals()).toBe(2);
    expect(alive(pid)).toBe(true);
    stop.abort();
    expect((await sleeping).ok).toBe(false);
    await pidOf(manager, user(3));
    expect(manager.livePrincipals()).toBe(1);
    expect(alive(pid)).toBe(false);
  });
});

describe("the idle reaper", () => {
  it("closes principals idle for idleMs by the injected clock; a kept manager reopens on its next call", async () => {
    let clock = 0;
    manager = createMcpManager(stdio(), { principals: { idleMs: 1_000, now: () => clock } });
    const first = await manager.forPrincipal(user(1));
    const pid1 = await pidOf(manager, user(1));
    clock = 600;
    const pid2 = await pidOf(manager, user(2));
    clock = 999;
    expect(await manager.reapPrincipals()).toBe(0);
    clock = 1_000;
    expect(await manager.reapPrincipals()).toBe(1);
    expect(alive(pid1)).toBe(false);
    expect(alive(pid2)).toBe(true);
    expect(manager.livePrincipals()).toBe(1);
    // The manager object user 1 kept still works: its next call reopens the principal.
    const reopened = Number(/from (\d+)/.exec(textOf(await first.callTool("notes.alpha")))?.[1]);
    expect(reopened).toBeGreaterThan(0);
    expect(reopened).not.toBe(pid1);
    expect(manager.livePrincipals()).toBe(2);
  });

  it("never reaps a principal with a call in flight", async () => {
    let clock = 0;
    manager = createMcpManager(stdio(), { principals: { idleMs: 1_000, now: () => clock } });
    const busy = await manager.forPrincipal(user(1));
    const stop = new AbortController();
    const sleeping = busy.callTool("notes.sleep", { ms: 120_000 }, { signal: stop.signal });
    clock = 10_000;
    expect(await manager.reapPrincipals()).toBe(0);
    stop.abort();
    await sleeping;
    clock = 20_000;
    expect(await manager.reapPrincipals()).toBe(1);
  });
});

// 200 principals keep this file short on a busy CI machine; `npm run principals:1000` runs the
// same test with 1,000 (TW_PRINCIPALS), once, outside the suite.
describe("many principals in one process", () => {
  it("each call carries its own principal's token, and open connections stay bounded", async () => {
    const N = Number(process.env.TW_PRINCIPALS ?? 200);
    const MAX = Math.max(5, Math.floor(N / 20));
    const tokens = new Map<string, string>();
    for (let i = 0; i < N; i++) tokens.set(`tok-${i}-${(i * 7919).toString(36)}`, user(i).id);
    const server = await startBearerServer(tokens);
    const tokenOf = new Map([...tokens].map(([token, id]) => [id, token]));
    try {
      // The stateless revision and lazy connects keep this test short (per-session isolation over the
      // legacy era is proven in principals.test.ts); `npm run bench`-style numbers belong to the load test.
      manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url, era: "2026-07-28" } } })), {
        lazy: true,
        principals: {
          maxPrincipals: MAX,
          tokenStoreFor: (p) => {
            const store = createMemoryTokenStore();
            store.saveTokens(server.url, { accessToken: tokenOf.get(p.id) as string, tokenType: "Bearer", issuer: "https://as.example" });
            return store;
          },
        },
      });
      const m = manager;
      let wrong = 0;
      let maxLive = 0;
      // 10 workers at a time, each principal once: a bounded loop, a bounded pool.
      let next = 0;
      const worker = async () => {
        while (next < N) {
          const p = user(next++);
          const answer = await (await m.forPrincipal(p)).callTool("crm.whoami", { principal: p.id });
          if (textOf(answer) !== p.id) wrong++;
          maxLive = Math.max(maxLive, m.livePrincipals());
        }
      };
      await Promise.all(Array.from({ length: 10 }, worker));
      expect(wrong).toBe(0);
      expect(server.calls).toHaveLength(N);
      expect(server.calls.filter((c) => c.user !== c.named)).toEqual([]);
      expect(maxLive).toBeLessThanOrEqual(MAX + 10);
      expect(m.livePrincipals()).toBeLessThanOrEqual(MAX);
    } finally {
      await manager?.stop();
      manager = undefined;
      await server.close();
    }
  });
});
