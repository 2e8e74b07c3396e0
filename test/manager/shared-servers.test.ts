/**
 * A shared server whose tool list changes, over the manager with two principals: the real stdio
 * test server adds tools when asked (the SDK then sends notifications/tools/list_changed), and
 * every principal's runtime must follow, including principals built before the change; the drift
 * is told to each live principal's `onChange`, and each principal's `approve` decides its own
 * calls to the shared server.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Principal } from "../../packages/runtime/src/caller.js";
import type { CallApprovalRequest, McpManager } from "../../packages/runtime/src/manager.js";
import { createMcpManager, parseMcpConfig } from "../../packages/runtime/src/manager.js";
import { DYNAMIC, NODE } from "./helpers.js";

const alice: Principal = { id: "alice@example.com" };
const bob: Principal = { id: "bob@example.com" };
const carol: Principal = { id: "carol@example.com" };

let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});

const textOf = (r: { ok: boolean; value?: unknown }) => (r.ok ? JSON.stringify(r.value) : "");

describe("a shared server's list_changed", () => {
  it("reaches every principal's runtime and tools, is told to each live principal, and each principal's approve decides its calls", async () => {
    const drift: string[] = [];
    const asked: string[] = [];
    const told: string[] = [];
    const config = parseMcpConfig(JSON.stringify({ mcpServers: { notes: { command: NODE, args: [DYNAMIC] } } }));
    manager = createMcpManager(config, {
      listChangedDebounceMs: 10,
      onChange: (server, diff) => told.push(`${server} +${diff.added.join(",")}`),
      principals: {
        sharedServers: ["notes"],
        onChange: (p, server, diff) => drift.push(`${p.id} ${server} +${diff.added.join(",")}`),
        // Bob may not call the new tool; everything else is allowed.
        approve: (p, request: CallApprovalRequest) => {
          asked.push(`${p.id} ${request.id}`);
          return !(p.id === bob.id && request.name === "beta");
        },
      },
    });
    await manager.start();
    const a = await manager.forPrincipal(alice);
    const b = await manager.forPrincipal(bob);
    for (const m of [a, b]) {
      expect(m.runtime.lookup("notes.alpha")).toBeDefined();
      expect(m.runtime.lookup("notes.beta")).toBeUndefined();
    }
    // Alice's call makes the shared server add tools; its list_changed reaches the one shared connection.
    expect(textOf(await a.runtime.execute({ tool: "notes.add-tools", arguments: {} }))).toContain("added");
    await vi.waitFor(() => expect(a.runtime.lookup("notes.beta")).toBeDefined(), { timeout: 20_000, interval: 20 });
    // Bob's runtime, built before the change, follows too; so do his manager's tools.
    expect(b.runtime.lookup("notes.beta")).toBeDefined();
    expect(b.tools().map((t) => t.id)).toContain("notes.beta");
    expect(b.runtime.specs().filter((s) => s.id === "notes.beta")).toHaveLength(1);
    // A principal built after the change sees the new list from the start.
    const c = await manager.forPrincipal(carol);
    expect(c.runtime.lookup("notes.secret-two")).toBeDefined();
    // The drift is told to the application once and to each live principal once.
    expect(told.filter((t) => t.includes("beta"))).toEqual(["notes +beta,secret-two"]);
    expect(drift.filter((d) => d.includes("beta")).sort()).toEqual([
      `${alice.id} notes +beta,secret-two`,
      `${bob.id} notes +beta,secret-two`,
    ]);
    // Each principal's approve hook decides that principal's calls to the shared server.
    const forAlice = await a.runtime.execute({ tool: "notes.beta", arguments: {} });
    expect(textOf(forAlice)).toContain("beta");
    const forBob = await b.runtime.execute({ tool: "notes.beta", arguments: {} });
    expect(forBob.ok).toBe(false);
    expect(!forBob.ok && forBob.failure.reason).toBe("not_approved");
    const viaManager = await b.callTool("notes.beta");
    expect(!viaManager.ok && viaManager.failure.reason).toBe("not_approved");
    expect(asked).toEqual([`${alice.id} notes.add-tools`, `${alice.id} notes.beta`, `${bob.id} notes.beta`, `${bob.id} notes.beta`]);
  });

  it("a principal closed by the pool stops following; reopened, it sees the current list", async () => {
    const config = parseMcpConfig(JSON.stringify({ mcpServers: { notes: { command: NODE, args: [DYNAMIC] } } }));
    let now = 0;
    manager = createMcpManager(config, {
      listChangedDebounceMs: 10,
      principals: { sharedServers: ["notes"], idleMs: 1_000, now: () => now },
    });
    await manager.start();
    const a = await manager.forPrincipal(alice);
    const b = await manager.forPrincipal(bob);
    now = 5_000;
    await (await manager.forPrincipal(alice)).callTool("notes.alpha"); // alice is used, bob is idle
    expect(await manager.reapPrincipals()).toBe(1);
    expect(await a.callTool("notes.add-tools")).toMatchObject({ ok: true });
    await vi.waitFor(() => expect(a.runtime.lookup("notes.beta")).toBeDefined(), { timeout: 20_000, interval: 20 });
    // Bob's closed manager was detached from the mirror: it did not receive the change.
    expect(b.runtime.lookup("notes.beta")).toBeUndefined();
    const reopened = await manager.forPrincipal(bob);
    expect(reopened.runtime.lookup("notes.beta")).toBeDefined();
  });
});
