/**
 * Classes 1 and 2 of #18, runtime side. Tool names that change how an object behaves (`then`,
 * `toJSON`, `constructor`, `__proto__`...) are plain data in the manager's registry and the runtime
 * registry: every such tool is registered and callable, and nothing becomes thenable. Sanitized
 * names never take a real one: for one server listing `a.b` and `a_b` in either order, the real
 * `a_b` keeps its name, and the result does not depend on the order. Unicode names follow one rule
 * (NFKD, marks dropped, `_` for the rest, a hash when more than ASCII separators changed).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, toolRequestFromModelCall } from "@toolwright/runtime";
import { createMcpManager, type McpManager, providerSafe } from "@toolwright/runtime/manager";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { toGeminiSchema, toOpenAIStrictSchema } from "../../packages/runtime/src/planner/providers/schema-variants.js";
import { fulfilInputRequests } from "../../packages/runtime/src/protocol/mcp-client.js";
import { HOSTILE_STDIO_SERVER } from "../support/hostile-stdio-server.js";
import { guardLeaks } from "../support/leak-guard.js";

let dir: string;
const managers: McpManager[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tw-names-"));
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
});
guardLeaks(async () => {
  rmSync(dir, { recursive: true, force: true });
});

function managerFor(tools: readonly string[] | { file: string }, options: Parameters<typeof createMcpManager>[1] = {}) {
  const env = Array.isArray(tools) ? { HOSTILE_TOOLS: JSON.stringify(tools) } : { HOSTILE_TOOLS_FILE: (tools as { file: string }).file };
  const manager = createMcpManager(
    { mcpServers: { hostile: { transport: "stdio", command: process.execPath, args: [HOSTILE_STDIO_SERVER], env } } },
    options,
  );
  managers.push(manager);
  return manager;
}

/** Settles within a bound: `await` on a thenable that never calls back would hang. */
async function settles(value: unknown): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), 2000);
  });
  const done = Promise.resolve(value).then(() => true);
  const result = await Promise.race([done, bound]);
  clearTimeout(timer);
  return result;
}

const POISON = ["then", "toJSON", "constructor", "__proto__", "hasOwnProperty", "valueOf", "toString", "prototype", "__defineGetter__"];

describe("names that poison an object's contract", () => {
  it("are registered and callable through the manager and the runtime registry; nothing becomes thenable", async () => {
    const runtime = createRuntime();
    const manager = managerFor(POISON, { registry: runtime });
    const [status] = await manager.start();
    expect(status).toMatchObject({ connected: true, toolCount: POISON.length });
    expect(manager.tools().map((t) => t.exposedName)).toEqual(POISON);
    for (const name of POISON) {
      const result = await manager.callTool(name, {});
      expect(result).toMatchObject({ ok: true, value: `called ${name}` });
      const byId = await manager.callTool(`hostile.${name}`, {});
      expect(byId).toMatchObject({ ok: true, value: `called ${name}` });
      expect(runtime.lookup(name)?.spec.name).toBe(name);
      const executed = await runtime.execute({ tool: name, arguments: {} });
      expect(executed).toMatchObject({ ok: true, value: `called ${name}` });
    }
    expect(await settles(manager)).toBe(true);
    expect(await settles(runtime)).toBe(true);
    expect(await settles(manager.getClient("hostile"))).toBe(true);
    expect(JSON.parse(JSON.stringify(manager.tools().map((t) => t.id)))).toEqual(POISON.map((n) => `hostile.${n}`));
  });

  it("a name no tool has stays unknown, even when Object.prototype has it", async () => {
    const runtime = createRuntime();
    const manager = managerFor(["echo"], { registry: runtime });
    await manager.start();
    for (const name of ["then", "constructor", "__proto__", "toString", "hostile.constructor"]) {
      expect(runtime.lookup(name)).toBeUndefined();
      const request = toolRequestFromModelCall({ name, arguments: {} }, runtime);
      expect(request.rejection).toMatchObject({ reason: "tool_unavailable" });
      const result = await manager.callTool(name, {});
      expect(result).toMatchObject({ ok: false, failure: { kind: "invalid_call" } });
    }
  });
});

describe("sanitized names never take a real one", () => {
  const exposed = (manager: McpManager) => Object.fromEntries(manager.tools().map((t) => [t.name, t.exposedName]));

  it.each([[["a.b", "a_b"]], [["a_b", "a.b"]]])(
    "listing %j: the real a_b keeps a_b, a.b gets a hashed name, whatever the order",
    async (tools) => {
      const manager = managerFor(tools);
      await manager.start();
      const names = exposed(manager);
      expect(names.a_b).toBe("a_b");
      expect(names["a.b"]).toMatch(/^a_b_[0-9a-f]{6}$/);
      // Calling the real name runs the real tool.
      expect(await manager.callTool("a_b", {})).toMatchObject({ ok: true, value: "called a_b" });
      expect(await manager.callTool(names["a.b"] as string, {})).toMatchObject({ ok: true, value: "called a.b" });
    },
  );

  it("the same names in any order give the same exposed names; two sanitized twins both get hashes", async () => {
    const one = managerFor(["x.y", "x y", "café", "cafe", "日本"]);
    const two = managerFor(["日本", "cafe", "x y", "café", "x.y"]);
    await Promise.all([one.start(), two.start()]);
    expect(exposed(one)).toEqual(exposed(two));
    const names = exposed(one);
    expect(names["x.y"]).toMatch(/^x_y_[0-9a-f]{6}$/);
    expect(names["x y"]).toMatch(/^x_y_[0-9a-f]{6}$/);
    expect(names["x.y"]).not.toBe(names["x y"]);
    expect(names.cafe).toBe("cafe");
    expect(names.café).toBe(providerSafe("café"));
  });

  it("a real name that appears later reclaims its name from a sanitized tool on refresh", async () => {
    const file = join(dir, "tools.json");
    writeFileSync(file, JSON.stringify(["a.b"]));
    const manager = managerFor({ file });
    await manager.start();
    expect(exposed(manager)["a.b"]).toBe("a_b");
    writeFileSync(file, JSON.stringify(["a.b", "a_b"]));
    const refreshed = await manager.refreshTools("hostile");
    expect(refreshed.ok).toBe(true);
    expect(exposed(manager).a_b).toBe("a_b");
    expect(await manager.callTool("a_b", {})).toMatchObject({ ok: true, value: "called a_b" });
  });
});

describe("across servers", () => {
  it.each([[["x", "y"]], [["y", "x"]]])(
    "config order %j: y's real a_b is exposed as a_b, x's sanitized a.b never holds it",
    async (order) => {
      const runtime = createRuntime();
      const changes: [string, readonly string[]][] = [];
      const entry = (tools: string[]) => ({
        transport: "stdio" as const,
        command: process.execPath,
        args: [HOSTILE_STDIO_SERVER],
        env: { HOSTILE_TOOLS: JSON.stringify(tools) },
      });
      const all = { x: entry(["a.b"]), y: entry(["a_b"]) };
      const manager = createMcpManager(
        { mcpServers: Object.fromEntries(order.map((n) => [n, all[n as "x" | "y"]])) },
        { registry: runtime, onChange: (server, diff) => changes.push([server, diff.changed]) },
      );
      managers.push(manager);
      await manager.start();
      const byId = Object.fromEntries(manager.tools().map((t) => [t.id, t.exposedName]));
      expect(byId["y.a_b"]).toBe("a_b");
      expect(byId["x.a.b"]).toMatch(/^a_b_[0-9a-f]{6}$/);
      expect(await manager.callTool("a_b", {})).toMatchObject({ ok: true, value: "called a_b" });
      expect(runtime.lookup("a_b")?.spec.id).toBe("y.a_b");
      expect(runtime.lookup(byId["x.a.b"] as string)?.spec.id).toBe("x.a.b");
      // When x registered first, its tool was renamed and its listeners were told.
      if (order[0] === "x") expect(changes).toContainEqual(["x", ["a.b"]]);
    },
  );
});

describe("the provider-safe naming rule", () => {
  it.each([
    ["get-sum", "get-sum"],
    ["a.b", "a_b"],
    ["a..b/c", "a_b_c"],
    ["Ｆｕｌｌ", /^Full_[0-9a-f]{6}$/],
    ["café", /^cafe_[0-9a-f]{6}$/],
    ["naïve tool", /^naive_tool_[0-9a-f]{6}$/],
    ["日本", /^tool_[0-9a-f]{6}$/],
    ["uni-code-日本語", /^uni-code-_[0-9a-f]{6}$/],
  ])("%s -> %s", (name, expected) => {
    const safe = providerSafe(name);
    if (typeof expected === "string") expect(safe).toBe(expected);
    else expect(safe).toMatch(expected);
    expect(safe).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it("is stable and distinct per original: names differing only in non-ASCII characters do not meet", () => {
    expect(providerSafe("uni-code-日本")).not.toBe(providerSafe("uni-code-中国"));
    expect(providerSafe("résumé")).toBe(providerSafe("résumé"));
    expect(providerSafe("re\u0301sume\u0301")).not.toBe(providerSafe("résumé")); // another original, another hash
    expect(providerSafe("x".repeat(80))).toHaveLength(64);
  });
});

describe("property names from a live schema", () => {
  it("__proto__ and constructor stay properties in every provider variant", () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"}},"required":["__proto__","constructor"]}',
    );
    for (const variant of [toOpenAIStrictSchema(schema), toGeminiSchema(schema)]) {
      const properties = (variant.schema as { properties: object }).properties;
      expect(Object.keys(properties).sort()).toEqual(["__proto__", "constructor"]);
      expect(JSON.parse(JSON.stringify(variant.schema)).properties).toEqual(
        JSON.parse('{"__proto__":{"type":"string"},"constructor":{"type":"number"}}'),
      );
    }
  });
});

describe("request ids a server picks", () => {
  it("an input request keyed __proto__ gets its answer under that key", async () => {
    const requests = JSON.parse('{"__proto__": {"method": "roots/list"}, "constructor": {"method": "roots/list"}}');
    const handlers = new Map([["roots/list", async () => ({ roots: [] })]]);
    const answered = await fulfilInputRequests(requests, handlers);
    expect(answered.ok).toBe(true);
    const responses = answered.ok ? answered.responses : {};
    expect(Object.keys(responses).sort()).toEqual(["__proto__", "constructor"]);
    expect(JSON.parse(JSON.stringify(responses))).toEqual(JSON.parse('{"__proto__": {"roots": []}, "constructor": {"roots": []}}'));
  });
});
