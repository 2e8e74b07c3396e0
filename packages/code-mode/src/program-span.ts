/**
 * One telemetry span per program. With a tracer, `@opentelemetry/api` (an optional peer, loaded
 * only then) makes the span active while the program runs, so the runtime's `tools/call` span of
 * each host call nests under it.
 */
import type { TracerLike } from "@toolwright/runtime";

interface OtelContextApi {
  trace: { setSpan(context: unknown, span: unknown): unknown };
  context: { active(): unknown; with<T>(context: unknown, fn: () => T): T };
}

// A variable specifier keeps bundlers and tsc from treating the optional peer as a hard dependency.
const OTEL_MODULE = "@opentelemetry/api";
const STATUS_OK = 1;
const STATUS_ERROR = 2;

async function loadOtel(): Promise<OtelContextApi | undefined> {
  try {
    const mod = (await import(OTEL_MODULE)) as { default?: unknown };
    const api = (mod.default ?? mod) as Partial<OtelContextApi>;
    return api.trace && api.context ? (api as OtelContextApi) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `fn` inside a `code_mode program` span when `tracer` is set; the span's status is the program's outcome. */
export async function withProgramSpan<T extends { readonly ok: boolean; readonly calls: readonly unknown[] }>(
  tracer: TracerLike | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (!tracer) return fn();
  const otel = await loadOtel();
  const span = tracer.startSpan("code_mode program", { attributes: { "toolwright.code_mode": true } });
  try {
    const result = await (otel ? otel.context.with(otel.trace.setSpan(otel.context.active(), span), fn) : fn());
    span.setAttribute("toolwright.code_mode.calls", result.calls.length);
    span.setStatus({ code: result.ok ? STATUS_OK : STATUS_ERROR });
    return result;
  } catch (error) {
    span.setStatus({ code: STATUS_ERROR, message: String((error as Error)?.message ?? error).slice(0, 200) });
    throw error;
  } finally {
    span.end();
  }
}
