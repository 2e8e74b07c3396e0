/**
 * Issue 25 item 3, through a real server on 127.0.0.1: template matching is linear, so a huge
 * hostile URI against `{+a}/{+b}` is answered at once while other sessions go on, and URIs past
 * `maxUriLength` (default 16384) are refused with -32602 naming the limit, in both eras. Nothing
 * is timed: the hostile read uses a size the old backtracking matcher would need over an hour
 * for, under a generous vitest timeout.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolServer, type HttpServerHandle, serveHttp, type ToolServerOptions } from "../../packages/runtime/src/server.js";
import { postModern } from "../support/modern-fetch.js";

const handles: HttpServerHandle[] = [];
const clients: Client[] = [];

const options = (extra: Partial<ToolServerOptions> = {}): ToolServerOptions => ({
  name: "uris",
  version: "1.0.0",
  tools: [],
  resourceTemplates: [{ uriTemplate: "{+a}/{+b}", name: "pair", read: (_uri, { a, b }) => `${a?.length}:${b?.length}` }],
  ...extra,
});

async function start(extra: Partial<ToolServerOptions> = {}) {
  const handle = await serveHttp(createToolServer(options(extra)), { maxBodyBytes: 8 * 1024 * 1024 });
  handles.push(handle);
  return handle;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "item-3", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

const failure = (run: () => Promise<unknown>) =>
  run().then(
    () => undefined,
    (e: unknown) => (e instanceof McpError ? { code: e.code, message: e.message, data: e.data } : Promise.reject(e)),
  );

let defaults: HttpServerHandle;
beforeAll(async () => {
  defaults = await start();
});
afterAll(async () => {
  for (const c of clients) await c.close();
  for (const h of handles) await h.close();
});

describe("resource URIs: bounded length, linear matching", () => {
  it("legacy era (official SDK client): a URI one past the default limit is -32602 naming 16384; one at it is served", async () => {
    const client = await connect(defaults.url);
    const over = await failure(() => client.readResource({ uri: `${"x".repeat(16_384)}/` }));
    expect(over).toMatchObject({ code: -32602, data: { length: 16_385, limit: 16_384 } });
    expect(over?.message).toContain("the limit is 16384 (maxUriLength)");
    const at = await client.readResource({ uri: `${"x".repeat(16_382)}/y` });
    expect(at.contents[0]).toMatchObject({ text: "16382:1" });
    const subscribe = await failure(() => client.subscribeResource({ uri: "s".repeat(20_000) }));
    expect(subscribe).toMatchObject({ code: -32602, data: { limit: 16_384 } });
  });

  it("stateless 2026-07-28: the configured limit is named in the -32602", async () => {
    const small = await start({ maxUriLength: 1000 });
    const over = await postModern(small.url, "resources/read", { uri: `${"x".repeat(1000)}/` });
    expect(over.body?.error).toMatchObject({ code: -32602, data: { length: 1001, limit: 1000 } });
    expect(over.body?.error?.message).toContain("the limit is 1000 (maxUriLength)");
    const at = await postModern(small.url, "resources/read", { uri: `${"x".repeat(998)}/y` });
    expect(at.body?.result).toMatchObject({ contents: [{ text: "998:1" }] });
  });

  it("createToolServer refuses a maxUriLength that is not a positive integer", () => {
    expect(() => createToolServer(options({ maxUriLength: 0 }))).toThrow(/maxUriLength must be a positive integer/);
    expect(() => createToolServer(options({ maxUriLength: 1.5 }))).toThrow(/maxUriLength/);
  });

  it("a megabyte hostile URI is answered, and another session is served meanwhile", { timeout: 120_000 }, async () => {
    // A server that allows long URIs, to show the matcher itself no longer needs the limit to stay fast.
    const roomy = await start({ maxUriLength: 4 * 1024 * 1024 });
    const [attacker, bystander] = [await connect(roomy.url), await connect(roomy.url)];
    // Every "/" is a split point for a, and from each one b runs to the "?" it cannot take: a
    // backtracking RegExp does n²/2 steps (20 KB took 2 s, so this megabyte would take about 90 min).
    const hostile = failure(() => attacker.readResource({ uri: `${"/".repeat(1024 * 1024)}?` }));
    const bystanderRead = bystander.readResource({ uri: "a/b" });
    const [refused, served] = await Promise.all([hostile, bystanderRead]);
    expect(refused).toMatchObject({ code: -32602 });
    expect(refused?.message).toContain("Resource not found");
    expect(served.contents[0]).toMatchObject({ text: "1:1" });
    const split = await attacker.readResource({ uri: `${"d/".repeat(512 * 1024)}end` });
    expect(split.contents[0]).toMatchObject({ text: `1:${1024 * 1024 + 1}` });
  });
});
