/**
 * One manager, many principals: every path by which one user's state could reach another is tried
 * against real servers. A real Streamable HTTP server on 127.0.0.1 checks bearer tokens and records
 * which user's token came with which session; the real OAuth provider reads each principal's token
 * from its own token store. A stdio server holding a per-user secret runs once per principal.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createAiSdkTools } from "@toolwright/ai-sdk";
import { createCodeModeTools } from "@toolwright/code-mode";
import { createLangChainTools } from "@toolwright/langchain";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryTokenStore, type TokenStore } from "../../packages/runtime/src/auth.js";
import type { Principal } from "../../packages/runtime/src/caller.js";
import {
  type CallRecord,
  createDurableRun,
  createInMemoryDurableEngine,
  type DurableCall,
  runCallSteps,
  sendCall,
} from "../../packages/runtime/src/durable.js";
import type { RuntimeEvent } from "../../packages/runtime/src/index.js";
import { sharedValidatorStats } from "../../packages/runtime/src/manager/shared-validators.js";
import { createApprovalStore, createMcpManager, type McpManager, parseMcpConfig } from "../../packages/runtime/src/manager.js";
import { createResultBudget, createResultStore } from "../../packages/runtime/src/providers.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { type BearerServer, startBearerServer } from "./fixtures/bearer-server.js";
import { alive, DYNAMIC, NODE, tempDir } from "./helpers.js";

const alice: Principal = { id: "alice@example.com", label: "Alice" };
const bob: Principal = { id: "bob@example.com", label: "Bob" };
const TOKENS = new Map([
  ["tok-alice-7f3a", alice.id],
  ["tok-bob-91c2", bob.id],
]);
const tokenOf = (p: Principal) => [...TOKENS].find(([, user]) => user === p.id)?.[0];

let server: BearerServer;
let manager: McpManager | undefined;
let leaks: LeakCheck;
beforeAll(async () => {
  leaks = createLeakCheck();
  server = await startBearerServer(TOKENS);
});
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});
afterAll(async () => {
  await server.close();
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

/** Each principal's own token store, holding that principal's token for the server only. */
function storesFor(url: string): (p: Principal) => TokenStore {
  const stores = new Map<string, TokenStore>();
  return (p) => {
    let store = stores.get(p.id);
    if (!store) {
      store = createMemoryTokenStore();
      const token = tokenOf(p);
      if (token) void store.saveTokens(url, { accessToken: token, tokenType: "Bearer", issuer: "https://as.example" });
      stores.set(p.id, store);
    }
    return store;
  };
}

const textOf = (r: { ok: boolean; value?: unknown }) => (r.ok ? String(r.value) : "");

describe("two principals against one HTTP server", () => {
  it.each(["legacy", "2026-07-28"])(
    "%s: sends each principal's own token on its own session, and calls answer for the right user",
    async (era) => {
      const events: RuntimeEvent[] = [];
      const sessionsBefore = server.sessionUsers.size;
      manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url, era } } })), {
        principals: { tokenStoreFor: storesFor(server.url), runtime: { onEvent: (e) => events.push(e) } },
      });
      const before = server.calls.length;
      const [a, b] = await Promise.all([manager.forPrincipal(alice), manager.forPrincipal(bob)]);
      // Interleaved calls: one connection per principal, never a token of the other on it.
      const answers = await Promise.all(
        [a, b, a, b, b, a].map((m) => m.callTool("crm.whoami", { principal: m.principal.id }).then((r) => [m.principal.id, textOf(r)])),
      );
      for (const [who, said] of answers) expect(said).toBe(who);
      // Through each principal's runtime too (what provider adapters call).
      const viaRuntime = await b.runtime.execute({ tool: "crm.whoami", arguments: { principal: bob.id } });
      expect(textOf(viaRuntime)).toBe(bob.id);
      const calls = server.calls.slice(before);
      expect(calls).toHaveLength(7);
      for (const call of calls) expect(call.user).toBe(call.named);
      // Sessions (legacy era): one per principal, each only ever carrying its own user's token.
      if (era === "legacy") expect(server.sessionUsers.size - sessionsBefore).toBe(2);
      for (const [, users] of server.sessionUsers) expect(users.size).toBe(1);
      // Telemetry carries neither principal's id nor token.
      const seen = JSON.stringify(events);
      expect(events.length).toBeGreaterThan(0);
      for (const secret of [alice.id, bob.id, ...TOKENS.keys()]) expect(seen).not.toContain(secret);
      expect(manager.livePrincipals()).toBe(2);
    },
  );

  it("a principal without a grant fails naming the server, with no one's token in the failure, and others are untouched", async () => {
    const mallory: Principal = { id: "mallory@example.com" };
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url } } })), {
      principals: { tokenStoreFor: storesFor(server.url) },
    });
    const m = await manager.forPrincipal(mallory);
    const failed = await m.callTool("crm.whoami", {});
    expect(failed.ok).toBe(false);
    // Only the user can grant access: auth_required, not a server that is down.
    expect(!failed.ok && failed.failure).toMatchObject({ kind: "auth_required", recovery: { action: "finish" }, server: "crm" });
    const text = JSON.stringify(failed);
    expect(text).toContain("crm");
    for (const secret of [alice.id, bob.id, mallory.id, ...TOKENS.keys()]) expect(text).not.toContain(secret);
    const a = await manager.forPrincipal(alice);
    expect(textOf(await a.callTool("crm.whoami", {}))).toBe(alice.id);
  });

  it("argument validators are compiled once for every principal, and one principal's refused arguments reach no other", async () => {
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url } } })), {
      principals: { tokenStoreFor: storesFor(server.url) },
    });
    const a = await manager.forPrincipal(alice);
    const callsBefore = server.calls.length;
    // Alice's own property name, in arguments the schema refuses: checked here, never sent.
    const refused = await a.callTool("crm.whoami", { principal: 42, "alice-private-field": "x" });
    expect(!refused.ok && refused.failure).toMatchObject({ kind: "invalid_call", server: "crm" });
    expect(server.calls.length).toBe(callsBefore);
    const afterAlice = sharedValidatorStats();
    const b = await manager.forPrincipal(bob);
    const answer = await b.callTool("crm.whoami", { principal: bob.id });
    expect(textOf(answer)).toBe(bob.id);
    const bad = await b.callTool("crm.whoami", { principal: 7 });
    expect(!bad.ok && bad.failure.kind).toBe("invalid_call");
    // Bob's failure names Bob's call only: nothing of Alice's refused call is left in the shared validator.
    expect(JSON.stringify(bad)).not.toContain("alice-private-field");
    expect(JSON.stringify(bad)).not.toContain("42");
    // Bob's manager loaded no ajv and compiled no schema: Alice's compiled validator served him.
    expect(sharedValidatorStats()).toEqual(afterAlice);
  });

  it("a read_result handle of one principal reads nothing for another, even through one shared store", async () => {
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url } } })), {
      principals: { tokenStoreFor: storesFor(server.url) },
    });
    const store = createResultStore();
    const a = createResultBudget((await manager.forPrincipal(alice)).runtime, { store, toolTokens: 500 });
    const b = createResultBudget((await manager.forPrincipal(bob)).runtime, { store, toolTokens: 500 });
    const big = await a.execute({ tool: "crm.big", arguments: { principal: alice.id } });
    const handle = /read_result \{"handle":"([^"]+)"/.exec(textOf(big))?.[1] as string;
    expect(handle).toMatch(/^res_/);
    const read = { tool: "read_result", arguments: { handle, offset: 0, limit: 2000 } };
    expect(textOf(await a.execute(read))).toContain(`secret report of ${alice.id}`);
    const stolen = textOf(await b.execute(read));
    expect(stolen).not.toContain("secret report");
    expect(stolen).toContain("No result is held");
    // A call naming the principal itself wins over the runner's.
    expect(textOf(await b.execute(read, { principal: alice }))).toContain("secret report");
  });

  it("the ai-sdk and langchain adapters over a principal's runtime call with that principal's token", async () => {
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url } } })), {
      principals: { tokenStoreFor: storesFor(server.url) },
    });
    const before = server.calls.length;
    const aiTools = createAiSdkTools((await manager.forPrincipal(alice)).runtime);
    const name = Object.keys(aiTools).find((n) => n.includes("whoami")) as string;
    const viaAi = await aiTools[name]?.execute?.({ principal: alice.id }, { toolCallId: "c1", messages: [] });
    expect(JSON.stringify(viaAi)).toContain(alice.id);
    const lcTools = createLangChainTools((await manager.forPrincipal(bob)).runtime);
    const whoami = lcTools.find((t) => t.name.includes("whoami"));
    expect(String(await whoami?.invoke({ principal: bob.id }))).toContain(bob.id);
    const calls = server.calls.slice(before);
    expect(calls.map((c) => c.user)).toEqual([alice.id, bob.id]);
    // Two users' tool sets sharing one result store: bob's read_result cannot page alice's result.
    const store = createResultStore();
    const mine = createAiSdkTools((await manager.forPrincipal(alice)).runtime, { resultBudget: { store, toolTokens: 500 } });
    const theirs = createAiSdkTools((await manager.forPrincipal(bob)).runtime, { resultBudget: { store, toolTokens: 500 } });
    const big = Object.keys(mine).find((n) => n.includes("big")) as string;
    const held = JSON.stringify(await mine[big]?.execute?.({ principal: alice.id }, { toolCallId: "c2", messages: [] }));
    const handle = /res_\d+/.exec(held)?.[0] as string;
    expect(handle).toBeDefined();
    const args = { handle, offset: 0, limit: 500 };
    expect(JSON.stringify(await mine.read_result?.execute?.(args, { toolCallId: "c3", messages: [] }))).toContain("secret report");
    const stolen = JSON.stringify(await theirs.read_result?.execute?.(args, { toolCallId: "c4", messages: [] }));
    expect(stolen).not.toContain("secret report");
    expect(stolen).toContain("No result is held");
  });

  it("code mode: a held answer of one principal reads nothing for another, through one plug-in", async () => {
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url } } })), {
      principals: { tokenStoreFor: storesFor(server.url) },
    });
    const plugin = createCodeModeTools({ resultBudget: { toolTokens: 300, store: createResultStore() } });
    const a = plugin.wrap((await manager.forPrincipal(alice)).runtime);
    const b = plugin.wrap((await manager.forPrincipal(bob)).runtime);
    const code = 'return "answer of alice " + "y".repeat(6000);';
    const answer = textOf(await a.execute({ tool: "toolwright.run_code", arguments: { code } }));
    const handle = /read_result \{"handle":"([^"]+)"/.exec(answer)?.[1] as string;
    expect(handle).toMatch(/^res_/);
    const read = { tool: "toolwright.read_result", arguments: { handle, offset: 0, limit: 500 } };
    expect(textOf(await a.execute(read))).toContain("answer of alice");
    expect(textOf(await b.execute(read))).toContain("No result is held");
  });

  it("a durable run of a principal records whose calls they are, and sends them with that principal's token", async () => {
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url } } })), {
      principals: { tokenStoreFor: storesFor(server.url) },
    });
    const b = await manager.forPrincipal(bob);
    const engine = createInMemoryDurableEngine();
    const dispatched: DurableCall[] = [];
    const said = await engine.run("run-bob", async (ctx) => {
      const run = createDurableRun(
        {
          ...ctx,
          // As an engine that runs calls elsewhere would: the recorded call alone says whose it is.
          async dispatch(call): Promise<CallRecord> {
            dispatched.push(call);
            const owner = await (manager as McpManager).forPrincipal({ id: call.principal as string });
            const caller = owner.getClient(call.server);
            if (!caller) throw new Error("no caller");
            return runCallSteps(ctx, call, (c) => sendCall(caller, c));
          },
        },
        { runtime: b.runtime },
      );
      return textOf(await run.execute({ tool: "crm.whoami", arguments: { principal: bob.id } }));
    });
    expect(dispatched.map((c) => c.principal)).toEqual([bob.id]);
    expect(said).toBe(bob.id);
  });

  it("a principal's manager refuses to nest, and a malformed principal is refused without echoing it", async () => {
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { crm: { url: server.url } } })), { principals: {} });
    const a = await manager.forPrincipal(alice);
    await expect(a.forPrincipal(bob)).rejects.toThrow(/already one principal's manager/);
    await expect(manager.forPrincipal({ id: "" })).rejects.toThrow(/must not be empty/);
    await expect(manager.forPrincipal({ id: 42 } as unknown as Principal)).rejects.toThrow(/must be a string/);
    const plain = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: {} })));
    await expect(plain.forPrincipal(alice)).rejects.toThrow(/without options.principals/);
    await plain.stop();
  });
});

/** The child's environment, from /proc (Linux): proves which secret a process really holds. */
function envOf(pid: number): string {
  return readFileSync(`/proc/${pid}/environ`, "utf8");
}

describe("per-principal approvals", () => {
  it("an approval of one principal releases tools for that principal only", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const config = parseMcpConfig(JSON.stringify({ mcpServers: { notes: { command: NODE, args: [DYNAMIC] } } }));
      manager = createMcpManager(config, {
        principals: {
          approvalsFor: async (p) => createApprovalStore({ path: join(dir, `${encodeURIComponent(p.id)}.json`), newTools: "hold" }),
        },
      });
      const a = await manager.forPrincipal(alice);
      const b = await manager.forPrincipal(bob);
      expect(a.heldTools().length).toBeGreaterThan(0);
      expect((await a.callTool("notes.alpha")).ok).toBe(false);
      await a.approve("notes", "alpha");
      expect(textOf(await a.callTool("notes.alpha"))).toContain("alpha from");
      expect((await b.callTool("notes.alpha")).ok).toBe(false);
      expect(b.heldTools().some((t) => t.name === "alpha")).toBe(true);
      expect(readFileSync(join(dir, `${encodeURIComponent(alice.id)}.json`), "utf8")).toContain("alpha");
    } finally {
      await manager?.stop();
      manager = undefined;
      cleanup();
    }
  });
});

describe("a stdio server holding a per-user secret", () => {
  it("runs once per principal with that principal's secret, and never serves another principal", async () => {
    const config = parseMcpConfig(JSON.stringify({ mcpServers: { notes: { command: NODE, args: [DYNAMIC] } } }));
    const drift: string[] = [];
    manager = createMcpManager(config, {
      principals: {
        configFor: (p, _server, entry) => ({
          ...entry,
          env: { ...(entry.transport === "stdio" ? entry.env : {}), NOTES_SECRET: `secret-of-${p.id}` },
        }),
        onChange: (p, server, diff) => drift.push(`${p.id} ${server} +${diff.added.join(",")}`),
      },
    });
    const pidOf = async (p: Principal) => {
      const m = await manager?.forPrincipal(p);
      return Number(/from (\d+)/.exec(textOf((await m?.callTool("notes.alpha")) ?? { ok: false }))?.[1]);
    };
    const a1 = await pidOf(alice);
    const b1 = await pidOf(bob);
    const a2 = await pidOf(alice);
    expect(a1).toBeGreaterThan(0);
    expect(a2).toBe(a1);
    expect(b1).not.toBe(a1);
    expect(envOf(a1)).toContain(`NOTES_SECRET=secret-of-${alice.id}`);
    expect(envOf(a1)).not.toContain(bob.id);
    expect(envOf(b1)).toContain(`NOTES_SECRET=secret-of-${bob.id}`);
    // Drift (a list_changed of alice's server) is reported to alice only, and only her tools change.
    const a = await (manager as McpManager).forPrincipal(alice);
    const b = await (manager as McpManager).forPrincipal(bob);
    await a.callTool("notes.add-tools");
    await a.refreshTools("notes");
    expect(drift.join("\n")).toContain(`${alice.id} notes +`);
    // Bob's report is of his own connect only; the change is reported to alice alone.
    expect(drift.filter((d) => d.includes("beta"))).toEqual([`${alice.id} notes +beta,secret-two`]);
    expect(a.tools().some((t) => t.name === "beta")).toBe(true);
    expect(b.tools().some((t) => t.name === "beta")).toBe(false);
    await manager.stop();
    manager = undefined;
    expect(alive(a1)).toBe(false);
    expect(alive(b1)).toBe(false);
  });

  it("a server declared shared runs once for everybody and gets no principal's secret", async () => {
    const config = parseMcpConfig(JSON.stringify({ mcpServers: { notes: { command: NODE, args: [DYNAMIC] } } }));
    let asked = 0;
    manager = createMcpManager(config, {
      principals: {
        sharedServers: ["notes"],
        configFor: (_p, _s, entry) => {
          asked++;
          return entry;
        },
      },
    });
    const pids = new Set<string>();
    for (const p of [alice, bob, alice]) pids.add(textOf(await (await manager.forPrincipal(p)).callTool("notes.alpha")));
    expect(pids.size).toBe(1);
    expect(asked).toBe(0);
    expect(() => createMcpManager(config, { principals: { sharedServers: ["nope"] } })).toThrow(/unknown server "nope"/);
  });
});
