// Streamable HTTP on 127.0.0.1: the official SDK client (1.32.2) against serveHttp, plus raw
// fetch checks of the transport rules (sessions, status codes, SSE priming and resume).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type HttpServerHandle, parseServeArgs, serve, serveHttp } from "../../packages/runtime/src/server.js";
import { createDemoServer } from "./fixtures/demo-server.js";

let http: HttpServerHandle;
const clients: Client[] = [];

beforeAll(async () => {
  http = await serveHttp(createDemoServer({ pageSize: 5 }), { port: 0, host: "127.0.0.1" });
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(async () => {
  await http.close();
});

async function sdkClient(capabilities: object = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "sdk-test", version: "1.0.0" }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(http.url));
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const json = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function initialize(version = "2025-11-25"): Promise<string> {
  const res = await fetch(http.url, {
    method: "POST",
    headers: json,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  await res.json();
  const id = res.headers.get("mcp-session-id");
  expect(id).toMatch(/^[\x21-\x7e]+$/);
  return id as string;
}

describe("the official SDK client over Streamable HTTP", () => {
  it("connects, pages through tools/list, and calls tools", async () => {
    const { client, transport } = await sdkClient();
    expect(transport.sessionId).toBeTruthy();
    expect(client.getServerVersion()).toMatchObject({ name: "demo-server", version: "1.2.3" });
    const first = await client.listTools();
    expect(first.tools).toHaveLength(5);
    const second = await client.listTools({ cursor: first.nextCursor as string });
    expect(second.tools.map((t) => t.name)).toEqual(["log", "ask", "resumable", "no_structured"]);
    expect(second.nextCursor).toBeUndefined();
    await client.listTools(); // the SDK validates structured output only for tools it listed last
    const sum = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
    expect(sum.structuredContent).toEqual({ sum: 3 });
    const bad = await client.callTool({ name: "add", arguments: { a: 1 } });
    expect(bad.isError).toBe(true);
  });

  it("receives progress and log notifications on the call's SSE stream", async () => {
    const { client } = await sdkClient();
    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.level);
    });
    await client.setLoggingLevel("info");
    const progress: number[] = [];
    const r = await client.callTool({ name: "slow", arguments: { steps: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(r.content).toEqual([{ type: "text", text: "done after 3 steps" }]);
    expect(progress).toEqual([1, 2, 3]);
    await client.callTool({ name: "log", arguments: {} });
    expect(logs).toEqual(["info", "error"]);
  });

  it("answers an elicitation request the tool sends mid-call", async () => {
    const { client } = await sdkClient({ elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      expect(req.params.message).toBe("Your name?");
      return { action: "accept", content: { name: "Grace" } };
    });
    const r = await client.callTool({ name: "ask", arguments: { message: "Your name?" } });
    expect(r.content).toEqual([{ type: "text", text: "accept: Grace" }]);
  });

  it("cancels through the abort signal (notifications/cancelled over a POST)", async () => {
    const { client } = await sdkClient();
    const controller = new AbortController();
    const call = client.callTool({ name: "slow", arguments: { steps: 500, label: "http-cancel" } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(),
    });
    await expect(call).rejects.toThrow();
    let aborted: string[] = [];
    for (let i = 0; i < 50 && !aborted.includes("http-cancel"); i++) {
      const seen = await client.callTool({ name: "observations", arguments: {} });
      aborted = (seen.structuredContent as { aborted: string[] }).aborted;
    }
    expect(aborted).toContain("http-cancel");
  });

  it("terminateSession (DELETE) ends the session: the id then gets 404", async () => {
    const { transport } = await sdkClient();
    const id = transport.sessionId as string;
    const before = http.sessions;
    await transport.terminateSession();
    expect(http.sessions).toBe(before - 1);
    const res = await fetch(http.url, {
      method: "POST",
      headers: { ...json, "Mcp-Session-Id": id },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
    });
    expect(res.status).toBe(404);
  });
});

describe("transport rules, raw", () => {
  it("a request without a session is 400, an unknown session 404", async () => {
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect((await fetch(http.url, { method: "POST", headers: json, body: ping })).status).toBe(400);
    const res = await fetch(http.url, { method: "POST", headers: { ...json, "Mcp-Session-Id": "nope" }, body: ping });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { message: "Session not found" } });
  });

  it("notifications get 202; an unsupported MCP-Protocol-Version gets 400", async () => {
    const id = await initialize();
    const headers = { ...json, "Mcp-Session-Id": id };
    const note = await fetch(http.url, {
      method: "POST",
      headers: { ...headers, "MCP-Protocol-Version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(note.status).toBe(202);
    const bad = await fetch(http.url, {
      method: "POST",
      headers: { ...headers, "MCP-Protocol-Version": "1999-01-01" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }),
    });
    expect(bad.status).toBe(400);
  });

  it("plain requests answer JSON; tools/call answers SSE with a priming event first", async () => {
    const id = await initialize();
    const headers = { ...json, "Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25" };
    const list = await fetch(http.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
    expect(list.headers.get("content-type")).toContain("application/json");
    expect(((await list.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(5);
    const call = await fetch(http.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { message: "hi" } } }),
    });
    expect(call.headers.get("content-type")).toContain("text/event-stream");
    const text = await call.text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events[0]).toMatch(/^id: \w+_0\nretry: 1000\ndata: $/);
    expect(events[1]).toContain('"text":"Echo: hi"');
  });

  it("a stream the tool closes is resumed with GET + Last-Event-ID and delivers the result", async () => {
    const id = await initialize();
    const headers = { ...json, "Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25" };
    const call = await fetch(http.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "resumable", arguments: {}, _meta: { progressToken: 1 } },
      }),
    });
    const first = await call.text(); // ends when the tool closes the stream
    expect(first).not.toContain('"result"');
    const lastId = [...first.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]).at(-1) as string;
    const resumed = await fetch(http.url, { headers: { Accept: "text/event-stream", "Mcp-Session-Id": id, "Last-Event-ID": lastId } });
    expect(resumed.status).toBe(200);
    const rest = await resumed.text();
    expect(rest).toContain('"text":"resumed"');
    expect(rest).not.toContain(`id: ${lastId}\n`);
  });

  it("a client that drops the POST stream mid-call resumes it and gets the rest (a disconnect is not a cancel)", async () => {
    const id = await initialize();
    const headers = { ...json, "Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25" };
    const controller = new AbortController();
    const call = await fetch(http.url, {
      method: "POST",
      headers,
      signal: controller.signal,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "slow", arguments: { steps: 4 }, _meta: { progressToken: "t" } },
      }),
    });
    const reader = (call.body as ReadableStream<Uint8Array>).getReader();
    let seen = "";
    while (!seen.includes('"progress":1')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const lastId = [...seen.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]).at(-1) as string;
    const resumed = await fetch(http.url, { headers: { Accept: "text/event-stream", "Mcp-Session-Id": id, "Last-Event-ID": lastId } });
    const rest = await resumed.text();
    expect(rest).toContain('"text":"done after 4 steps"');
    expect(rest).toContain('"progress":4');
    expect(rest).not.toContain('"progress":1,');
  });

  it("GET opens one standalone stream per session; a second is 409", async () => {
    const id = await initialize();
    const controller = new AbortController();
    const get = await fetch(http.url, { headers: { Accept: "text/event-stream", "Mcp-Session-Id": id }, signal: controller.signal });
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toContain("text/event-stream");
    const again = await fetch(http.url, { headers: { Accept: "text/event-stream", "Mcp-Session-Id": id } });
    expect(again.status).toBe(409);
    controller.abort();
    await get.body?.cancel().catch(() => {});
  });

  it("rejects foreign Host and Origin headers (DNS rebinding), odd methods and bad bodies", async () => {
    const { request } = await import("node:http");
    const status = (headers: { [k: string]: string }, method = "POST", body = "{}") =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          http.url,
          { method, headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    expect(await status({ Host: "evil.example.com" })).toBe(403);
    expect(await status({ Origin: "http://evil.example.com" })).toBe(403);
    expect(await status({ Origin: `http://localhost:${http.port}` }, "POST", "not json")).toBe(400);
    expect(await status({}, "PUT")).toBe(405);
    expect(await status({ "Content-Type": "text/plain" })).toBe(415);
  });

  it("initialize beyond maxSessions is 503 until a session ends", async () => {
    const small = await serveHttp(createDemoServer(), { maxSessions: 1 });
    try {
      const init = () =>
        fetch(small.url, {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
          }),
        });
      const first = await init();
      expect(first.status).toBe(200);
      expect((await init()).status).toBe(503);
      const id = first.headers.get("mcp-session-id") as string;
      expect((await fetch(small.url, { method: "DELETE", headers: { "Mcp-Session-Id": id } })).status).toBe(200);
      expect((await init()).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it("a body over the limit is 413", async () => {
    const small = await serveHttp(createDemoServer(), { maxBodyBytes: 100 });
    try {
      const res = await fetch(small.url, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(200) } }),
      });
      expect(res.status).toBe(413);
    } finally {
      await small.close();
    }
  });
});

describe("JSON response mode and serve()", () => {
  it("a server-to-client request with no stream to travel on fails the call at once", async () => {
    const handle = await serve(createDemoServer(), { transport: "http", responseMode: "json" });
    try {
      const url = handle.url as string;
      const init = await fetch(url, {
        method: "POST",
        headers: json,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "raw", version: "1" } },
        }),
      });
      const id = init.headers.get("mcp-session-id") as string;
      const res = await fetch(url, {
        method: "POST",
        headers: { ...json, "Mcp-Session-Id": id },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask", arguments: { message: "?" } } }),
      });
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toMatchObject({
        id: 2,
        error: { code: -32603, message: expect.stringContaining("Cannot send elicitation/create") },
      });
    } finally {
      await handle.close();
    }
    await handle.closed;
  });

  it("parseServeArgs reads the transport from a command line", () => {
    expect(parseServeArgs([])).toEqual({ transport: "stdio" });
    expect(parseServeArgs(["--http"])).toEqual({ transport: "http" });
    expect(parseServeArgs(["--port", "8080", "--host", "::1", "--path", "/x"])).toEqual({
      transport: "http",
      port: 8080,
      host: "::1",
      path: "/x",
    });
    expect(() => parseServeArgs(["--port", "http"])).toThrow(/--port must be an integer/);
    expect(() => parseServeArgs(["--verbose"])).toThrow(/unknown argument --verbose/);
    expect(() => parseServeArgs(["--host"])).toThrow(/--host needs a value/);
  });
});

describe("stateless 2026-07-28 requests, raw", () => {
  const meta = (extra: object = {}) => ({
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra,
  });
  const post = (method: string, params: object, headers: { [k: string]: string } = {}) =>
    fetch(http.url, {
      method: "POST",
      headers: { ...json, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
    });

  it("server/discover answers without a session, with caching hints and serverInfo in _meta", async () => {
    const res = await post("server/discover", { _meta: meta() });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(((await res.json()) as { result: unknown }).result).toEqual({
      supportedVersions: ["2026-07-28"],
      // subscriptions/listen delivers tools/list_changed in 2026-07-28 too.
      capabilities: { tools: { listChanged: true } },
      instructions: "Use add to add numbers.",
      ttlMs: 0,
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "demo-server", version: "1.2.3", title: "Demo" } },
      resultType: "complete",
    });
  });

  it("tools/list and tools/call carry resultType; logs flow only with a logLevel", async () => {
    const list = (await (await post("tools/list", { _meta: meta() })).json()) as {
      result: { tools: unknown[]; ttlMs: number; resultType: string };
    };
    expect(list.result).toMatchObject({ ttlMs: 0, cacheScope: "public", resultType: "complete" });
    const quiet = await (await post("tools/call", { name: "log", arguments: {}, _meta: meta() }, { "Mcp-Name": "log" })).text();
    expect(quiet).not.toContain("notifications/message");
    expect(quiet).toContain('"resultType":"complete"');
    const loud = await (
      await post(
        "tools/call",
        { name: "log", arguments: {}, _meta: meta({ "io.modelcontextprotocol/logLevel": "info" }) },
        { "Mcp-Name": "log" },
      )
    ).text();
    expect(loud.match(/notifications\/message/g)).toHaveLength(2);
  });

  it.each([
    ["header version differs from _meta", "server/discover", { _meta: meta() }, { "MCP-Protocol-Version": "2025-11-25" }, 400, -32020],
    ["Mcp-Method differs from the body", "tools/list", { _meta: meta() }, { "Mcp-Method": "tools/call" }, 400, -32020],
    ["Mcp-Name differs from the tool", "tools/call", { name: "add", arguments: {}, _meta: meta() }, { "Mcp-Name": "echo" }, 400, -32020],
    ["missing _meta", "tools/list", {}, {}, 400, -32602],
    [
      "unsupported version in both",
      "server/discover",
      { _meta: meta({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" }) },
      { "MCP-Protocol-Version": "2099-01-01" },
      400,
      -32022,
    ],
    ["removed method", "ping", { _meta: meta() }, {}, 404, -32601],
    [
      "undeclared capability",
      "tools/call",
      { name: "ask", arguments: { message: "?" }, _meta: meta() },
      { "Mcp-Name": "ask" },
      400,
      -32021,
    ],
  ] as const)("%s: HTTP %i", async (_label, method, params, headers, status, code) => {
    const res = await post(method, params, headers);
    expect(res.status).toBe(status);
    expect(((await res.json()) as { id: unknown; error: { code: number } }).error.code).toBe(code);
  });

  it("unsupported versions list what the server speaks; GET and DELETE are 405", async () => {
    const res = await post(
      "server/discover",
      { _meta: meta({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" }) },
      { "MCP-Protocol-Version": "2099-01-01" },
    );
    expect(((await res.json()) as { error: { data: unknown } }).error.data).toEqual({ supported: ["2026-07-28"], requested: "2099-01-01" });
    expect((await fetch(http.url, { headers: { Accept: "text/event-stream", "MCP-Protocol-Version": "2026-07-28" } })).status).toBe(405);
    expect((await fetch(http.url, { method: "DELETE", headers: { "MCP-Protocol-Version": "2026-07-28" } })).status).toBe(405);
  });
});

describe("Mcp-Param headers (SEP-2243)", () => {
  it("checks x-mcp-header arguments against their headers, with strict Base64", async () => {
    const { createToolServer } = await import("../../packages/runtime/src/server.js");
    const server = createToolServer({
      name: "params",
      version: "1",
      tools: [
        {
          name: "where",
          inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } }, required: ["region"] },
          handler: (args: { region: string }) => ({ content: [{ type: "text", text: args.region }] }),
        },
      ],
    });
    const handle = await serveHttp(server);
    try {
      const call = (region: string, header?: string) =>
        fetch(handle.url, {
          method: "POST",
          headers: {
            ...json,
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "where",
            ...(header === undefined ? {} : { "Mcp-Param-Region": header }),
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: {
              name: "where",
              arguments: { region },
              _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
            },
          }),
        });
      expect((await call("eu", "eu")).status).toBe(200);
      expect((await call("Zürich", `=?base64?${Buffer.from("Zürich").toString("base64")}?=`)).status).toBe(200);
      for (const bad of [undefined, "us", "=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?="]) {
        const res = await call("Hello", bad);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32020);
      }
      expect(() =>
        createToolServer({
          name: "x",
          version: "1",
          tools: [
            {
              name: "t",
              inputSchema: { type: "object", properties: { a: { type: "object", "x-mcp-header": "A" } } },
              handler: () => ({ content: [] }),
            },
          ],
        }),
      ).toThrow(/tool "t": x-mcp-header "A" at properties.a is not on a string, integer or boolean/);
    } finally {
      await handle.close();
    }
  });
});
