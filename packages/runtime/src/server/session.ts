/**
 * One client connection of a tool server, seen from the inside: its negotiated state, the calls it
 * has in flight, and everything it sends the client (messages, and server-to-client requests with
 * their timeouts and cancellation). `tool-server.ts` owns the dispatch; this file owns the wire
 * side of a session so the dispatcher never touches pending-request bookkeeping.
 */

import type { RpcId, RpcMessage, RpcResponse } from "../protocol/json-rpc.js";
import type { Implementation } from "../protocol/mcp-types.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import type { StatelessRevisionName } from "../revisions/2026-07-28/versions.js";
import type { Revision } from "../revisions/registry.js";
import type { Abortable } from "./lazy-abort.js";
import { CAPABILITY_FOR } from "./tool-catalog.js";
import type { LogLevel } from "./types.js";

/** Options for one session. */
export interface SessionOptions {
  /** Session id (HTTP); shown to handlers as `ctx.sessionId`. */
  readonly id?: string;
  /**
   * Writes one outbound message; `related` is the id of the inbound request it belongs to.
   * Returning `false` means the message cannot reach the client (a server-to-client request then fails at once).
   */
  readonly send: (message: RpcMessage, related: RpcId | undefined) => undefined | boolean;
  /** HTTP request headers of a stateless 2026-07-28 request, for `Mcp-Param-*` checks. */
  readonly httpHeaders?: { readonly [name: string]: string | string[] | undefined };
  /**
   * Request `related` ended without a response (the client cancelled it, and MCP says not to
   * answer): HTTP ends that request's POST stream now instead of at session end.
   */
  readonly unanswered?: (related: RpcId) => void;
  /** Ends the response stream of request `related` early (HTTP SSE polling); absent elsewhere. */
  readonly closeStream?: (related: RpcId) => void;
  /**
   * "auto" (default): legacy after `initialize`, stateless (2026-07-28) for requests whose `_meta`
   * names a protocol version. A stateless revision's name: every request must carry its `_meta`
   * (HTTP without a session).
   */
  readonly era?: "auto" | StatelessRevisionName;
}

/** A server-to-client request waiting for its answer. */
interface Outgoing {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly cleanup: () => void;
}

/** The mutable state of one session. */
export interface SessionState {
  readonly options: SessionOptions;
  protocolVersion: string | undefined;
  clientInfo: Implementation | undefined;
  clientCapabilities: { readonly [key: string]: unknown };
  logLevel: LogLevel;
  closed: boolean;
  /** In-flight inbound requests that can be cancelled (`notifications/cancelled`), by id. */
  readonly calls: Map<RpcId, Abortable>;
  readonly outgoing: Map<RpcId, Outgoing>;
  nextId: number;
  /** Resource URIs this session subscribed to (`resources/subscribe`, legacy era). */
  readonly subscriptions: Set<string>;
  /** Reports a send failure or protocol noise to the server's `onError`. */
  readonly report: (error: unknown, where: string) => void;
}

/** A fresh session state. */
export function createSessionState(options: SessionOptions, report: (error: unknown, where: string) => void): SessionState {
  return {
    options,
    protocolVersion: undefined,
    clientInfo: undefined,
    clientCapabilities: {},
    logLevel: "debug",
    closed: false,
    calls: new Map(),
    outgoing: new Map(),
    nextId: 1,
    subscriptions: new Set(),
    report,
  };
}

/** Writes one message; false when the session is closed or the transport cannot deliver it. */
export function sendTo(state: SessionState, message: RpcMessage, related: RpcId | undefined): boolean {
  if (state.closed) return false;
  try {
    return state.options.send(message, related) !== false;
  } catch (error) {
    state.report(error, "send");
    return false;
  }
}

/**
 * Sends a server-to-client request on the stream of inbound request `related` and resolves with
 * its result. Rejects at once when the client lacks the capability (-32601) or the message cannot
 * be delivered; on abort or timeout it tells the client with `notifications/cancelled`.
 */
export function requestClient(
  state: SessionState,
  capabilities: { readonly [key: string]: unknown },
  related: RpcId,
  signal: AbortSignal,
  method: string,
  params: { readonly [key: string]: unknown } | undefined,
  timeoutMs: number,
): Promise<unknown> {
  const capability = CAPABILITY_FOR[method];
  if (capability !== undefined && capabilities[capability] === undefined) {
    return Promise.reject(new RpcHandlerError(-32601, `The client did not declare the "${capability}" capability needed for ${method}`));
  }
  if (signal.aborted) return Promise.reject(new RpcHandlerError(-32800, "Request cancelled"));
  const id = `s${state.nextId++}`;
  return new Promise((resolve, reject) => {
    const onAbort = () => finish(new RpcHandlerError(-32800, "Request cancelled"));
    const timer = setTimeout(() => finish(new RpcHandlerError(-32001, `No answer to ${method} within ${timeoutMs} ms`)), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      state.outgoing.delete(id);
    };
    const finish = (error: Error) => {
      if (!state.outgoing.has(id)) return;
      cleanup();
      sendTo(
        state,
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "request abandoned by server" } },
        related,
      );
      reject(error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    state.outgoing.set(id, { resolve, reject, cleanup });
    if (!sendTo(state, { jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }, related)) {
      cleanup();
      reject(new RpcHandlerError(-32603, `Cannot send ${method} to the client on this connection (no response stream open)`));
    }
  });
}

/** Settles the server-to-client request a client response answers; unknown ids are reported, not thrown. */
export function settleResponse(state: SessionState, response: RpcResponse): void {
  const pending = response.id === null ? undefined : state.outgoing.get(response.id);
  if (!pending) {
    state.report(new Error(`response for unknown id ${JSON.stringify(response.id)}`), "receive");
    return;
  }
  pending.cleanup();
  const err = response.error;
  if (err) pending.reject(new RpcHandlerError(err.code, String(err.message ?? ""), err.data));
  else pending.resolve(response.result);
}

/** Aborts in-flight handlers and fails pending server-to-client requests; the session sends nothing more. */
export function closeSessionState(state: SessionState): void {
  if (state.closed) return;
  for (const controller of state.calls.values()) controller.abort(new Error("session closed"));
  for (const pending of [...state.outgoing.values()]) {
    pending.cleanup();
    pending.reject(new RpcHandlerError(-32000, "Session closed"));
  }
  state.closed = true;
}

/** What one request runs under: the session's negotiated state, or its own 2026-07-28 `_meta`. */
export interface RequestScope {
  /** The revision this request speaks; it shapes the answer. */
  readonly revision: Revision;
  /** True for a stateless (`server/discover`) revision's request: its own `_meta`, no session state. */
  readonly modern: boolean;
  readonly version: string;
  readonly capabilities: { readonly [key: string]: unknown };
  readonly clientInfo: Implementation | undefined;
  /** Minimum level to send; undefined sends no log messages. */
  readonly logLevel: LogLevel | undefined;
}
