/**
 * server-everything over Streamable HTTP and over legacy HTTP+SSE, through `createHttpCaller`:
 * era detection against a real legacy server, sessions, every content block type, progress,
 * cancellation, server-to-client elicitation on the POST stream, and the SSE fallback.
 */
import type { ChildProcess } from "node:child_process";
import { clearHttpEraCache, createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEverything as startServer, stopEverything } from "../support/everything-server.js";
import { createLeakCheck } from "../support/leak-check.js";

const startEverything = (mode: "streamableHttp" | "sse") => startServer(mode, (pids) => leaks.track(pids));
const stop = stopEverything;

let caller: HttpCaller | undefined;
beforeEach(() => clearHttpEraCache());

// Every caller, socket and timer this suite opened must be gone at the end, with no listener warning.
const leaks = createLeakCheck();
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  // Every list in the report (processes, handles, warnings, ...) must be empty.
  for (const [what, found] of Object.entries(report)) expect(found, what).toEqual([]);
});
afterEach(async () => {
  await caller?.close();
  caller = undefined;
});

describe("server-everything over Streamable HTTP", () => {
  let server: { child: ChildProcess; port: number } | undefined;
  let url = "";
  beforeAll(async () => {
    server = await startEverything("streamableHttp");
    url = `http://127.0.0.1:${server.port}/mcp`;
  });
  afterAll(() => stop(server?.child));

  it("detects the legacy era, gets a session and lists every tool", async () => {
    caller = createHttpCaller({ url });
    const hs = await caller.connect();
    expect(hs).toMatchObject({ ok: true, value: { protocolVersion: "2025-11-25", serverInfo: { name: "mcp-servers/everything" } } });
    expect(caller.era).toBe("legacy");
    expect(caller.transport).toBe("streamable-http");
    expect(caller.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await caller.listTools();
    expect(listed.ok && listed.value.map((t) => t.name)).toEqual(
      expect.arrayContaining(["echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"]),
    );
  });

  it("returns every content block type and structured content", async () => {
    caller = createHttpCaller({ url, era: "legacy" });
    const echo = await caller.callTool({ name: "echo", arguments: { message: "hi" } });
    expect(echo).toMatchObject({ ok: true, value: { content: [{ type: "text", text: "Echo: hi" }] } });
    const image = await caller.callTool({ name: "get-tiny-image", arguments: {} });
    expect(image.ok && image.value.content.map((b) => b.type)).toEqual(["text", "image", "text"]);
    const links = await caller.callTool({ name: "get-resource-links", arguments: { count: 2 } });
    expect(links.ok && links.value.content.filter((b) => b.type === "resource_link")).toHaveLength(2);
    const ref = await caller.callTool({ name: "get-resource-reference", arguments: { resourceType: "Text", resourceId: 1 } });
    expect(ref.ok && ref.value.content.some((b) => b.type === "resource")).toBe(true);
    const structured = await caller.callTool({ name: "get-structured-content", arguments: { location: "New York" } });
    expect(structured.ok && structured.value.structuredContent).toMatchObject({ temperature: expect.any(Number) });
  });

  it("streams progress on the POST's SSE answer", async () => {
    caller = createHttpCaller({ url, era: "legacy" });
    const seen: number[] = [];
    const out = await caller.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
      { onProgress: (p) => seen.push(p.progress), resetTimeoutOnProgress: true, timeoutMs: 30_000 },
    );
    expect(out.ok).toBe(true);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("cancels a running call and keeps the session usable", async () => {
    caller = createHttpCaller({ url, era: "legacy" });
    const controller = new AbortController();
    const pending = caller.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 } },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 200);
    expect(await pending).toMatchObject({ ok: false, failure: { kind: "canceled" } });
    expect(await caller.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } })).toMatchObject({
      ok: true,
      value: { content: [{ text: expect.stringContaining("5") }] },
    });
  });

  it("answers a server-to-client elicitation arriving on the POST stream", async () => {
    const asked: unknown[] = [];
    const handlers = new Map([
      [
        "elicitation/create",
        (params: unknown) => {
          asked.push(params);
          return { action: "accept", content: { name: "Ada", check: true, color: "red" } };
        },
      ],
    ]);
    caller = createHttpCaller({ url, era: "legacy", handlers, capabilities: { elicitation: {} } });
    const listed = await caller.listTools();
    expect(listed.ok && listed.value.some((t) => t.name === "trigger-elicitation-request")).toBe(true);
    const out = await caller.callTool({ name: "trigger-elicitation-request", arguments: {} });
    expect(out.ok).toBe(true);
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(out.ok && out.value.content)).toContain("Ada");
  });

  it("answers roots/list and sampling/createMessage requests from the server over HTTP", async () => {
    const asked: string[] = [];
    const handlers = new Map<string, (params: unknown) => unknown>([
      [
        "roots/list",
        () => {
          asked.push("roots");
          return { roots: [{ uri: "file:///tmp/tw-root", name: "tw" }] };
        },
      ],
      [
        "sampling/createMessage",
        () => {
          asked.push("sampling");
          return { role: "assistant", content: { type: "text", text: "sampled!" }, model: "test-model", stopReason: "endTurn" };
        },
      ],
    ]);
    caller = createHttpCaller({ url, era: "legacy", handlers, capabilities: { roots: {}, sampling: {} } });
    const listed = await caller.listTools();
    const names = listed.ok ? listed.value.map((t) => t.name) : [];
    expect(names).toEqual(expect.arrayContaining(["get-roots-list", "trigger-sampling-request"]));
    const roots = await caller.callTool({ name: "get-roots-list", arguments: {} });
    expect(JSON.stringify(roots.ok && roots.value.content)).toContain("file:///tmp/tw-root");
    const sampled = await caller.callTool({ name: "trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 10 } });
    expect(JSON.stringify(sampled.ok && sampled.value.content)).toContain("sampled!");
    expect(asked).toEqual(expect.arrayContaining(["roots", "sampling"]));
  });

  it("reads a resource and gets a prompt through request()", async () => {
    caller = createHttpCaller({ url, era: "legacy" });
    const prompt = await caller.request("prompts/get", { name: "simple-prompt" });
    expect(prompt.ok && JSON.stringify(prompt.value)).toContain("messages");
    const resource = await caller.request("resources/read", { uri: "demo://resource/static/document/architecture.md" });
    expect(resource.ok && JSON.stringify(resource.value)).toContain("contents");
  });

  it("a second caller to the same endpoint reuses the cached era (no probe) and works", async () => {
    caller = createHttpCaller({ url });
    expect((await caller.connect()).ok).toBe(true);
    const other = createHttpCaller({ url });
    try {
      expect(await other.callTool({ name: "echo", arguments: { message: "two" } })).toMatchObject({ ok: true });
      expect(other.sessionId).not.toBe(caller.sessionId);
    } finally {
      await other.close();
    }
  });
});

describe("server-everything over legacy HTTP+SSE", () => {
  let server: { child: ChildProcess; port: number } | undefined;
  let url = "";
  beforeAll(async () => {
    server = await startEverything("sse");
    url = `http://127.0.0.1:${server.port}/sse`;
  });
  afterAll(() => stop(server?.child));

  it("falls back from Streamable HTTP (404 on the initialize POST) to HTTP+SSE", async () => {
    caller = createHttpCaller({ url });
    const hs = await caller.connect();
    expect(hs).toMatchObject({ ok: true, value: { protocolVersion: "2025-11-25" } });
    expect(caller.transport).toBe("legacy-sse");
    expect(await caller.callTool({ name: "echo", arguments: { message: "sse" } })).toMatchObject({
      ok: true,
      value: { content: [{ text: "Echo: sse" }] },
    });
    const seen: number[] = [];
    const out = await caller.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 0.2, steps: 2 } },
      { onProgress: (p) => seen.push(p.progress) },
    );
    expect(out.ok).toBe(true);
    expect(seen).toEqual([1, 2]);
    const listed = await caller.listTools();
    expect(listed.ok && listed.value.length).toBeGreaterThan(10);
  });

  it("with the fallback off, the 404 surfaces as a failure", async () => {
    caller = createHttpCaller({ url, legacySseFallback: false, era: "legacy" });
    const out = await caller.callTool({ name: "echo", arguments: { message: "x" } });
    expect(out).toMatchObject({ ok: false, failure: { httpStatus: 404 } });
  });
});
