/**
 * Telemetry names checked against `@opentelemetry/semantic-conventions` (the MCP and GenAI
 * conventions): the `tools/call` span's attributes over a real stdio connection, the client
 * operation-duration histogram, `error.type` on a failure, and W3C trace context in `_meta`.
 */
import { context, trace } from "@opentelemetry/api";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_TRANSPORT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_CLIENT_SESSION_DURATION,
  NETWORK_TRANSPORT_VALUE_PIPE,
  NETWORK_TRANSPORT_VALUE_TCP,
} from "@opentelemetry/semantic-conventions/incubating";
import { createOtelTraceContext, createRuntime, type TelemetryOptions, type TracerLike } from "@toolwright/runtime";
import { createHttpCaller } from "@toolwright/runtime/http";
import { createMcpManager } from "@toolwright/runtime/manager";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { callAttributes, MCP_CLIENT_METRICS } from "../../packages/runtime/src/core/telemetry.js";
import { spec } from "../failures/fixtures.js";
import { MEMORY } from "../manager/helpers.js";
import { EVERYTHING, startEverything, stopEverything } from "../support/everything-server.js";
import { alsContextManager } from "../support/otel-context.js";
import { startScriptedHttpServer } from "../support/scripted-http-server.js";
import { scriptedServer } from "../support/scripted-stdio-server.js";

afterEach(() => {
  trace.disable();
  context.disable();
});

type Attrs = { [key: string]: string | number | boolean };

function recordingTracer() {
  const spans: { name: string; attributes: Attrs; status?: { code: number } }[] = [];
  const tracer: TracerLike = {
    startSpan(name, options) {
      const rec = { name, attributes: { ...options?.attributes } as Attrs } as (typeof spans)[number];
      spans.push(rec);
      const span = {
        spanContext: () => ({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 }),
        setAttribute: (k: string, v: string | number | boolean) => {
          rec.attributes[k] = v;
          return span;
        },
        setStatus: (s: { code: number }) => {
          rec.status = s;
          return span;
        },
        end: () => {},
      };
      return span;
    },
  };
  return { tracer, spans };
}

function recordingMeter() {
  const points: { name: string; unit?: string; value: number; attributes: Attrs }[] = [];
  const meter: NonNullable<TelemetryOptions["meter"]> = {
    createHistogram: (name, options) => ({
      record: (value, attributes = {}) => points.push({ name, ...(options?.unit ? { unit: options.unit } : {}), value, attributes }),
    }),
  };
  return { meter, points };
}

describe("OpenTelemetry MCP and GenAI semantic conventions", () => {
  it("the runtime's names are the conventions' names", () => {
    expect(MCP_CLIENT_METRICS).toEqual({
      operationDuration: METRIC_MCP_CLIENT_OPERATION_DURATION,
      sessionDuration: METRIC_MCP_CLIENT_SESSION_DURATION,
    });
    const attrs = callAttributes("t.x", { transport: "tcp", protocolVersion: "2025-06-18", sessionId: "s1", requestId: 7 });
    expect(Object.keys(attrs).sort()).toEqual(
      [
        ATTR_MCP_METHOD_NAME,
        ATTR_GEN_AI_OPERATION_NAME,
        ATTR_GEN_AI_TOOL_NAME,
        ATTR_NETWORK_TRANSPORT,
        ATTR_MCP_PROTOCOL_VERSION,
        ATTR_MCP_SESSION_ID,
        ATTR_JSONRPC_REQUEST_ID,
      ].sort(),
    );
    expect(attrs[ATTR_NETWORK_TRANSPORT]).toBe(NETWORK_TRANSPORT_VALUE_TCP);
    expect(attrs[ATTR_JSONRPC_REQUEST_ID]).toBe("7");
  });

  it("a stdio tools/call: span attributes, the operation histogram, error.type, and traceparent in _meta", async () => {
    context.setGlobalContextManager(alsContextManager());
    const server = scriptedServer();
    const caller = createStdioCaller({
      name: "scripted",
      command: server.command,
      args: server.args,
      env: server.env,
      traceContext: await createOtelTraceContext(),
    });
    try {
      const { tracer, spans } = recordingTracer();
      const { meter, points } = recordingMeter();
      const runtime = createRuntime({ tracer, telemetry: { meter } });
      runtime.registerToolset({ toolset: "scripted", specs: [spec("scripted", "echo", { a: "integer" })], caller });
      expect((await runtime.execute({ tool: "scripted.echo", arguments: { a: 1 }, callId: "call_9" })).ok).toBe(true);
      const [span] = spans;
      expect(span?.name).toBe("tools/call scripted.echo");
      expect(span?.attributes).toMatchObject({
        [ATTR_MCP_METHOD_NAME]: "tools/call",
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        [ATTR_GEN_AI_TOOL_NAME]: "scripted.echo",
        [ATTR_GEN_AI_TOOL_CALL_ID]: "call_9",
        [ATTR_NETWORK_TRANSPORT]: NETWORK_TRANSPORT_VALUE_PIPE,
      });
      // The span starts before the first connect; from the second call on the handshake's version is known.
      await runtime.execute({ tool: "scripted.echo", arguments: { a: 2 } });
      expect(spans[1]?.attributes[ATTR_MCP_PROTOCOL_VERSION]).toBe(caller.handshake?.protocolVersion);
      expect(typeof caller.handshake?.protocolVersion).toBe("string");
      // W3C trace context reached the server in _meta.
      const calls = server.received("tools/call");
      const metas = calls.map((e) => e.msg?.params?._meta);
      // jsonrpc.request.id is the id the tools/call went out with on the wire, per call.
      expect(calls).toHaveLength(2);
      expect(spans[0]?.attributes[ATTR_JSONRPC_REQUEST_ID]).toBe(String(calls[0]?.msg?.id));
      expect(spans[1]?.attributes[ATTR_JSONRPC_REQUEST_ID]).toBe(String(calls[1]?.msg?.id));
      expect(calls[0]?.msg?.id).not.toBe(calls[1]?.msg?.id);
      expect(metas[0]).toEqual({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" });
      // The client operation histogram, in seconds, with the same attributes.
      expect(points.map((p) => [p.name, p.unit])).toEqual([
        [METRIC_MCP_CLIENT_OPERATION_DURATION, "s"],
        [METRIC_MCP_CLIENT_OPERATION_DURATION, "s"],
      ]);
      expect(points[0]?.attributes).toMatchObject({ [ATTR_MCP_METHOD_NAME]: "tools/call", [ATTR_NETWORK_TRANSPORT]: "pipe" });
      // A refused call: error.type on the span (never sent, so no operation is recorded).
      const refused = await runtime.execute({ tool: "scripted.echo", arguments: { a: "x" } });
      expect(refused.ok).toBe(false);
      const last = spans.at(-1);
      expect(last?.attributes[ATTR_ERROR_TYPE]).toBe("invalid_call");
      expect(points).toHaveLength(2);
    } finally {
      await caller.close();
      server.dispose();
    }
  });

  it("a streamable HTTP tools/call (real server-everything): network.transport tcp and the mcp.session.id the server gave", async () => {
    const { child, port } = await startEverything("streamableHttp");
    const caller = createHttpCaller({ name: "everything", url: `http://127.0.0.1:${port}/mcp` });
    try {
      const { tracer, spans } = recordingTracer();
      const { meter, points } = recordingMeter();
      const runtime = createRuntime({ tracer, telemetry: { meter } });
      runtime.registerToolset({ toolset: "everything", specs: [spec("everything", "echo", { message: "string" })], caller });
      expect((await runtime.execute({ tool: "everything.echo", arguments: { message: "a" } })).ok).toBe(true);
      expect((await runtime.execute({ tool: "everything.echo", arguments: { message: "b" } })).ok).toBe(true);
      const second = spans[1]?.attributes ?? {};
      expect(second[ATTR_NETWORK_TRANSPORT]).toBe(NETWORK_TRANSPORT_VALUE_TCP);
      expect(typeof caller.sessionId).toBe("string");
      expect(second[ATTR_MCP_SESSION_ID]).toBe(caller.sessionId);
      expect(second[ATTR_MCP_PROTOCOL_VERSION]).toBe(caller.handshake?.protocolVersion);
      expect(points[1]?.attributes[ATTR_MCP_SESSION_ID]).toBe(caller.sessionId);
      // Request ids are per call; metrics never carry them (unbounded cardinality).
      expect(spans[0]?.attributes[ATTR_JSONRPC_REQUEST_ID]).toMatch(/^\d+$/);
      expect(second[ATTR_JSONRPC_REQUEST_ID]).toMatch(/^\d+$/);
      expect(second[ATTR_JSONRPC_REQUEST_ID]).not.toBe(spans[0]?.attributes[ATTR_JSONRPC_REQUEST_ID]);
      expect(points[1]?.attributes[ATTR_JSONRPC_REQUEST_ID]).toBeUndefined();
    } finally {
      await caller.close();
      await stopEverything(child);
    }
  });

  it("a streamable HTTP tools/call: jsonrpc.request.id is the id the server received, and the user's onRequestId still hears it", async () => {
    const server = await startScriptedHttpServer();
    const caller = createHttpCaller({ name: "scripted", url: server.url });
    try {
      const { tracer, spans } = recordingTracer();
      const runtime = createRuntime({ tracer });
      runtime.registerToolset({ toolset: "scripted", specs: [spec("scripted", "echo", { message: "string" })], caller });
      const heard: [string | number, string][] = [];
      const onRequestId = (id: string | number, method: string) => heard.push([id, method]);
      expect((await runtime.execute({ tool: "scripted.echo", arguments: { message: "a" } }, { onRequestId })).ok).toBe(true);
      expect((await runtime.execute({ tool: "scripted.echo", arguments: { message: "b" } })).ok).toBe(true);
      const wire = server.rpc("tools/call").map((r) => r.body?.id);
      expect(wire).toHaveLength(2);
      expect(spans.map((s) => s.attributes[ATTR_JSONRPC_REQUEST_ID])).toEqual(wire.map(String));
      expect(heard.filter(([, m]) => m === "tools/call").map(([id]) => id)).toEqual([wire[0]]);
    } finally {
      await caller.close();
      await server.close();
    }
  });

  it("mcp.client.session.duration: one point per session, on close (stdio and HTTP, server-everything) and with error.type when the server dies", async () => {
    const { meter, points } = recordingMeter();
    // stdio, real server-everything: a clean close records one point without error.type.
    const stdio = createStdioCaller({ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"], meter });
    expect((await stdio.callTool({ name: "echo", arguments: { message: "hi" } })).ok).toBe(true);
    const version = stdio.handshake?.protocolVersion;
    expect(points).toHaveLength(0); // nothing until the session ends
    await stdio.close();
    expect(points).toHaveLength(1);
    expect(points[0]).toMatchObject({ name: METRIC_MCP_CLIENT_SESSION_DURATION, unit: "s" });
    expect(points[0]?.attributes).toEqual({ [ATTR_MCP_PROTOCOL_VERSION]: version, [ATTR_NETWORK_TRANSPORT]: NETWORK_TRANSPORT_VALUE_PIPE });
    expect(points[0]?.value).toBeGreaterThan(0);
    // streamable HTTP, real server-everything: tcp, and no mcp.session.id (metrics stay low-cardinality).
    const { child, port } = await startEverything("streamableHttp");
    const http = createHttpCaller({ name: "everything", url: `http://127.0.0.1:${port}/mcp`, meter });
    try {
      expect((await http.callTool({ name: "echo", arguments: { message: "hi" } })).ok).toBe(true);
      expect(typeof http.sessionId).toBe("string");
    } finally {
      await http.close();
      await stopEverything(child);
    }
    expect(points).toHaveLength(2);
    expect(points[1]?.attributes).toEqual({
      [ATTR_MCP_PROTOCOL_VERSION]: expect.any(String),
      [ATTR_NETWORK_TRANSPORT]: NETWORK_TRANSPORT_VALUE_TCP,
    });
    // A server process that exits mid-session: its session ends then, with error.type; close() adds nothing.
    const server = scriptedServer();
    const dying = createStdioCaller({ name: "scripted", command: server.command, args: server.args, env: server.env, meter });
    try {
      expect((await dying.callTool({ name: "echo", arguments: { a: 1 } })).ok).toBe(true);
      expect((await dying.callTool({ name: "exit", arguments: { code: 3 } })).ok).toBe(false);
      expect(points).toHaveLength(3);
      expect(points[2]?.attributes[ATTR_ERROR_TYPE]).toBe("connection_lost");
    } finally {
      await dying.close();
      server.dispose();
    }
    expect(points).toHaveLength(3);
  });

  it("the manager passes its client meter to the callers it builds: a session point per server when it stops", async () => {
    const { meter, points } = recordingMeter();
    const manager = createMcpManager(
      { mcpServers: { memory: { transport: "stdio", command: process.execPath, args: [MEMORY], env: {} } } },
      { client: { meter } },
    );
    try {
      const [status] = await manager.start();
      expect(status?.state).toBe("connected");
      expect(points).toHaveLength(0);
    } finally {
      await manager.stop();
    }
    expect(points).toHaveLength(1);
    expect(points[0]).toMatchObject({ name: METRIC_MCP_CLIENT_SESSION_DURATION, unit: "s" });
    expect(points[0]?.attributes[ATTR_NETWORK_TRANSPORT]).toBe(NETWORK_TRANSPORT_VALUE_PIPE);
    expect(points[0]?.attributes[ATTR_ERROR_TYPE]).toBeUndefined();
  });
});
