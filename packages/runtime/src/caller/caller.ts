/**
 * The `Caller` contract: anything that can run one `tools/call` and answer with a result or a
 * failure value. Stdio, HTTP and in-memory callers all implement it (over `session-core.ts`).
 */

import type { Result } from "../failure/result.js";
import type { RpcNotification } from "../protocol/json-rpc.js";
import type { EraPreference, TraceContextOption } from "../protocol/mcp-client.js";
import type { CallToolResult, Implementation, ServerHandshake, ToolDescriptor } from "../protocol/mcp-types.js";
import type { RequestHandler } from "../protocol/rpc-peer.js";
import type { TaskStatus } from "../protocol/task-call.js";
import type { Wiretap } from "../protocol/wiretap.js";
import type { CallOptions } from "./call-options.js";
import type { ListName, McpSurface } from "./surface.js";
import type { MeterLike } from "./telemetry-facts.js";

export type { CallOptions } from "./call-options.js";

/** One tool call on the wire. */
export interface CallRequest {
  /** The wire name of the tool. */
  readonly name: string;
  readonly arguments: { readonly [key: string]: unknown };
  /** Extra `_meta` for this call (merged with trace context). */
  readonly meta?: { readonly [key: string]: unknown };
}

/** The raw answer to a call: a `Result` whose value is the server's result (maybe `isError`). */
export type CallResponse = Result<CallToolResult>;

/** A started task-augmented call. */
export interface ToolTask {
  /** The task id; undefined when the server answered at once (then `result()` is that answer). */
  readonly taskId: string | undefined;
  status(): Promise<Result<TaskStatus>>;
  /** Follows the task to its end: the tool's result, or a failure. */
  result(): Promise<CallResponse>;
  cancel(): Promise<Result<void>>;
}

/** Anything that can call tools on one server. */
export interface Caller {
  /** The server name used in failures and telemetry. */
  readonly server: string;
  callTool(request: CallRequest, options?: CallOptions): Promise<CallResponse>;
  /** Lists the server's tools, every page. */
  listTools?(options?: CallOptions): Promise<Result<readonly ToolDescriptor[]>>;
  /** Releases connections and child processes. */
  close?(): Promise<void>;
}

/**
 * Thrown when a caller is used after `close()`. That is a programmer error, the one case that
 * throws instead of returning a failure value; calls in flight at close time still resolve.
 */
export class CallerClosedError extends Error {
  readonly code = "ERR_TOOLWRIGHT_CALLER_CLOSED";
  constructor(readonly server: string) {
    super(`the caller for ${server} is closed`);
    this.name = "CallerClosedError";
  }
}

/** True for a `CallerClosedError` (checked by code, so copies of the class from other bundles match). */
export function isCallerClosedError(error: unknown): error is CallerClosedError {
  return (error as { code?: unknown } | null)?.code === "ERR_TOOLWRIGHT_CALLER_CLOSED";
}

const PROPAGATES = Symbol.for("toolwright.propagates");

/**
 * Marks an error thrown by a caller as one the typed call path must rethrow instead of turning it
 * into a failure value: a durable engine's interruption (crash, cancellation, lost claim) ends the run.
 */
export function markPropagating(error: unknown): unknown {
  const target = typeof error === "object" && error !== null ? error : new Error(String(error));
  if (Object.isExtensible(target)) Object.defineProperty(target, PROPAGATES, { value: true });
  return target;
}

/** True for errors the typed call path rethrows: a closed caller, or an error marked with `markPropagating`. */
export function propagates(error: unknown): boolean {
  return (
    isCallerClosedError(error) ||
    (typeof error === "object" && error !== null && (error as { [PROPAGATES]?: unknown })[PROPAGATES] === true)
  );
}

/** Options the stdio and HTTP callers share. */
export interface SessionCallerOptions {
  /** Server name used in failures. */
  readonly name?: string;
  readonly clientInfo?: Implementation;
  /** Pin the protocol version (a legacy one for `initialize`, or 2026-07-28). */
  readonly protocolVersion?: string;
  /** Client capabilities. Default: derived from `handlers`. */
  readonly capabilities?: { readonly [key: string]: unknown };
  /** `auto`: `server/discover` probe, then `initialize`; `legacy`: `initialize`; `2026-07-28`: that revision only. */
  readonly era?: EraPreference;
  /** Time allowed for the `server/discover` probe in `auto` mode. */
  readonly probeTimeoutMs?: number;
  /**
   * W3C trace context in `tools/call` `_meta`: none by default; a function supplies it (e.g.
   * `createOtelTraceContext()`, the active span's), `true` generates a fresh traceparent per call.
   */
  readonly traceContext?: TraceContextOption;
  /** Upper bound on `input_required` round trips per call (modern era). Default 8. */
  readonly maxInputRounds?: number;
  /** Server-to-client request handlers (roots/list, sampling/createMessage, elicitation/create...). */
  readonly handlers?: ReadonlyMap<string, RequestHandler>;
  /** Server notifications (list_changed, logging...). */
  readonly onNotification?: (notification: RpcNotification) => void;
  /** A list changed on the server (`notifications/<list>/list_changed`); cached lists were dropped first. */
  readonly onListChanged?: (list: ListName) => void;
  /** Time allowed for connecting (spawn or era detection) plus the handshake. Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Default time allowed for each call. Default 60 s. */
  readonly timeoutMs?: number;
  /** Tasks (2025-11-25 capability, 2026-07-28 extension) are declared and served unless false. */
  readonly tasks?: boolean;
  /**
   * An OpenTelemetry meter (or anything with `createHistogram`): each session this caller opens is
   * recorded on `mcp.client.session.duration` (seconds) when it ends, with `error.type` when it
   * ended by a lost connection or an expired session rather than `close()`. The caller owns the
   * session lifetime, so it records it; pass the same meter as the runtime's `telemetry.meter`.
   */
  readonly meter?: MeterLike;
  /**
   * Sees every JSON-RPC message of every session this caller opens, as sent and as received, and
   * every send the transport refused: the seam the test kit records cassettes on. Never changes them.
   */
  readonly wiretap?: Wiretap;
}

/** A caller with a live MCP session: what the stdio and HTTP callers share (tools, and the surface beyond them). */
export interface SessionCaller extends Caller, McpSurface {
  /** Connects now (otherwise the first call connects). */
  connect(options?: { readonly signal?: AbortSignal }): Promise<Result<ServerHandshake>>;
  listTools(options?: CallOptions): Promise<Result<readonly ToolDescriptor[]>>;
  ping(options?: CallOptions): Promise<Result<void>>;
  /**
   * Any other request (resources/read, prompts/get, completion/complete...) in the session's era:
   * modern `_meta` and routing headers, -32022 retry and the MRTR loop included.
   */
  request(method: string, params?: { readonly [key: string]: unknown }, options?: CallOptions): Promise<Result<unknown>>;
  /**
   * Starts a call as a task and answers at once with a handle ("handle" mode; `callTool` awaits the
   * task instead). Tools that allow or require a task get one; others answer at once.
   */
  startToolTask(request: CallRequest, options?: CallOptions): Promise<Result<ToolTask>>;
  /** Sends a notification on the live connection (e.g. roots/list_changed); false when not connected. */
  notify(method: string, params?: { readonly [key: string]: unknown }): Promise<boolean>;
  /** The handshake of the live connection, if any. */
  readonly handshake: ServerHandshake | undefined;
  close(): Promise<void>;
}

/** Adapts a function to the `Caller` contract. */
export function callerFunc(
  server: string,
  fn: (request: CallRequest, options: CallOptions) => Promise<CallResponse> | CallResponse,
): Caller {
  return {
    server,
    callTool: async (request, options = {}) => fn(request, options),
  };
}
