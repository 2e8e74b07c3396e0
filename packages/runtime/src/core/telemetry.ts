/**
 * Telemetry for runtime calls: plain events (started, finished, failed) and, only when asked for,
 * OpenTelemetry spans through `@opentelemetry/api`, an optional peer loaded lazily.
 */
import type { FailureKind, FailureReason, RecoveryAction } from "../failure/failure.js";

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

/** Telemetry options of `createRuntime`. */
export interface TelemetryOptions {
  /** Receives every call event. Exceptions it throws are swallowed. */
  readonly onEvent?: (event: RuntimeEvent) => void;
  /** `true` loads `@opentelemetry/api` lazily and uses its global tracer `toolwright`. */
  readonly tracing?: boolean;
  /** A tracer to use for spans (also loads `@opentelemetry/api` lazily, to make spans active). */
  readonly tracer?: TracerLike;
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
}

/** Emits events and spans. */
export interface Telemetry {
  emit(event: RuntimeEvent): void;
  /** Starts a span when tracing is on; otherwise returns a no-op span. */
  startSpan(tool: string, server: string, callId: string | undefined): Promise<CallSpan>;
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
  return {
    emit(event) {
      try {
        options.onEvent?.(event);
      } catch {
        // a faulty listener must never break a call
      }
    },
    async startSpan(tool, server, callId) {
      if (!wantSpans) return NO_SPAN;
      const otel = await loadApi();
      const tracer = options.tracer ?? otel?.trace.getTracer("toolwright", "0.1.0");
      if (!tracer) return NO_SPAN;
      const attributes: { [key: string]: string } = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": tool,
        "mcp.server.name": server,
      };
      if (callId !== undefined) attributes["gen_ai.tool.call.id"] = callId;
      const span = tracer.startSpan(`tools/call ${tool}`, { attributes, kind: SPAN_KIND_CLIENT });
      return {
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
