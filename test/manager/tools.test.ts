/**
 * list_changed refresh with allow/deny lists kept, collision policies, risk levels from
 * annotations, and the approval hook, against a small SDK-built stdio server of our own.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createMcpManager, type McpManager, parseMcpConfig, type ToolsDiff } from "../../packages/runtime/src/manager.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { DYNAMIC, NODE } from "./helpers.js";

let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
});
const config = (servers: object, extra: object = {}) => parseMcpConfig(JSON.stringify({ mcpServers: servers, ...extra }));
const dyn = (more: object = {}) => ({ command: NODE, args: [DYNAMIC], ...more });

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

describe("list_changed", () => {
  it("refreshes after the debounce, shows the new tool, and keeps the denied ones hidden", async () => {
    const changes: [string, ToolsDiff][] = [];
    manager = createMcpManager(config({ dyn: dyn({ denyTools: ["secret*"] }) }), {
      listChangedDebounceMs: 20,
      onChange: (server, diff) => changes.push([server, diff]),
    });
    await manager.start();
    const names = () => manager?.tools().map((t) => t.name) ?? [];
    expect(names()).toContain("alpha");
    expect(names()).not.toContain("secret");
    expect(manager.listServers()[0]?.hiddenToolCount).toBe(1);
    changes.length = 0;
    const added = await manager.callTool("dyn.add-tools");
    expect(added.ok).toBe(true);
    await vi.waitFor(() => expect(names()).toContain("beta"), { timeout: 30_000 });
    expect(names()).not.toContain("secret");
    expect(names()).not.toContain("secret-two");
    expect(manager.listServers()[0]?.hiddenToolCount).toBe(2);
    // One debounced refresh for the SDK's burst of notifications, with exactly the visible change.
    expect(changes).toEqual([["dyn", { added: ["beta"], removed: [], changed: [] }]]);
    const beta = await manager.callTool("dyn.beta");
    expect(beta.ok && beta.value).toBe("beta");
    const hidden = await manager.callTool("dyn.secret-two");
    expect(hidden.ok === false && hidden.failure.message).toMatch(/hidden by the allow\/deny lists/);
    // A local reason: no JSON-RPC code is made up, and no arguments can make the tool callable.
    expect(hidden).toMatchObject({
      ok: false,
      failure: { kind: "invalid_call", reason: "tool_hidden", source: "local", recovery: { action: "replan" } },
    });
    expect(hidden.ok || hidden.failure.rpc).toBeUndefined();
  });

  it("allowTools is an allowlist with * patterns", async () => {
    manager = createMcpManager(config({ dyn: dyn({ allowTools: ["a*", "echo"], denyTools: ["add-tools"] }) }));
    await manager.start();
    expect(
      manager
        .tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(["alpha", "echo"]);
    expect(manager.listServers()[0]?.warnings).toEqual([]);
  });

  it("warns when the lists hide every tool instead of reporting a silent success", async () => {
    manager = createMcpManager(config({ dyn: dyn({ allowTools: ["no-such-tool"] }) }));
    const [status] = await manager.start();
    expect(status?.connected).toBe(true);
    expect(status?.toolCount).toBe(0);
    expect(status?.warnings).toEqual(["allowTools/denyTools hide every tool of this server"]);
  });
});

describe("collision policy", () => {
  const pair = { one: dyn(), two: dyn() };
  it("prefix-on-collision prefixes only the later server's colliding names, in config order", async () => {
    manager = createMcpManager(config(pair));
    await manager.start();
    const one = manager.tools().find((t) => t.id === "one.alpha");
    const two = manager.tools().find((t) => t.id === "two.alpha");
    expect(one?.exposedName).toBe("alpha");
    expect(two?.exposedName).toBe("two_alpha");
    const viaPrefixed = await manager.callTool("two_alpha");
    const pidTwo = manager.listServers().find((s) => s.name === "two")?.pid;
    expect(viaPrefixed.ok && viaPrefixed.value).toBe(`alpha from ${pidTwo}`);
  });

  it("prefix always prefixes", async () => {
    manager = createMcpManager(config(pair, { collisionPolicy: "prefix" }));
    await manager.start();
    expect(manager.tools().every((t) => t.exposedName === `${t.server}_${t.name}`)).toBe(true);
  });

  it("error rejects the colliding server with a message naming both", async () => {
    manager = createMcpManager(config(pair), { collisionPolicy: "error" });
    const statuses = await manager.start();
    expect(statuses.find((s) => s.name === "one")?.connected).toBe(true);
    const two = statuses.find((s) => s.name === "two");
    expect(two?.state).toBe("failed");
    expect(two?.error).toMatch(/collision: "alpha" of server "two" is already exposed by server "one"/);
    expect(two?.pid).toBeUndefined();
    expect(manager.tools().every((t) => t.server === "one")).toBe(true);
  });

  it("long server names still give provider-safe, unique names", async () => {
    const long = "s".repeat(70);
    manager = createMcpManager(config({ [long]: dyn(), "x y": dyn() }), { collisionPolicy: "prefix" });
    await manager.start();
    const names = manager.tools().map((t) => t.exposedName);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("x_y_alpha");
  });
});

describe("risk and approval", () => {
  it("derives risk from annotations and marks untrusted annotations as hints", async () => {
    manager = createMcpManager(config({ dyn: dyn(), trusted: dyn({ trusted: true }) }), { collisionPolicy: "prefix" });
    await manager.start();
    const risk = (id: string) => manager?.tools().find((t) => t.id === id)?.risk;
    expect(risk("dyn.alpha")).toMatchObject({ level: "low", concurrentSafe: true, hint: true });
    expect(risk("dyn.wipe")).toMatchObject({ level: "high", concurrentSafe: false, destructive: true });
    expect(risk("dyn.echo")).toMatchObject({ level: "medium", concurrentSafe: false });
    expect(risk("trusted.alpha")?.hint).toBe(false);
  });

  it("asks the approval hook, refuses when it says no, and skips it for autoApprove", async () => {
    const asked: string[] = [];
    manager = createMcpManager(config({ dyn: dyn(), auto: dyn({ autoApprove: true }), some: dyn({ autoApprove: ["wipe"] }) }), {
      collisionPolicy: "prefix",
      approve: (request) => {
        asked.push(`${request.id}:${request.risk.level}`);
        return request.risk.level !== "high";
      },
    });
    await manager.start();
    const denied = await manager.callTool("dyn.wipe");
    expect(denied.ok).toBe(false);
    if (!denied.ok) {
      expect(denied.failure.kind).toBe("canceled");
      expect(denied.failure.message).toMatch(/not approved/);
      expect(denied.failure).toMatchObject({ reason: "not_approved", source: "local", recovery: { action: "finish" } });
    }
    const allowed = await manager.callTool("dyn.alpha");
    expect(allowed.ok).toBe(true);
    expect((await manager.callTool("auto.wipe")).ok).toBe(true);
    expect((await manager.callTool("some.wipe")).ok).toBe(true);
    expect((await manager.callTool("some.alpha")).ok).toBe(true);
    expect(asked).toEqual(["dyn.wipe:high", "dyn.alpha:low", "some.alpha:low"]);
  });

  it("isError results are domain_rejection failures that keep the content", async () => {
    manager = createMcpManager(config({ dyn: dyn() }));
    await manager.start();
    const result = await manager.callTool("dyn.fail");
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.failure.kind).toBe("domain_rejection");
      expect(result.failure.content).toEqual([{ type: "text", text: "nope" }]);
      expect(result.failure.tool).toBe("dyn.fail");
    }
  });
});
