/**
 * Mapping rows through the runtime over real transports: a real server's JSON-RPC error gains the
 * call evidence, a missing command is unavailable/finish, and an HTTP 429 keeps Retry-After.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createRuntime, renderFailure, type ToolResult, toolRequestFromModelCall } from "@toolwright/runtime";
import { validateFailure } from "@toolwright/runtime/caller";
import { createHttpCaller } from "@toolwright/runtime/http";
import { createToolServer, serveHttp } from "@toolwright/runtime/server";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { startFaultProxy } from "@toolwright/testkit";
import { afterEach, expect, it } from "vitest";
import { spec } from "./fixtures.js";

const require = createRequire(import.meta.url);
const everything = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function failureOf(result: ToolResult<unknown>) {
  if (result.ok) throw new Error("expected a failure");
  expect(validateFailure(result.failure)).toEqual([]);
  expect(JSON.parse(JSON.stringify(result.failure))).toStrictEqual(result.failure);
  return result.failure;
}

function everythingRuntime() {
  const caller = createStdioCaller({ name: "everything", command: process.execPath, args: [everything] });
  cleanups.push(() => caller.close());
  const runtime = createRuntime();
  const permissive = (v: unknown) => ({ ok: true as const, value: v });
  runtime.registerToolset({
    toolset: "ev",
    specs: [
      // A tool the design declares but this server does not have.
      spec("ev", "no_such_tool", { q: "string" }),
      // The real echo tool with a decoder that lets a wrong type through, so the server judges it.
      { ...spec("ev", "echo", { message: "string" }, { exampleJson: '{"message":"hi"}' }), decodePayload: permissive },
    ],
    caller,
  });
  return runtime;
}

it("a tool the server does not have: its isError answer is domain_rejection / replan with the content", async () => {
  const runtime = everythingRuntime();
  const f = failureOf(await runtime.execute(toolRequestFromModelCall({ name: "ev_no_such_tool", arguments: '{"q":"hello"}' }, runtime)));
  expect(f).toMatchObject({ kind: "domain_rejection", recovery: { action: "replan" }, tool: "ev.no_such_tool", server: "everything" });
  expect(f.message).toMatch(/no_such_tool not found/);
  expect(f.content).toEqual([{ type: "text", text: f.message }]);
});

it("the server's own input validation (isError) becomes correct_call with the rejected input and example", async () => {
  const runtime = everythingRuntime();
  const f = failureOf(await runtime.execute(toolRequestFromModelCall({ name: "ev_echo", arguments: { message: 5 } }, runtime)));
  expect(f).toMatchObject({
    kind: "domain_rejection",
    recovery: { action: "correct_call", priorInput: { message: 5 }, exampleJson: '{"message":"hi"}' },
    tool: "ev.echo",
  });
  expect(f.message).toMatch(/validation|invalid/i);
  expect(renderFailure(f)).toContain('Rejected input: {"message":5}');
});

it("spawn ENOENT: unavailable / finish, not retryable, nothing thrown", async () => {
  const caller = createStdioCaller({ name: "ghost", command: "/nonexistent/toolwright-no-such-binary" });
  cleanups.push(() => caller.close());
  const runtime = createRuntime();
  runtime.registerToolset({ toolset: "g", specs: [spec("g", "x", { q: "string" })], caller });
  const f = failureOf(await runtime.execute({ tool: "g.x", arguments: { q: "a" } }));
  expect(f).toMatchObject({ kind: "unavailable", recovery: { action: "finish" }, retryable: false, server: "ghost", tool: "g.x" });
  expect(renderFailure(f)).toMatch(/Next: Do not call more tools/);
});

it("HTTP 429 with Retry-After: rate_limited / retry with retryAfterMs, rendered as a wait", async () => {
  // A real tool server over streamable HTTP; the testkit's fault proxy answers its tools/call with 429.
  const server = await serveHttp(
    createToolServer({
      name: "limited",
      version: "1.0.0",
      tools: [{ name: "x", inputSchema: { type: "object" }, handler: () => ({ content: [] }) }],
    }),
  );
  cleanups.push(() => server.close());
  const proxy = await startFaultProxy({
    target: server.url,
    plan: [{ tool: "x", fault: { kind: "http-status", status: 429, headers: { "retry-after": "3" }, body: "slow down" } }],
  });
  cleanups.push(() => proxy.close());
  const caller = createHttpCaller({ name: "limited", url: proxy.url, era: "legacy", legacySseFallback: false });
  cleanups.push(() => caller.close());
  const runtime = createRuntime();
  runtime.registerToolset({ toolset: "h", specs: [spec("h", "x", { q: "string" })], caller });
  const f = failureOf(await runtime.execute({ tool: "h.x", arguments: { q: "a" } }));
  expect(f).toMatchObject({ kind: "rate_limited", recovery: { action: "retry" }, retryable: true, httpStatus: 429, retryAfterMs: 3000 });
  expect(renderFailure(f)).toContain("after 3 s");
  expect(proxy.faults.injected).toEqual([{ tool: "x", call: 1, kind: "http-status" }]);
});

it("a programmer error still throws: executing through a caller after close()", async () => {
  const caller = createStdioCaller({ name: "everything", command: process.execPath, args: [everything] });
  const runtime = createRuntime();
  runtime.registerToolset({ toolset: "ev", specs: [spec("ev", "echo", { message: "string" })], caller });
  expect(await runtime.execute({ tool: "ev.echo", arguments: { message: "hi" } })).toMatchObject({ ok: true, value: "Echo: hi" });
  await caller.close();
  await expect(runtime.execute({ tool: "ev.echo", arguments: { message: "hi" } })).rejects.toThrow(/closed/);
});
