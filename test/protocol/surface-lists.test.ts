/**
 * The surface's list handling against the scripted HTTP server in both eras: paging through every
 * page, the 2026-07-28 `ttlMs` cache (and `fresh`), list_changed for all three lists dropping the
 * cache, and resource subscriptions carried by `subscriptions/listen`.
 */
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ScriptedHttpServer, startScriptedHttpServer } from "../support/scripted-http-server.js";

const servers: ScriptedHttpServer[] = [];
const callers: HttpCaller[] = [];
beforeEach(() => clearHttpEraCache());
afterEach(async () => {
  for (const c of callers.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check(), what).toBe(true);
}

/** Three pages of prompts, resources and templates; modern pages carry `ttlMs`. */
function pagedResults(modern: boolean, ttlMs: number) {
  const page = (key: string, cursor: string | undefined, make: (i: number) => object) => {
    const at = cursor === undefined ? 0 : Number(cursor);
    const items = [make(at), make(at + 1)];
    const next = at + 2 < 6 ? { nextCursor: String(at + 2) } : {};
    return { [key]: items, ...next, ...(modern ? { resultType: "complete", ttlMs, cacheScope: "private" } : {}) };
  };
  return (method: string, params: { readonly [key: string]: unknown } | undefined) => {
    if (method === "prompts/list") return page("prompts", params?.cursor as string | undefined, (i) => ({ name: `p${i}` }));
    if (method === "resources/list")
      return page("resources", params?.cursor as string | undefined, (i) => ({ uri: `test://r/${i}`, name: `r${i}` }));
    if (method === "resources/templates/list")
      return page("resourceTemplates", params?.cursor as string | undefined, (i) => ({ uriTemplate: `test://t${i}/{id}`, name: `t${i}` }));
    if (method === "resources/subscribe" || method === "resources/unsubscribe") return {};
    return undefined;
  };
}

const capabilities = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true } };

async function setup(era: "legacy" | "2026-07-28", ttlMs = 60_000) {
  const server = await startScriptedHttpServer({ era, capabilities, results: pagedResults(era === "2026-07-28", ttlMs) });
  servers.push(server);
  const changed: string[] = [];
  const caller = createHttpCaller({ url: server.url, name: "scripted", era, onListChanged: (list) => changed.push(list) });
  callers.push(caller);
  return { server, caller, changed };
}

describe.each(["legacy", "2026-07-28"] as const)("surface lists, %s era", (era) => {
  it("pages prompts, resources and templates through every page", async () => {
    const { caller } = await setup(era);
    const prompts = await caller.listPrompts();
    expect(prompts.ok && prompts.value.map((p) => p.name)).toEqual(["p0", "p1", "p2", "p3", "p4", "p5"]);
    const resources = await caller.listResources();
    expect(resources.ok && resources.value.map((r) => r.uri)).toHaveLength(6);
    const templates = await caller.listResourceTemplates();
    expect(templates.ok && templates.value.map((t) => t.uriTemplate)[5]).toBe("test://t5/{id}");
  });

  it("list_changed for each list reaches onListChanged and drops that list's cache", async () => {
    const { server, caller, changed } = await setup(era);
    await caller.listPrompts();
    await caller.listResources();
    await until(
      () => (era === "legacy" ? server.requests.some((r) => r.method === "GET") : server.rpc("subscriptions/listen").length > 0),
      "stream open",
    );
    for (const list of ["tools", "prompts", "resources"]) server.broadcast({ method: `notifications/${list}/list_changed` });
    await until(() => changed.length === 3, "three list_changed");
    expect(changed).toEqual(["tools", "prompts", "resources"]);
    const before = server.rpc("prompts/list").length;
    await caller.listPrompts();
    await caller.listResources();
    expect(server.rpc("prompts/list").length).toBe(before + 3);
  });
});

describe("2026-07-28 list caching", () => {
  it("a list is served from the cache for its ttlMs; fresh bypasses it", async () => {
    const { server, caller } = await setup("2026-07-28", 60_000);
    await caller.listPrompts();
    expect(server.rpc("prompts/list")).toHaveLength(3);
    const again = await caller.listPrompts();
    expect(again.ok && again.value).toHaveLength(6);
    expect(server.rpc("prompts/list")).toHaveLength(3);
    await caller.listPrompts({ fresh: true });
    expect(server.rpc("prompts/list")).toHaveLength(6);
  });

  it("ttlMs 0 means no caching", async () => {
    const { server, caller } = await setup("2026-07-28", 0);
    await caller.listResources();
    await caller.listResources();
    expect(server.rpc("resources/list")).toHaveLength(6);
  });

  it("legacy era sends no ttlMs: every list goes to the server", async () => {
    const { server, caller } = await setup("legacy");
    await caller.listPrompts();
    await caller.listPrompts();
    expect(server.rpc("prompts/list")).toHaveLength(6);
  });
});

describe("resource subscriptions", () => {
  it("2026-07-28: subscribe re-opens subscriptions/listen with resourceSubscriptions; updates reach the callback", async () => {
    const { server, caller } = await setup("2026-07-28");
    const updates: string[] = [];
    expect(await caller.subscribe("test://r/1", (uri) => updates.push(uri))).toEqual({ ok: true, value: undefined });
    await until(
      () => server.rpc("subscriptions/listen").some((r) => r.body?.params?.notifications?.resourceSubscriptions?.[0] === "test://r/1"),
      "a listen carrying the subscription",
    );
    expect(server.rpc("resources/subscribe")).toHaveLength(0);
    await until(() => server.rpc("subscriptions/listen").length >= 1, "listen");
    server.broadcast({ method: "notifications/resources/updated", params: { uri: "test://r/1" } });
    await until(() => updates.length > 0, "an update");
    expect(updates[0]).toBe("test://r/1");
    expect(await caller.unsubscribe("test://r/1")).toEqual({ ok: true, value: undefined });
    const listens = server.rpc("subscriptions/listen").length;
    await until(() => server.rpc("subscriptions/listen").length > listens, "a new listen");
    expect(server.rpc("subscriptions/listen").at(-1)?.body?.params?.notifications?.resourceSubscriptions).toBeUndefined();
  });

  it("legacy: subscribe and unsubscribe are requests; a server error is a failure value", async () => {
    const { server, caller } = await setup("legacy");
    expect(await caller.subscribe("test://r/2")).toEqual({ ok: true, value: undefined });
    expect(server.rpc("resources/subscribe")[0]?.body?.params).toEqual({ uri: "test://r/2" });
    expect(await caller.unsubscribe("test://r/2")).toEqual({ ok: true, value: undefined });
    expect(server.rpc("resources/unsubscribe")).toHaveLength(1);
    // The scripted server has no completions: -32601 comes back as a failure value naming the method.
    const missing = await caller.complete({ type: "ref/prompt", name: "p0" }, { name: "a", value: "" });
    expect(missing).toMatchObject({ ok: false, failure: { server: "scripted", tool: "completion/complete" } });
  });
});
