/**
 * Trace context on stdio `tools/call`, checked on what really reached a scripted server's stdin:
 * none by default, a fresh W3C traceparent per call with `traceContext: true`, a supplied one with a
 * function, and the runtime's own `tools/call` span with `createOtelTraceContext()` and a tracer.
 */
import { context, trace } from "@opentelemetry/api";
import { createOtelTraceContext, createRuntime, type TracerLike } from "@toolwright/runtime";
import { createStdioCaller, type StdioCaller, type StdioCallerOptions } from "@toolwright/runtime/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { spec } from "../failures/fixtures.js";
import { alsContextManager } from "../support/otel-context.js";
import { type ScriptedServer, scriptedServer } from "../support/scripted-stdio-server.js";

const opened: { caller: StdioCaller; server: ScriptedServer }[] = [];
afterEach(async () => {
  for (const { caller, server } of opened.splice(0)) {
    await caller.close();
    server.dispose();
  }
  trace.disable();
  context.disable();
});

function open(options: Partial<StdioCallerOptions> = {}): { caller: StdioCaller; server: ScriptedServer } {
  const server = scriptedServer();
  const caller = createStdioCaller({ name: "scripted", command: server.command, args: server.args, env: server.env, ...options });
  opened.push({ caller, server });
  return { caller, server };
}

const metaOfCalls = (server: ScriptedServer) => server.received("tools/call").map((e) => e.msg?.params?._meta);
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

describe("trace context on stdio tools/call", () => {
  it("sends none by default, and none with caller meta but no trace option", async () => {
    const { caller, server } = open();
    expect((await caller.callTool({ name: "echo", arguments: { a: 1 } })).ok).toBe(true);
    expect((await caller.callTool({ name: "echo", arguments: {}, meta: { "com.example/k": "v" } })).ok).toBe(true);
    expect(metaOfCalls(server)).toEqual([undefined, { "com.example/k": "v" }]);
  });

  it("true: a fresh W3C traceparent on every call, merged with the caller's meta", async () => {
    const { caller, server } = open({ traceContext: true });
    await caller.callTool({ name: "echo", arguments: {} });
    await caller.callTool({ name: "echo", arguments: {}, meta: { "com.example/k": "v" } });
    const [first, second] = metaOfCalls(server) as { traceparent?: string; [key: string]: unknown }[];
    expect(first?.traceparent).toMatch(TRACEPARENT);
    expect(second?.traceparent).toMatch(TRACEPARENT);
    expect(second?.traceparent).not.toBe(first?.traceparent);
    expect(second?.["com.example/k"]).toBe("v");
  });

  it("a function: its traceparent and tracestate, or nothing when it returns none", async () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let active = true;
    const { caller, server } = open({ traceContext: () => (active ? { traceparent, tracestate: "k=v" } : undefined) });
    await caller.callTool({ name: "echo", arguments: {} });
    active = false;
    await caller.callTool({ name: "echo", arguments: {} });
    expect(metaOfCalls(server)).toEqual([{ traceparent, tracestate: "k=v" }, undefined]);
  });

  it("the runtime's tools/call span reaches the server through createOtelTraceContext()", async () => {
    context.setGlobalContextManager(alsContextManager());
    const names: string[] = [];
    const tracer: TracerLike = {
      startSpan(name) {
        names.push(name);
        const span = {
          spanContext: () => ({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 }),
          setAttribute: () => span,
          setStatus: () => span,
          end: () => {},
        };
        return span;
      },
    };
    const { caller, server } = open({ traceContext: await createOtelTraceContext() });
    const runtime = createRuntime({ tracer });
    runtime.registerToolset({ toolset: "scripted", specs: [spec("scripted", "echo", { a: "integer" })], caller });
    expect((await runtime.execute({ tool: "scripted.echo", arguments: { a: 1 } })).ok).toBe(true);
    expect(names).toEqual(["tools/call scripted.echo"]);
    expect(metaOfCalls(server)).toEqual([{ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }]);
    // Outside a span (a direct call) there is nothing to continue, so nothing is sent.
    await caller.callTool({ name: "echo", arguments: {} });
    expect(metaOfCalls(server)[1]).toBeUndefined();
  });
});
