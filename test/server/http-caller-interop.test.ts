// Toolwright's own HTTP caller against serveHttp: era detection (auto finds 2026-07-28),
// typed failures, progress, elicitation, and concurrent calls from several sessions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpCaller, type HttpCaller } from "../../packages/runtime/src/http.js";
import { type HttpServerHandle, serveHttp } from "../../packages/runtime/src/server.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { createDemoServer } from "./fixtures/demo-server.js";

let http: HttpServerHandle;
let leaks: LeakCheck;
const callers: HttpCaller[] = [];

beforeAll(async () => {
  leaks = createLeakCheck();
  http = await serveHttp(createDemoServer());
});
afterAll(async () => {
  for (const c of callers) await c.close?.();
  await http.close();
  const report = await leaks.check();
  leaks.dispose();
  expect(report.handles).toEqual([]);
  expect(report.warnings).toEqual([]);
});

function caller(options: Partial<Parameters<typeof createHttpCaller>[0]> = {}): HttpCaller {
  const c = createHttpCaller({ name: "demo", url: http.url, ...options });
  callers.push(c);
  return c;
}

describe("createHttpCaller against serveHttp", () => {
  it("auto era detection finds the stateless 2026-07-28 era (server/discover answers)", async () => {
    const c = caller();
    const hello = await c.connect();
    expect(hello.ok).toBe(true);
    expect(c.era).toBe("2026-07-28");
    expect(c.sessionId).toBeUndefined();
    const sum = await c.callTool({ name: "add", arguments: { a: 20, b: 22 } });
    expect(sum.ok && sum.value.structuredContent).toEqual({ sum: 42 });
    const progress: number[] = [];
    const slow = await c.callTool({ name: "slow", arguments: { steps: 2 } }, { onProgress: (p) => progress.push(p.progress) });
    expect(slow.ok).toBe(true);
    expect(progress).toEqual([1, 2]);
    const unknown = await c.callTool({ name: "nope", arguments: {} });
    expect(!unknown.ok && unknown.failure).toMatchObject({ kind: "invalid_call", rpc: { code: -32602 } });
  });

  it("a caller pinned to the legacy era gets a session and the 2025-11-25 handshake", async () => {
    const c = caller({ era: "legacy" });
    const hello = await c.connect();
    expect(hello.ok).toBe(true);
    expect(c.era).toBe("legacy");
    expect(c.transport).toBe("streamable-http");
    expect(c.handshake?.protocolVersion).toBe("2025-11-25");
    expect(c.sessionId).toMatch(/^[\x21-\x7e]+$/);
  });

  it("calls, lists, and maps failures to ToolFailure values", async () => {
    const c = caller({ era: "legacy" });
    const listed = await c.listTools();
    expect(listed.ok && listed.value).toHaveLength(9);
    const sum = await c.callTool({ name: "add", arguments: { a: 2, b: 2 } });
    expect(sum.ok && sum.value.structuredContent).toEqual({ sum: 4 });
    const unknown = await c.callTool({ name: "nope", arguments: {} });
    expect(!unknown.ok && unknown.failure).toMatchObject({ kind: "invalid_call", rpc: { code: -32602 } });
    const bad = await c.callTool({ name: "add", arguments: { a: "2" } });
    expect(bad.ok && bad.value.isError).toBe(true);
  });

  it("progress and a mid-call elicitation travel on the call's SSE stream", async () => {
    const handlers = new Map([["elicitation/create", async () => ({ action: "accept", content: { name: "Lin" } })]]);
    const c = caller({ era: "legacy", handlers, capabilities: { elicitation: {} } });
    const progress: number[] = [];
    const slow = await c.callTool({ name: "slow", arguments: { steps: 3 } }, { onProgress: (p) => progress.push(p.progress) });
    expect(slow.ok).toBe(true);
    expect(progress).toEqual([1, 2, 3]);
    const ask = await c.callTool({ name: "ask", arguments: { message: "Name?" } });
    expect(ask.ok && ask.value.content).toEqual([{ type: "text", text: "accept: Lin" }]);
  });

  it("serves 4 sessions x 25 concurrent calls, every call answered correctly", async () => {
    const group = [caller({ era: "legacy" }), caller({ era: "legacy" }), caller({ era: "legacy" }), caller({ era: "legacy" })];
    const results = await Promise.all(
      group.flatMap((c, i) =>
        Array.from({ length: 25 }, (_, j) => c.callTool({ name: "add", arguments: { a: i, b: j } }).then((r) => [i + j, r] as const)),
      ),
    );
    for (const [expected, r] of results) expect(r.ok && r.value.structuredContent).toEqual({ sum: expected });
    expect(http.sessions).toBeGreaterThanOrEqual(4);
  });
});
