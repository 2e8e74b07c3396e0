// Resources, templates, prompts, completions and subscriptions served by createToolServer, read
// back through Toolwright's own callers over HTTP (both eras) and stdio-less sessions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "../../packages/runtime/src/http.js";
import { createToolServer, type HttpServerHandle, serveHttp, type ToolServer } from "../../packages/runtime/src/server.js";

let server: ToolServer;
let http: HttpServerHandle;
const callers: HttpCaller[] = [];

beforeAll(async () => {
  server = createToolServer({
    name: "surface",
    version: "1.0.0",
    cacheTtlMs: 30_000,
    tools: [{ name: "noop", inputSchema: { type: "object" }, handler: () => ({ content: [] }) }],
    resources: [
      { uri: "notes://readme", name: "readme", mimeType: "text/markdown", read: () => "# hi" },
      { uri: "notes://logo", name: "logo", mimeType: "image/png", read: () => new Uint8Array([137, 80, 78, 71]) },
    ],
    resourceTemplates: [
      {
        uriTemplate: "notes://{folder}/{+rest}",
        name: "note",
        read: (_uri, { folder, rest }) => `${folder}:${rest}`,
        complete: { folder: (value) => ["work", "home", "wiki"].filter((f) => f.startsWith(value)) },
      },
    ],
    prompts: [
      {
        name: "greet",
        arguments: [{ name: "who", required: true }],
        get: ({ who }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello ${who}` } }] }),
        complete: { who: (value) => ["Ada", "Alan", "Grace"].filter((n) => n.startsWith(value)) },
      },
    ],
  });
  http = await serveHttp(server);
});
afterAll(async () => {
  for (const c of callers) await c.close();
  await http.close();
});

function caller(era: "legacy" | "2026-07-28"): HttpCaller {
  clearHttpEraCache();
  const c = createHttpCaller({ name: "surface", url: http.url, era });
  callers.push(c);
  return c;
}

describe.each(["legacy", "2026-07-28"] as const)("surface server, %s era", (era) => {
  it("lists and reads fixed resources (text and blob) and template instances", async () => {
    const c = caller(era);
    const listed = await c.listResources();
    expect(listed.ok && listed.value.map((r) => r.uri)).toEqual(["notes://readme", "notes://logo"]);
    expect(await c.readResource("notes://readme")).toEqual({
      ok: true,
      value: [{ uri: "notes://readme", mimeType: "text/markdown", text: "# hi" }],
    });
    const logo = await c.readResource("notes://logo");
    expect(logo.ok && logo.value[0] && "blob" in logo.value[0] && Buffer.from(logo.value[0].blob, "base64")).toEqual(
      Buffer.from([137, 80, 78, 71]),
    );
    const note = await c.readResource("notes://work/a/b.md");
    expect(note.ok && note.value[0] && "text" in note.value[0] && note.value[0].text).toBe("work:a/b.md");
    const templates = await c.listResourceTemplates();
    expect(templates.ok && templates.value).toEqual([{ uriTemplate: "notes://{folder}/{+rest}", name: "note" }]);
  });

  it("an unknown resource is -32602 with the uri; an unknown prompt and a missing argument are -32602", async () => {
    const c = caller(era);
    expect(await c.readResource("other://x")).toMatchObject({ ok: false, failure: { rpc: { code: -32602, data: { uri: "other://x" } } } });
    expect(await c.getPrompt("nope")).toMatchObject({ ok: false, failure: { rpc: { code: -32602 } } });
    expect(await c.getPrompt("greet", {})).toMatchObject({ ok: false, failure: { message: expect.stringContaining("who") } });
  });

  it("gets prompts and completes prompt arguments and template variables", async () => {
    const c = caller(era);
    const prompts = await c.listPrompts();
    expect(prompts.ok && prompts.value).toEqual([{ name: "greet", arguments: [{ name: "who", required: true }] }]);
    const got = await c.getPrompt("greet", { who: "Ada" });
    expect(got.ok && got.value.messages[0]?.content).toEqual({ type: "text", text: "Hello Ada" });
    const who = await c.complete({ type: "ref/prompt", name: "greet" }, { name: "who", value: "A" });
    expect(who).toEqual({ ok: true, value: { values: ["Ada", "Alan"], total: 2, hasMore: false } });
    const folder = await c.complete({ type: "ref/resource", uri: "notes://{folder}/{+rest}" }, { name: "folder", value: "w" });
    expect(folder.ok && folder.value.values).toEqual(["work", "wiki"]);
  });
});

describe("subscriptions and caching", () => {
  it("legacy: a subscribed session gets notifications/resources/updated; an unsubscribed one does not", async () => {
    const c = caller("legacy");
    const updates: string[] = [];
    expect(await c.subscribe("notes://readme", (uri) => updates.push(uri))).toEqual({ ok: true, value: undefined });
    for (let i = 0; i < 1500 && updates.length === 0; i++) {
      server.notifyResourceUpdated("notes://readme");
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(updates[0]).toBe("notes://readme");
    expect(await c.unsubscribe("notes://readme")).toEqual({ ok: true, value: undefined });
  });

  it("modern: lists and reads carry the configured ttlMs, so a second list is served from the client cache", async () => {
    const c = caller("2026-07-28");
    const raw = await c.request("prompts/list");
    expect(raw.ok && raw.value).toMatchObject({ ttlMs: 30_000, cacheScope: "public" });
    const read = await c.request("resources/read", { uri: "notes://readme" });
    expect(read.ok && read.value).toMatchObject({ ttlMs: 30_000, cacheScope: "public" });
  });
});
