import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { context, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { alsContextManager } from "../../../../test/support/otel-context.js";
import type { ToolSpec } from "../caller/tool-spec.js";
import { createInMemoryCaller } from "../index.js";
import { createRuntime } from "./runtime.js";
import { createOtelTraceContext, createTelemetry, type SpanLike, type TracerLike } from "./telemetry.js";

interface Recorded {
  name: string;
  attributes: { [key: string]: unknown };
  status?: { code: number; message?: string };
  ended: boolean;
}

function fakeTracer(): TracerLike & { spans: Recorded[] } {
  const spans: Recorded[] = [];
  return {
    spans,
    startSpan(name, options) {
      const rec: Recorded = { name, attributes: { ...options?.attributes }, ended: false };
      spans.push(rec);
      const span: SpanLike & { spanContext(): unknown } = {
        spanContext: () => ({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: `00f067aa0ba902b${spans.length}`, traceFlags: 1 }),
        setAttribute: (k, v) => {
          rec.attributes[k] = v;
          return span;
        },
        setStatus: (s) => {
          rec.status = s;
          return span;
        },
        end: () => {
          rec.ended = true;
        },
      };
      return span;
    },
  };
}

const spec = (name: string): ToolSpec => ({
  id: `t.${name}`,
  toolset: "t",
  name,
  providerName: `t_${name}`,
  inputSchema: { type: "object" },
  decodePayload: (v) => ({ ok: true, value: v }),
});

function runtimeWith(options: Parameters<typeof createRuntime>[0]) {
  const runtime = createRuntime(options);
  runtime.registerToolset({
    toolset: "t",
    specs: [spec("ok"), spec("bad")],
    caller: createInMemoryCaller("srv", {
      ok: () => ({ content: [{ type: "text", text: "fine" }] }),
      bad: () => ({ content: [{ type: "text", text: "no" }], isError: true }),
    }),
  });
  return runtime;
}

afterEach(() => {
  trace.disable();
  context.disable();
});

describe("OpenTelemetry spans", () => {
  it("the runtime never imports @opentelemetry/api statically and declares it an optional peer", () => {
    const src = fileURLToPath(new URL("..", import.meta.url));
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.filter((f) => /(from|import)\s*\(?\s*["']@opentelemetry\/api["']/.test(readFileSync(`${src}/${f}`, "utf8")));
    expect(offenders).toEqual([]);
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependenciesMeta["@opentelemetry/api"]).toEqual({ optional: true });
  });

  it("does not load @opentelemetry/api unless tracing is asked for", async () => {
    let loads = 0;
    const load = async () => {
      loads++;
      return import("@opentelemetry/api");
    };
    const off = createTelemetry({}, load);
    const span = await off.startSpan("t.ok", "srv", undefined);
    span.end({});
    expect(loads).toBe(0);
    const on = createTelemetry({ tracing: true }, load);
    await on.startSpan("t.ok", "srv", undefined);
    await on.startSpan("t.ok", "srv", undefined);
    expect(loads).toBe(1);
  });

  it("a missing @opentelemetry/api means no spans, not a failure", async () => {
    const t = createTelemetry({ tracing: true }, () => Promise.reject(new Error("Cannot find module")));
    const span = await t.startSpan("t.ok", "srv", undefined);
    expect(await span.run(async () => 7)).toBe(7);
  });

  it("a passed tracer gets one span per call with tool, server and failure kind", async () => {
    const tracer = fakeTracer();
    const runtime = runtimeWith({ tracer });
    await runtime.execute({ tool: "t.ok", arguments: {}, callId: "call-1" });
    await runtime.execute({ tool: "t.bad", arguments: {} });
    expect(tracer.spans).toHaveLength(2);
    expect(tracer.spans[0]).toMatchObject({
      name: "tools/call t.ok",
      attributes: { "gen_ai.tool.name": "t.ok", "mcp.server.name": "srv", "gen_ai.tool.call.id": "call-1" },
      status: { code: 1 },
      ended: true,
    });
    expect(tracer.spans[1]).toMatchObject({
      attributes: { "toolwright.failure.kind": "domain_rejection" },
      status: { code: 2 },
      ended: true,
    });
  });

  it("tracing: true uses the global tracer of @opentelemetry/api and makes the span active", async () => {
    const tracer = fakeTracer();
    let activeDuringCall: unknown;
    trace.setGlobalTracerProvider({ getTracer: () => tracer as never });
    context.setGlobalContextManager(alsContextManager());
    const runtime = createRuntime({ tracing: true });
    runtime.registerToolset({
      toolset: "t",
      specs: [spec("ok")],
      caller: createInMemoryCaller("srv", {
        ok: () => {
          activeDuringCall = trace.getActiveSpan();
          return { content: [{ type: "text", text: "fine" }] };
        },
      }),
    });
    expect((await runtime.execute({ tool: "t.ok", arguments: {} })).ok).toBe(true);
    expect(tracer.spans.map((s) => s.name)).toEqual(["tools/call t.ok"]);
    expect(activeDuringCall).toBeDefined();
  });

  it("createOtelTraceContext gives callers the active tools/call span as W3C trace context", async () => {
    const tracer = fakeTracer();
    trace.setGlobalTracerProvider({ getTracer: () => tracer as never });
    context.setGlobalContextManager(alsContextManager());
    const traceContext = await createOtelTraceContext();
    const seen: unknown[] = [];
    const runtime = createRuntime({ tracing: true });
    runtime.registerToolset({
      toolset: "t",
      specs: [spec("ok")],
      caller: createInMemoryCaller("srv", {
        ok: () => {
          seen.push(traceContext());
          return { content: [{ type: "text", text: "fine" }] };
        },
      }),
    });
    await runtime.execute({ tool: "t.ok", arguments: {} });
    expect(seen).toEqual([{ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b1-01" }]);
    expect(traceContext()).toBeUndefined(); // no active span outside a call
    const missing = await createOtelTraceContext(() => Promise.reject(new Error("not installed")));
    expect(missing()).toBeUndefined();
  });
});
