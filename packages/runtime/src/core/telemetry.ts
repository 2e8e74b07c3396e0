/**
 * Telemetry for runtime calls: plain events (started, finished, failed) and, only when asked for,
 * OpenTelemetry spans through `@opentelemetry/api`, an optional peer loaded lazily.
 */

import type { Principal } from "../caller/principal.js";
import { type CallConnection, connectionOf, type HistogramLike, MCP_CLIENT_METRICS, type MeterLike } from "../caller/telemetry-facts.js";
import type { FailureKind, FailureReason, RecoveryAction } from "../failure/failure.js";
import { PRINCIPAL_HASH_ATTRIBUTE } from "./principal-hash.js";

/** Fields every call event carries. */
interface CallEventBase {
  /** The model's call id, when the request came from a model. */
  readonly callId?: string;
  /** Tool id, or the unknown name for `tool_unavailable`. */
  readonly tool: string;
  readonly toolset?: string;
  /** Server name; empty when the call never reached one. */
  readonly server: string;
  /** Epoch ms when the event happened. */
  readonly at: number;
  /** The principal's pseudonym, with `principalHash` set and a call made for a principal (never the id). */
  readonly principalHash?: string;
}

/** A runtime event. */
export type RuntimeEvent =
  | (CallEventBase & { readonly type: "call_started" })
  | (CallEventBase & { readonly type: "call_finished"; readonly durationMs: number })
  | (CallEventBase & {
      readonly type: "call_failed";
      readonly durationMs: number;
      readonly kind: FailureKind;
      readonly action: RecoveryAction;
      readonly reason?: FailureReason;
      /** False when the runtime refused the call before sending it. */
      readonly sent: boolean;
    });

/** The part of an OpenTelemetry `Span` the runtime uses. */
export interface SpanLike {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** The part of an OpenTelemetry `Tracer` the runtime uses. */
export interface TracerLike {
  startSpan(name: string, options?: { attributes?: { [key: string]: string | number | boolean }; kind?: number }): SpanLike;
}

export { type CallConnection, connectionOf, type HistogramLike, MCP_CLIENT_METRICS, type MeterLike };

/** Telemetry options of `createRuntime`. */
export interface TelemetryOptions {
  /** Receives every call event. Exceptions it throws are swallowed. */
  readonly onEvent?: (event: RuntimeEvent) => void;
  /** `true` loads `@opentelemetry/api` lazily and uses its global tracer `toolwright`. */
  readonly tracing?: boolean;
  /** A tracer to use for spans (also loads `@opentelemetry/api` lazily, to make spans active). */
  readonly tracer?: TracerLike;
  /** A meter for the MCP client metrics (`mcp.client.operation.duration`, in seconds). */
  readonly meter?: MeterLike;
  /**
   * Opt-in: spans and events of calls made for a principal carry `toolwright.principal.hash`
   * (event field `principalHash`), the first 16 hex digits of HMAC-SHA256(key, principal id) under
   * this key (at least 16 bytes; keep it secret, or anyone can test a guessed id against a hash),
   * or the value your function returns (1 to 128 characters of `A-Z a-z 0-9 _ - . :`; anything
   * else, the id itself or a throw adds nothing). Without it no principal attribute is added at all.
   */
  readonly principalHash?: string | Uint8Array | ((principal: Principal) => string | Promise<string>);
}

interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): TracerLike;
    setSpan(context: unknown, span: SpanLike): unknown;
  };
  context: { active(): unknown; with<T>(context: unknown, fn: () => T): T };
}

const SPAN_KIND_CLIENT = 2;
const STATUS_OK = 1;
const STATUS_ERROR = 2;

/** An open span for one call. */
export interface CallSpan {
  /** Runs `fn` with this span active (so nested instrumentation and trace context see it). */
  run<T>(fn: () => Promise<T>): Promise<T>;
  end(outcome: { readonly kind?: FailureKind; readonly reason?: FailureReason; readonly message?: string }): void;
  /**
   * Sets `jsonrpc.request.id` once the caller has assigned it (the span starts before the request
   * exists). Absent on the no-op span, so the runtime only observes ids when spans are recorded.
   */
  readonly requestId?: (id: string | number) => void;
}

/** Emits events and spans. */
export interface Telemetry {
  emit(event: RuntimeEvent): void;
  /** Starts a span when tracing is on; otherwise returns a no-op span. */
  startSpan(
    tool: string,
    server: string,
    callId: string | undefined,
    connection?: CallConnection,
    principalHash?: string,
  ): Promise<CallSpan>;
  /** Records one operation's duration on the meter, when one was given. */
  recordOperation(seconds: number, tool: string, connection: CallConnection, errorType: string | undefined): void;
}

/** The MCP and GenAI semantic-convention attributes of one `tools/call`. */
export function callAttributes(tool: string, connection: CallConnection = {}): { [key: string]: string } {
  const attributes: { [key: string]: string } = {
    "mcp.method.name": "tools/call",
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": tool,
  };
  if (connection.transport !== undefined) attributes["network.transport"] = connection.transport;
  if (connection.protocolVersion !== undefined) attributes["mcp.protocol.version"] = connection.protocolVersion;
  if (connection.sessionId !== undefined) attributes["mcp.session.id"] = connection.sessionId;
  if (connection.requestId !== undefined) attributes["jsonrpc.request.id"] = String(connection.requestId);
  return attributes;
}

const NO_SPAN: CallSpan = { run: (fn) => fn(), end: () => {} };

// A variable specifier keeps bundlers and tsc from treating the optional peer as a hard dependency.
const OTEL_MODULE = "@opentelemetry/api";

/** Creates the telemetry hub. Loads `@opentelemetry/api` only when `tracing` or `tracer` is set. */
export function createTelemetry(options: TelemetryOptions = {}, load: () => Promise<unknown> = () => import(OTEL_MODULE)): Telemetry {
  const wantSpans = options.tracing === true || options.tracer !== undefined;
  let api: Promise<OtelApi | undefined> | undefined;
  const loadApi = () => {
    api ??= load().then(
      (mod) => {
        const m = ((mod as { default?: unknown }).default ?? mod) as Partial<OtelApi>;
        return m.trace && m.context ? (m as OtelApi) : undefined;
      },
      () => undefined,
    );
    return api;
  };
  let operation: HistogramLike | undefined;
  return {
    emit(event) {
      try {
        options.onEvent?.(event);
      } catch {
        // a faulty listener must never break a call
      }
    },
    recordOperation(seconds, tool, connection, errorType) {
      if (!options.meter) return;
      try {
        operation ??= options.meter.createHistogram(MCP_CLIENT_METRICS.operationDuration, {
          description: "Duration of MCP requests from the client's side",
          unit: "s",
        });
        operation.record(seconds, { ...callAttributes(tool, connection), ...(errorType === undefined ? {} : { "error.type": errorType }) });
      } catch {
        // a faulty meter must never break a call
      }
    },
    async startSpan(tool, server, callId, connection, principalHash) {
      if (!wantSpans) return NO_SPAN;
      const otel = await loadApi();
      const tracer = options.tracer ?? otel?.trace.getTracer("toolwright", "0.1.0");
      if (!tracer) return NO_SPAN;
      // Toolwright's own attribute for the server's configured name (the conventions have none for it).
      const attributes: { [key: string]: string } = { ...callAttributes(tool, connection), "mcp.server.name": server };
      if (callId !== undefined) attributes["gen_ai.tool.call.id"] = callId;
      if (principalHash !== undefined) attributes[PRINCIPAL_HASH_ATTRIBUTE] = principalHash;
      const span = tracer.startSpan(`tools/call ${tool}`, { attributes, kind: SPAN_KIND_CLIENT });
      let idSet = false;
      return {
        requestId(id) {
          // The first tools/call id names the request; a retry's or a task poll's id does not replace it.
          if (idSet) return;
          idSet = true;
          span.setAttribute("jsonrpc.request.id", String(id));
        },
        run: (fn) => (otel ? otel.context.with(otel.trace.setSpan(otel.context.active(), span), fn) : fn()),
        end(outcome) {
          if (outcome.kind !== undefined) {
            span.setAttribute("toolwright.failure.kind", outcome.kind);
            if (outcome.reason !== undefined) span.setAttribute("toolwright.failure.reason", outcome.reason);
            span.setAttribute("error.type", outcome.kind);
            span.setStatus({ code: STATUS_ERROR, ...(outcome.message === undefined ? {} : { message: outcome.message.slice(0, 200) }) });
          } else span.setStatus({ code: STATUS_OK });
          span.end();
        },
      };
    },
  };
}

/** W3C trace context for a call's `_meta`, as the callers' `traceContext` option expects. */
export type TraceContextFn = () => { readonly traceparent: string; readonly tracestate?: string } | undefined;

interface OtelSpanContextApi {
  trace: {
    getActiveSpan():
      | { spanContext(): { traceId: string; spanId: string; traceFlags: number; traceState?: { serialize(): string } } }
      | undefined;
  };
}

/**
 * Loads `@opentelemetry/api` and returns a `traceContext` function for `createStdioCaller` or
 * `createHttpCaller`: the active span's trace context (the runtime's `tools/call` span when
 * tracing is on). Without the package, or without an active span, it returns undefined.
 */
export async function createOtelTraceContext(load: () => Promise<unknown> = () => import(OTEL_MODULE)): Promise<TraceContextFn> {
  let api: OtelSpanContextApi | undefined;
  try {
    const mod = (await load()) as { default?: unknown };
    api = (mod.default ?? mod) as OtelSpanContextApi;
  } catch {
    return () => undefined;
  }
  return () => {
    const context = api?.trace?.getActiveSpan()?.spanContext();
    if (!context || !/^[0-9a-f]{32}$/.test(context.traceId) || /^0+$/.test(context.traceId) || !/^[0-9a-f]{16}$/.test(context.spanId))
      return undefined;
    const traceparent = `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 1) === 1 ? "01" : "00"}`;
    const tracestate = context.traceState?.serialize();
    return tracestate ? { traceparent, tracestate } : { traceparent };
  };
}
