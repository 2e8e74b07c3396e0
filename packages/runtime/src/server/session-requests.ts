/**
 * The per-session request loop of `createToolServer` (tool-server.ts): reading one inbound value,
 * choosing a request's scope (legacy session or stateless 2026-07-28 request), answering it (or not,
 * when cancelled), cancellation notifications, the cancellable surface dispatch, the legacy fan-out
 * of list changes, and the `ServerSession` handle a transport holds. Module functions that take what
 * they need, so the server's factory keeps only the wiring and the method dispatch.
 */
import { classify, type RpcNotification, type RpcRequest } from "../protocol/json-rpc.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import { type Revision, revisionForVersion } from "../revisions/registry.js";
import { CANCELLED } from "./call-route.js";
import type { ListenEvent } from "./listen.js";
import { isModernRequest, modernScope } from "./modern.js";
import { type RequestScope, requestClient, type SessionState, sendTo, settleResponse } from "./session.js";
import { NOT_SURFACE, type SurfaceServer } from "./surface-server.js";
import { LOG_LEVELS } from "./tool-catalog.js";

/** One client connection's state: negotiated version, log level, in-flight calls. */
export interface ServerSession {
  readonly id: string | undefined;
  /** The negotiated version, once `initialize` was answered. */
  readonly protocolVersion: string | undefined;
  readonly closed: boolean;
  /** Feeds one parsed inbound value (a message, or a 2025-03-26 batch array). */
  receive(value: unknown): void;
  /** Aborts in-flight handlers and pending server-to-client requests. */
  close(): void;
}

/** Reports an error to the server's `onError` (never throws). */
export type Report = (error: unknown, where: string) => void;

const LEGACY_NOTIFICATION: { readonly [kind: string]: string } = {
  toolsListChanged: "notifications/tools/list_changed",
  promptsListChanged: "notifications/prompts/list_changed",
  resourcesListChanged: "notifications/resources/list_changed",
};

/** The scope a request runs in: the session's legacy revision, or the 2026-07-28 one its `_meta` names. */
export function scopeFor(state: SessionState, request: RpcRequest, legacy: Revision, newest: string): RequestScope {
  // A session that ran initialize stays legacy for good; only an uninitialized one can take per-request _meta.
  const pinned = state.options.era !== undefined && state.options.era !== "auto";
  const modern = pinned || (state.protocolVersion === undefined && isModernRequest(request.params));
  if (!modern) {
    return {
      revision: legacy,
      modern: false,
      version: state.protocolVersion ?? newest,
      capabilities: state.clientCapabilities,
      clientInfo: state.clientInfo,
      logLevel: state.logLevel,
    };
  }
  const m = modernScope(request.params, LOG_LEVELS);
  const revision = revisionForVersion(m.version) as Revision;
  return { revision, modern: true, version: m.version, capabilities: m.capabilities, clientInfo: m.clientInfo, logLevel: m.logLevel };
}

/** Resources, prompts and completions; cancellable like a tool call (`notifications/cancelled` aborts `ctx.signal`). */
export function dispatchSurface(surface: SurfaceServer, state: SessionState, request: RpcRequest, scope: RequestScope): unknown {
  const controller = new AbortController();
  state.calls.set(request.id, controller);
  let handled: unknown;
  try {
    handled = surface.dispatch(request.method, request.params ?? {}, {
      modern: scope.modern,
      version: scope.version,
      capabilities: scope.capabilities,
      sessionId: state.options.id,
      subscriptions: state.subscriptions,
      signal: controller.signal,
      request: (method, params, signal) => requestClient(state, scope.capabilities, request.id, signal, method, params, 60_000),
    });
  } catch (error) {
    state.calls.delete(request.id);
    throw error;
  }
  if (handled === NOT_SURFACE || !(handled instanceof Promise)) {
    state.calls.delete(request.id);
    if (handled !== NOT_SURFACE) return handled;
    throw new RpcHandlerError(-32601, `Method not found: ${request.method}`);
  }
  return handled.finally(() => {
    state.calls.delete(request.id);
    // Cancelled: not answered, as for tools/call.
    if (controller.signal.aborted) throw CANCELLED;
  });
}

/** How the server's factory answers one request: its scope, then its dispatch. */
export interface RequestHandling {
  scopeFor(state: SessionState, request: RpcRequest): RequestScope;
  dispatch(state: SessionState, request: RpcRequest, scope: RequestScope): unknown;
  readonly report: Report;
}

/** Answers one request: a result shaped by its revision, a JSON-RPC error, or nothing when cancelled. */
export function handleRequest(h: RequestHandling, state: SessionState, request: RpcRequest): void {
  // Each answer is built as one literal (no spread of a body object): this runs once per call.
  const answerError = (error: { code: number; message: string; data?: unknown }) =>
    sendTo(state, { jsonrpc: "2.0", id: request.id, error }, request.id);
  const fail = (error: unknown) => {
    // An aborted call gets no response: the client cancelled it (the spec says no response SHOULD
    // follow notifications/cancelled), or the session is closing. The transport is told, so an
    // HTTP POST stream waiting for this response ends now.
    if (error === CANCELLED) {
      if (!state.closed) state.options.unanswered?.(request.id);
      return;
    }
    if (error instanceof RpcHandlerError) {
      answerError({ code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) });
    } else {
      // An unexpected throw is reported to onError only; its message may carry internals or secrets.
      h.report(error, request.method);
      answerError({ code: -32603, message: "Internal error" });
    }
  };
  try {
    const scope = h.scopeFor(state, request);
    // The request's revision gives the answer its wire shape (2026-07-28: `resultType: "complete"`).
    const answer = (value: unknown) =>
      sendTo(state, { jsonrpc: "2.0", id: request.id, result: scope.revision.encodeResult(request.method, value) }, request.id);
    const result = h.dispatch(state, request, scope);
    if (result instanceof Promise) result.then(answer, fail);
    else answer(result);
  } catch (error) {
    fail(error);
  }
}

function handleNotification(state: SessionState, message: RpcNotification): void {
  if (message.method === "notifications/cancelled") {
    const id = message.params?.requestId;
    if (typeof id === "string" || typeof id === "number")
      state.calls.get(id)?.abort(new Error(String(message.params?.reason ?? "cancelled by client")));
  }
  // notifications/initialized and others need no action.
}

function receiveOne(h: RequestHandling, state: SessionState, value: unknown): void {
  const c = classify(value);
  if (c.type === "request") handleRequest(h, state, c.message);
  else if (c.type === "notification") handleNotification(state, c.message);
  else if (c.type === "response") settleResponse(state, c.message);
  else {
    const id = (value as { id?: unknown } | null)?.id;
    // JSON-RPC 2.0: the error echoes the id when it can be read, else id null.
    const related = typeof id === "string" || typeof id === "number" ? id : null;
    const error = { code: -32600, message: `Invalid request: ${c.reason}` };
    sendTo(state, { jsonrpc: "2.0", id: related, error }, related ?? undefined);
  }
}

/** Fans a change out to legacy sessions (after `initialize`); the caller publishes it to the listens. */
export function notifyLegacySessions(sessions: ReadonlySet<SessionState>, event: ListenEvent): void {
  for (const state of sessions) {
    // Not initialized: no version is negotiated, and the lifecycle spec allows only pings and logging before it.
    if (state.protocolVersion === undefined) continue;
    if (event.kind === "resourceUpdated") {
      if (state.subscriptions.has(event.uri))
        sendTo(state, { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: event.uri } }, undefined);
    } else if (event.kind !== "task") {
      sendTo(state, { jsonrpc: "2.0", method: LEGACY_NOTIFICATION[event.kind] as string }, undefined);
    }
  }
}

/** The handle a transport holds for one session; `close` runs once (the server's own clean-up and `closeSessionState`). */
export function serverSession(h: RequestHandling, state: SessionState, close: () => void): ServerSession {
  return {
    id: state.options.id,
    get protocolVersion() {
      return state.protocolVersion;
    },
    get closed() {
      return state.closed;
    },
    receive(value) {
      if (state.closed) return;
      if (!Array.isArray(value)) return receiveOne(h, state, value);
      // JSON-RPC 2.0: an empty batch is one Invalid Request error, not an empty answer.
      if (value.length === 0)
        sendTo(state, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request: empty batch" } }, undefined);
      for (const item of value) receiveOne(h, state, item);
    },
    close() {
      if (state.closed) return;
      close();
    },
  };
}
