/**
 * A transport-agnostic JSON-RPC peer: it numbers requests, pairs responses, runs timeouts and
 * cancellation, routes progress, and answers server-to-client requests. Transports feed it parsed
 * messages with `receive` and give it a `send` function.
 */

import type { RpcOutcome, WireFault } from "../failure/wire-fault.js";
import { classify, type RpcId, type RpcMessage, type RpcNotification, type RpcRequest, type RpcResponse } from "./json-rpc.js";
import { createDeadlines } from "./rpc-deadlines.js";
import { observeFailure, observeWire, tapSend, type Wiretap } from "./wiretap.js";

/** A progress notification for one request. */
export interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Per-request options. */
export interface PeerRequestOptions {
  readonly signal?: AbortSignal | undefined;
  /** Time allowed for the answer. */
  readonly timeoutMs?: number | undefined;
  /** Restart the timeout whenever progress arrives. */
  readonly resetTimeoutOnProgress?: boolean | undefined;
  /** Hard cap on total time, even with progress resets. */
  readonly maxTotalTimeoutMs?: number | undefined;
  readonly onProgress?: ((progress: Progress) => void) | undefined;
  /** False for `initialize`, which must never be cancelled on the wire. */
  readonly cancellable?: boolean | undefined;
  /** Which deadline a timeout reports (connect timeouts map differently from request timeouts). */
  readonly timeoutPhase?: "connect" | "request" | undefined;
  /** Told the JSON-RPC id and method this request goes out with (telemetry's `jsonrpc.request.id`). Exceptions are swallowed. */
  readonly onRequestId?: ((id: RpcId, method: string) => void) | undefined;
}

/**
 * An error a request handler throws to answer with a JSON-RPC error of its choosing: its `code`,
 * `message` and `data` go to the client as they are.
 *
 * In a server (`createToolServer`) one rule holds for every handler kind (tools, prompts,
 * resources, resource templates, completions, tasks): a thrown `RpcHandlerError` is the only
 * thrown error whose message reaches the client. Anything else thrown is reported to the server's
 * `onError` and answered without its message, since it may carry paths, queries or credentials:
 * -32603 "Internal error" for prompts, resources and completions, and for tools an `isError`
 * result saying the tool failed (MCP: tool execution errors are results). A tool handler that
 * wants the model to read why it failed returns `{ isError: true, content: [...] }`.
 */
export class RpcHandlerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcHandlerError";
  }
}

/** Handles a server-to-client request and returns its result. */
export type RequestHandler = (params: { readonly [key: string]: unknown } | undefined, request: RpcRequest) => unknown;

/** Options for `createRpcPeer`. */
export interface RpcPeerOptions {
  /** Writes one message. A throw or rejection fails the request as a transport fault. */
  readonly send: (message: RpcMessage, context: { readonly requestId?: RpcId }) => void | Promise<void>;
  readonly onNotification?: (notification: RpcNotification) => void;
  /** Server-to-client request handlers by method. Unknown methods are answered with -32601. */
  readonly handlers?: ReadonlyMap<string, RequestHandler>;
  /** Called for inbound values that are not valid JSON-RPC, or responses nobody waits for. */
  readonly onProtocolNoise?: (reason: string) => void;
  /** Called when a request is abandoned (timeout or abort), after `notifications/cancelled` is sent. */
  readonly onAbandon?: (id: RpcId) => void;
  /**
   * True when the transport itself keeps the process alive while requests wait (a child process
   * and its pipes do): the deadline timer then stays unref'd instead of being ref'd per request.
   */
  readonly holdsProcess?: boolean;
  /** Sees every message sent and received, and every refused send (a recorder's seam). */
  readonly wiretap?: Wiretap | undefined;
}

interface Pending {
  readonly resolve: (outcome: RpcOutcome) => void;
  readonly options: PeerRequestOptions;
  /** When the request times out (epoch ms), or undefined for none. */
  deadline: number | undefined;
  readonly startedAt: number;
  readonly cleanup: () => void;
}

const NOTHING_TO_CLEAN = () => {};

/** A JSON-RPC peer. */
export interface RpcPeer {
  /** Sends a request and resolves with its result or a wire fault. Never rejects. */
  request(method: string, params: { readonly [key: string]: unknown } | undefined, options?: PeerRequestOptions): Promise<RpcOutcome>;
  /** Sends a notification. */
  notify(method: string, params?: { readonly [key: string]: unknown }): Promise<void>;
  /** Feeds one parsed inbound message. */
  receive(value: unknown): void;
  /** Fails every in-flight request with `fault` (the transport died or closed), and stops the deadline timer. */
  failAll(fault: WireFault): void;
  /** Fails one in-flight request with `fault` (e.g. its answer was too large). False if it was not pending. */
  fail(id: RpcId, fault: WireFault): boolean;
  /** Sets or replaces a server-to-client request handler. */
  setHandler(method: string, handler: RequestHandler): void;
  /** Number of requests waiting for an answer. */
  readonly inFlight: number;
}

const CANCEL_REASON = "request abandoned by client";

/** Hands a request id to an observer; a throwing observer must never fail the request. */
function reportId(observe: (id: RpcId, method: string) => void, id: RpcId, method: string): void {
  try {
    observe(id, method);
  } catch {
    // telemetry only
  }
}

/** Requests waiting on each signal, behind a single abort listener per signal. */
const abortWatchers = new WeakMap<AbortSignal, { readonly callbacks: Set<() => void>; readonly handler: () => void }>();

/**
 * Runs `callback` when `signal` aborts; returns the unsubscribe. A run-wide signal shared by many
 * concurrent requests gets one listener, not one per request (MaxListenersExceeded otherwise).
 */
export function watchAbort(signal: AbortSignal, callback: () => void): () => void {
  let watch = abortWatchers.get(signal);
  if (!watch) {
    const callbacks = new Set<() => void>();
    const handler = () => {
      abortWatchers.delete(signal);
      // A copy: each callback unsubscribes itself while the set is walked.
      for (const fn of [...callbacks]) fn();
    };
    watch = { callbacks, handler };
    abortWatchers.set(signal, watch);
    signal.addEventListener("abort", handler, { once: true });
  }
  const current = watch;
  current.callbacks.add(callback);
  return () => {
    current.callbacks.delete(callback);
    if (current.callbacks.size === 0 && abortWatchers.get(signal) === current) {
      abortWatchers.delete(signal);
      signal.removeEventListener("abort", current.handler);
    }
  };
}

// `inFlight` is a getter on this shared prototype, reading the pending map through a symbol: an
// object literal with a getter of its own is kept in dictionary mode (about 450 bytes per peer).
const PENDING = Symbol("pending");
const PEER_PROTO = {
  get inFlight(): number {
    return (this as unknown as { readonly [PENDING]: Map<RpcId, Pending> })[PENDING].size;
  },
};

/** The fault for a send that threw or rejected: the transport's own wire fault, or ESEND. */
function sendFault(error: unknown): WireFault {
  const fault = (error as { fault?: WireFault }).fault;
  return fault ?? { type: "transport", code: "ESEND", message: error instanceof Error ? error.message : String(error) };
}

/** Sends `notifications/cancelled` for `id`, best effort: the peer may already be gone. */
function sendCancelled(send: RpcPeerOptions["send"], id: RpcId): void {
  Promise.resolve()
    .then(() => send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: CANCEL_REASON } }, {}))
    .catch(() => {});
}

/** Hands a progress notification to the request's callback. */
function deliverProgress(options: PeerRequestOptions, progress: number, p: { readonly total?: number; readonly message?: string }): void {
  try {
    options.onProgress?.({
      progress,
      ...(typeof p.total === "number" ? { total: p.total } : {}),
      ...(typeof p.message === "string" ? { message: p.message } : {}),
    });
  } catch {
    // A throwing progress callback must not break the session.
  }
}

/** Creates a JSON-RPC peer. */
export function createRpcPeer(given: RpcPeerOptions): RpcPeer {
  const tap = given.wiretap;
  // Tapped once here, so every path that sends (requests, answers, cancellations) is seen.
  const options = tap === undefined ? given : { ...given, send: tapSend(given.send, tap, sendFault) };
  const pending = new Map<RpcId, Pending>();
  // Made by the first request with a progress callback: most peers never have one.
  let progressTokens: Map<RpcId, Pending> | undefined;
  // Copied, as the caller may change its map later; none at all until there is a handler.
  let handlers = options.handlers ? new Map(options.handlers) : undefined;
  let nextId = 1;
  // One timer for every deadline of this peer (rpc-deadlines.ts).
  const deadlines = createDeadlines(pending, abandon, options.holdsProcess === true);

  function settle(id: RpcId, outcome: RpcOutcome): boolean {
    const entry = pending.get(id);
    if (!entry) return false;
    settleEntry(id, entry, outcome);
    return true;
  }

  function settleEntry(id: RpcId, entry: Pending, outcome: RpcOutcome): void {
    pending.delete(id);
    if (entry.options.onProgress) progressTokens?.delete(id);
    if (entry.deadline !== undefined) deadlines.release();
    if (entry.cleanup !== NOTHING_TO_CLEAN) entry.cleanup();
    entry.resolve(outcome);
  }

  function abandon(id: RpcId, fault: WireFault): void {
    const entry = pending.get(id);
    if (!entry) return;
    // Settled first, so a late response to this id is reported as noise instead of resolving twice.
    settle(id, { ok: false, fault });
    // Spec: the requester SHOULD send notifications/cancelled for a request it stops waiting for, so the
    // server can stop its work. Connect requests opt out: initialize MUST NOT be cancelled (spec).
    if (entry.options.cancellable !== false) sendCancelled(options.send, id);
    options.onAbandon?.(id);
  }

  function sendFailed(id: RpcId, error: unknown): void {
    settle(id, { ok: false, fault: sendFault(error) });
  }

  function handleNotification(message: RpcNotification): void {
    if (message.method === "notifications/progress") {
      const p = message.params as { progressToken?: RpcId; progress?: number; total?: number; message?: string } | undefined;
      const entry = p?.progressToken === undefined ? undefined : progressTokens?.get(p.progressToken);
      if (entry && p && typeof p.progress === "number") {
        if (entry.options.resetTimeoutOnProgress) deadlines.arm(entry, Date.now());
        deliverProgress(entry.options, p.progress, p);
        return;
      }
    }
    options.onNotification?.(message);
  }

  const methods: Omit<RpcPeer, "inFlight"> = {
    setHandler(method, handler) {
      handlers ??= new Map();
      handlers.set(method, handler);
    },
    request(method, params, requestOptions = {}) {
      // Ids are numbers counting up per peer; never reused, so a late answer cannot match a newer request.
      const id = nextId++;
      if (requestOptions.onRequestId) reportId(requestOptions.onRequestId, id, method);
      const signal = requestOptions.signal;
      if (signal?.aborted) return Promise.resolve({ ok: false, fault: { type: "canceled", message: "aborted before sending" } });
      let resolve!: (outcome: RpcOutcome) => void;
      const promise = new Promise<RpcOutcome>((r) => {
        resolve = r;
      });
      const startedAt = Date.now();
      const entry: Pending = {
        resolve,
        options: requestOptions,
        deadline: undefined,
        startedAt,
        cleanup: signal ? watchAbort(signal, () => abandon(id, { type: "canceled", message: "aborted by caller" })) : NOTHING_TO_CLEAN,
      };
      pending.set(id, entry);
      let body = params;
      if (requestOptions.onProgress) {
        progressTokens ??= new Map();
        progressTokens.set(id, entry);
        const meta = (params?._meta as { [key: string]: unknown } | undefined) ?? {};
        // The request id doubles as the progress token: unique among this peer's active requests, as the spec asks.
        body = { ...params, _meta: { ...meta, progressToken: id } };
      }
      deadlines.arm(entry, startedAt);
      const message: RpcRequest = body === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params: body };
      // A send that throws (synchronously or by rejecting) settles the request as a transport fault.
      try {
        const sent = options.send(message, { requestId: id });
        if (sent !== undefined && typeof sent.then === "function") sent.then(undefined, (error: unknown) => sendFailed(id, error));
      } catch (error) {
        sendFailed(id, error);
      }
      return promise;
    },
    async notify(method, params) {
      await options.send(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, {});
    },
    receive(value) {
      if (tap !== undefined) observeWire(tap, { direction: "recv", message: value });
      // The common message first: a result for a waiting request (what classify would call a valid
      // response), settled without the classification object.
      const m = value as { readonly id?: RpcId; readonly method?: unknown; readonly result?: unknown } | null;
      if (typeof m === "object" && m !== null && m.method === undefined && "result" in m && !("error" in m)) {
        const id = m.id as RpcId;
        const entry = pending.get(id);
        if (entry !== undefined) {
          settleEntry(id, entry, { ok: true, result: m.result });
          return;
        }
      }
      const c = classify(value);
      switch (c.type) {
        case "response": {
          const { id } = c.message;
          if (id === null || !pending.has(id)) {
            options.onProtocolNoise?.(`response for unknown id ${JSON.stringify(id)}`);
            return;
          }
          settle(id, outcomeOf(c.message));
          return;
        }
        case "request":
          serveRequest(handlers?.get(c.message.method), c.message, options.send);
          return;
        case "notification":
          handleNotification(c.message);
          return;
        default:
          options.onProtocolNoise?.(c.reason);
      }
    },
    failAll(fault) {
      // The transport ended: a recorder keeps it as what it was, so a replay ends the same way.
      if (tap !== undefined) observeFailure(tap, [...pending.keys()], fault, true);
      for (const id of [...pending.keys()]) settle(id, { ok: false, fault });
      // The transport is gone: drop the deadline timer now instead of letting it fire for nothing.
      deadlines.dropIfIdle();
    },
    fail(id, fault) {
      if (tap !== undefined && pending.has(id)) observeFailure(tap, [id], fault, false);
      return settle(id, { ok: false, fault });
    },
  };
  return Object.assign(Object.create(PEER_PROTO) as RpcPeer, { [PENDING]: pending }, methods);
}

/** A response as the outcome its request resolves with: the result, or the JSON-RPC error as an rpc fault. */
function outcomeOf(message: RpcResponse): RpcOutcome {
  const err = message.error;
  if (!err) return { ok: true, result: message.result };
  return {
    ok: false,
    fault: { type: "rpc", code: err.code, message: String(err.message ?? ""), ...(err.data === undefined ? {} : { data: err.data }) },
  };
}

/**
 * Answers one server-to-client request with its handler's result (`{}` for none). An unknown
 * method is -32601; a handler's `RpcHandlerError` keeps its code and data, any other throw is
 * -32603 with its message only. The handler runs a microtask
 * later, so a synchronous throw is answered like a rejection, and `receive` never throws.
 */
function serveRequest(handler: RequestHandler | undefined, message: RpcRequest, send: RpcPeerOptions["send"]): void {
  const answer = (body: { result: unknown } | { error: { code: number; message: string; data?: unknown } }) => {
    Promise.resolve()
      .then(() => send({ jsonrpc: "2.0", id: message.id, ...body }, {}))
      // The answer is best effort: a transport that died meanwhile has no one to tell.
      .catch(() => {});
  };
  if (!handler) {
    answer({ error: { code: -32601, message: `Method not found: ${message.method}` } });
    return;
  }
  Promise.resolve()
    .then(() => handler(message.params, message))
    .then(
      (result) => answer({ result: result ?? {} }),
      (error: unknown) => {
        if (error instanceof RpcHandlerError) {
          answer({ error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } });
        } else {
          answer({ error: { code: -32603, message: error instanceof Error ? error.message : "internal error" } });
        }
      },
    );
}
