/**
 * Builds the `ToolContext` a handler receives from the pieces its session provides: where
 * notifications go, how input is asked for, and which log level applies.
 */
import type { RpcId } from "../protocol/json-rpc.js";
import type { Implementation } from "../protocol/mcp-types.js";
import { DEFAULT_CLIENT_REQUEST_TIMEOUT_MS, LOG_LEVELS } from "./tool-catalog.js";
import type { LogLevel, ToolContext } from "./types.js";

/** What a session hands over to build one call's context. */
export interface ContextParts {
  /** Where the call's signal comes from, read on first use (a `LazyAbortController` makes it then). */
  readonly abort: { readonly signal: AbortSignal };
  readonly requestId: RpcId;
  readonly sessionId: string | undefined;
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: { readonly [key: string]: unknown };
  readonly meta: { readonly [key: string]: unknown };
  /** The minimum level to send right now; undefined sends no log messages. */
  readonly logFloor: () => LogLevel | undefined;
  /** Sends a notification that belongs to this call. */
  readonly notify: (method: string, params: { readonly [key: string]: unknown }) => void;
  /** Asks the client for input under `key` (a server-to-client request, or an input_required round). */
  readonly ask: (
    key: string,
    method: string,
    params: { readonly [key: string]: unknown } | undefined,
    timeoutMs: number,
  ) => Promise<unknown>;
  readonly closeSseStream: () => void;
}

/**
 * The context of one call. A class rather than an object literal: a literal with a getter (for the
 * lazy `signal`) took V8's slow literal path, ~1.3 KB and a new hidden class per call in the issue 32
 * allocation profile. `signal` lives on the prototype; the methods stay own properties, so a handler
 * may still destructure them (`(payload, { progress }) => ...`).
 */
class CallContext implements ToolContext {
  readonly #abort: { readonly signal: AbortSignal };
  readonly requestId: RpcId;
  readonly sessionId: string | undefined;
  readonly protocolVersion: string;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: { readonly [key: string]: unknown };
  readonly meta: { readonly [key: string]: unknown };
  readonly progress: ToolContext["progress"];
  readonly log: ToolContext["log"];
  readonly request: ToolContext["request"];
  readonly input: ToolContext["input"];
  readonly closeSseStream: () => void;

  constructor(parts: ContextParts) {
    this.#abort = parts.abort;
    this.requestId = parts.requestId;
    this.sessionId = parts.sessionId;
    this.protocolVersion = parts.protocolVersion;
    this.clientInfo = parts.clientInfo;
    this.clientCapabilities = parts.clientCapabilities;
    this.meta = parts.meta;
    const token = parts.meta.progressToken;
    let lastProgress = Number.NEGATIVE_INFINITY;
    let autoKey = 0;
    const abort = parts.abort;
    this.progress = async (progress, total, message) => {
      if ((typeof token !== "string" && typeof token !== "number") || abort.signal.aborted) return;
      // Progress must increase; a stale or repeated value is dropped rather than sent.
      if (!(progress > lastProgress)) return;
      lastProgress = progress;
      parts.notify("notifications/progress", {
        progressToken: token,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      });
    };
    this.log = async (level, data, logger) => {
      const floor = parts.logFloor();
      if (floor === undefined || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(floor)) return;
      parts.notify("notifications/message", { level, data, ...(logger ? { logger } : {}) });
    };
    // Automatic keys are stable across replays because a replayed handler asks in the same order.
    this.request = (method, body, opts) =>
      parts.ask(`request-${++autoKey}`, method, body, opts?.timeoutMs ?? DEFAULT_CLIENT_REQUEST_TIMEOUT_MS);
    this.input = (key, method, body) => parts.ask(key, method, body, DEFAULT_CLIENT_REQUEST_TIMEOUT_MS);
    this.closeSseStream = parts.closeSseStream;
  }

  /** Read through `abort`, so that the call's AbortController is made only if the handler reads it (lazy-abort.ts). */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
}

/** Creates the context of one `tools/call`. */
export function createToolContext(parts: ContextParts): ToolContext {
  return new CallContext(parts);
}
