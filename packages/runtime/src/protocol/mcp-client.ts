/**
 * The request half of the client core shared by the stdio and HTTP callers: per-request `_meta`,
 * the -32022 version retry, the bounded `input_required` (MRTR) loop, tools/list paging, trace
 * context and `subscriptions/listen`. The handshake (eras, identity, the session) is in
 * `mcp-handshake.ts`, re-exported here so callers import one module.
 */

import type { RpcOutcome, WireFault } from "../failure/wire-fault.js";
import { revisionOf } from "../revisions/registry.js";
import {
  type ClientIdentity,
  type ConnectBudget,
  type ConnectTiming,
  createConnectBudget,
  discoverOnly,
  type Era,
  type EraPreference,
  effectiveEra,
  initializeLegacy,
  notModern,
  openSession,
  type ProbeResult,
  probeModern,
  type Session,
  statusOf,
} from "./mcp-handshake.js";
import type { Outcome } from "./mcp-session.js";
import type { CallToolResult, ToolDescriptor } from "./mcp-types.js";
import { pickVersion } from "./modern.js";
import { shapedCallResult } from "./result-shape.js";
import type { PeerRequestOptions, RequestHandler, RpcPeer } from "./rpc-peer.js";

export type { ClientIdentity, ConnectBudget, ConnectTiming, Era, EraPreference, ProbeResult, Session };
export { createConnectBudget, discoverOnly, effectiveEra, initializeLegacy, notModern, openSession, probeModern, statusOf };

/** Everything a request needs besides the peer. */
export interface RequestContext {
  readonly session: Session;
  readonly identity: ClientIdentity;
  /** Client handlers used to answer MRTR `inputRequests`. */
  readonly handlers?: ReadonlyMap<string, RequestHandler> | undefined;
  /** Upper bound on `input_required` round trips. */
  readonly maxInputRounds?: number | undefined;
  /** Called once on a -32020 header mismatch (e.g. re-list tools); the request is then retried once. */
  readonly onHeaderMismatch?: (() => Promise<void>) | undefined;
}

const DEFAULT_INPUT_ROUNDS = 8;

function fault(code: number, message: string, data?: unknown): RpcOutcome {
  return { ok: false, fault: { type: "rpc", code, message, ...(data === undefined ? {} : { data }) } };
}

/** Answers MRTR `inputRequests` with the client's handlers; a missing handler or a throw is an error outcome. */
export async function fulfilInputRequests(
  requests: unknown,
  handlers: ReadonlyMap<string, RequestHandler> | undefined,
): Promise<{ ok: true; responses: { [key: string]: unknown } } | { ok: false; outcome: RpcOutcome }> {
  // Keys are the server's request ids: "__proto__" must stay an answer, not become the prototype.
  const responses: { [key: string]: unknown } = Object.create(null);
  if (typeof requests !== "object" || requests === null || Array.isArray(requests)) return { ok: true, responses };
  for (const [key, value] of Object.entries(requests as { [key: string]: unknown })) {
    const req = value as { method?: unknown; params?: { [key: string]: unknown } };
    const method = typeof req?.method === "string" ? req.method : "";
    const handler = handlers?.get(method);
    if (!handler)
      return { ok: false, outcome: fault(-32601, `server asked for ${method || "an unknown input"} but no handler is registered`) };
    try {
      const params = req.params;
      const result = await handler(params, { jsonrpc: "2.0", id: key, method, ...(params === undefined ? {} : { params }) });
      responses[key] = result ?? {};
    } catch (error) {
      const code = typeof (error as { code?: unknown }).code === "number" ? (error as { code: number }).code : -32603;
      return { ok: false, outcome: fault(code, `${method} handler failed: ${error instanceof Error ? error.message : String(error)}`) };
    }
  }
  return { ok: true, responses };
}

/**
 * Sends one request in the session's era: adds the modern `_meta`, retries once on -32022 with a
 * mutual version and once on -32020 after `onHeaderMismatch`, and loops on `input_required`.
 */
export function sendRequest(
  peer: RpcPeer,
  ctx: RequestContext,
  method: string,
  params: { readonly [key: string]: unknown },
  options: PeerRequestOptions,
): Promise<RpcOutcome> {
  if (!oneRound(ctx, options)) return requestRounds(peer, ctx, method, params, options, undefined);
  return peer
    .request(method, params, options)
    .then((first) => (roundDone(first) ? first : requestRounds(peer, ctx, method, params, options, first)));
}

/**
 * A legacy-era request without a maximum total is one peer request unless its answer asks for
 * input: no `_meta` to add, no retry, no deadline across rounds. Such a request is the peer's
 * promise mapped once, not an async loop per request (the `tools/call` hot path).
 */
function oneRound(ctx: RequestContext, options: PeerRequestOptions): boolean {
  return revisionOf(ctx.session).handshake === "initialize" && options.maxTotalTimeoutMs === undefined;
}

/** True when a legacy round's outcome is final: a fault (nothing retries it) or a complete answer. */
function roundDone(outcome: RpcOutcome): boolean {
  if (!outcome.ok) return true;
  const result = outcome.result as { resultType?: unknown } | undefined;
  const resultType = typeof result === "object" && result !== null ? result.resultType : undefined;
  return resultType === undefined || resultType === "complete" || resultType === "task";
}

/** The request loop; `first` is the first round's outcome when the caller already has it. */
async function requestRounds(
  peer: RpcPeer,
  ctx: RequestContext,
  method: string,
  params: { readonly [key: string]: unknown },
  options: PeerRequestOptions,
  first: RpcOutcome | undefined,
): Promise<RpcOutcome> {
  const { session, identity } = ctx;
  const revision = revisionOf(session);
  // A stateless revision's request carries its protocol fields and is retried on its own (version, headers, lost stream).
  const modern = revision.handshake === "discover";
  const maxRounds = ctx.maxInputRounds ?? DEFAULT_INPUT_ROUNDS;
  let retriedVersion = false;
  let retriedHeaders = false;
  let reissued = false;
  let rounds = 0;
  let extra: { inputResponses?: unknown; requestState?: string } = {};
  const started = Date.now();
  // Handed over only for a one-round request (legacy, no maximum total), so the first round's body
  // and options below are `params` and `options`, as they were sent.
  let given = first;
  for (;;) {
    // The maximum total covers every round and retry of this request, not each one.
    let roundOptions = options;
    if (options.maxTotalTimeoutMs !== undefined) {
      const left = options.maxTotalTimeoutMs - (Date.now() - started);
      if (left <= 0)
        return {
          ok: false,
          fault: { type: "timeout", phase: "request", message: `${method} exceeded its maximum total of ${options.maxTotalTimeoutMs} ms` },
        };
      roundOptions = { ...options, maxTotalTimeoutMs: left };
    }
    let body: { readonly [key: string]: unknown } = params;
    const protocolFields = revision.requestMeta(session.protocolVersion, identity);
    if (protocolFields !== undefined) {
      const base = params._meta as { [key: string]: unknown } | undefined;
      body = { ...params, ...extra, _meta: { ...base, ...protocolFields } };
    } else if (rounds > 0) {
      body = { ...params, ...extra };
    }
    const outcome = given ?? (await peer.request(method, body, roundOptions));
    given = undefined;
    if (!outcome.ok) {
      const f = outcome.fault;
      if (modern && f.type === "rpc" && f.code === -32022 && !retriedVersion) {
        const next = pickVersion((f.data as { supported?: unknown } | undefined)?.supported, revision.versions);
        if (next !== undefined) {
          retriedVersion = true;
          session.protocolVersion = next;
          continue;
        }
      }
      // 2026-07-28 has no resumption: a response stream that broke loses the request, which must be
      // re-issued with a new JSON-RPC id (peer.request numbers it afresh). Once.
      if (modern && f.type === "transport" && f.code === "ESTREAMLOST" && !reissued) {
        reissued = true;
        continue;
      }
      if (modern && f.type === "rpc" && f.code === -32020 && !retriedHeaders && ctx.onHeaderMismatch) {
        retriedHeaders = true;
        await ctx.onHeaderMismatch();
        continue;
      }
      return outcome;
    }
    const result = outcome.result as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown } | undefined;
    const resultType = typeof result === "object" && result !== null ? result.resultType : undefined;
    // "task" (the 2026-07-28 tasks extension): the caller's task layer polls it (task-call.ts).
    if (resultType === undefined || resultType === "complete" || resultType === "task") return outcome;
    if (resultType !== "input_required") return fault(-32603, `${method} result has unknown resultType ${JSON.stringify(resultType)}`);
    if (++rounds > maxRounds) return fault(-32603, `${method} still needs input after ${maxRounds} rounds`);
    const answered = await fulfilInputRequests(result?.inputRequests, ctx.handlers);
    if (!answered.ok) return answered.outcome;
    // Each retry carries only this round's answers and state (MRTR: never reuse them).
    extra = {};
    if (result?.inputRequests !== undefined) extra.inputResponses = answered.responses;
    if (typeof result?.requestState === "string") extra.requestState = result.requestState;
  }
}

/** Lists tools through every page. A repeated cursor stops the loop instead of spinning. */
export async function listToolsPaged(peer: RpcPeer, ctx: RequestContext, options: PeerRequestOptions): Promise<Outcome<ToolDescriptor[]>> {
  const tools: ToolDescriptor[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const outcome = await sendRequest(peer, ctx, "tools/list", cursor === undefined ? {} : { cursor }, options);
    if (!outcome.ok) return outcome;
    const result = outcome.result as { tools?: unknown; nextCursor?: unknown } | undefined;
    if (!Array.isArray(result?.tools))
      return { ok: false, fault: { type: "rpc", code: -32603, message: "tools/list result has no tools array" } };
    tools.push(...(result.tools as ToolDescriptor[]));
    if (typeof result.nextCursor !== "string" || result.nextCursor === "" || seen.has(result.nextCursor)) break;
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  return { ok: true, value: tools };
}

/**
 * Calls a tool with trace context and caller meta in `_meta`; `then` (optional) maps the shaped
 * outcome. A legacy one-round call is the peer's promise and one reaction: the answer is checked,
 * shaped and handed to `then` in the same step (the `tools/call` hot path, docs/performance.md).
 */
export function callToolInSession<T = Outcome<CallToolResult>>(
  peer: RpcPeer,
  ctx: RequestContext,
  request: {
    readonly name: string;
    readonly arguments: { readonly [key: string]: unknown };
    readonly meta?: { readonly [key: string]: unknown } | undefined;
    /** 2025-11-25 task augmentation (`task: { ttl }`). */
    readonly task?: { readonly ttl: number } | undefined;
  },
  trace: { readonly [key: string]: unknown } | undefined,
  options: PeerRequestOptions,
  then?: (outcome: Outcome<CallToolResult>) => T | PromiseLike<T>,
): Promise<T> {
  const meta = request.meta === undefined ? trace : { ...trace, ...request.meta };
  const params: { [key: string]: unknown } =
    meta === undefined
      ? { name: request.name, arguments: request.arguments }
      : { name: request.name, arguments: request.arguments, _meta: meta };
  if (request.task) params.task = request.task;
  const map = then ?? (same as (outcome: Outcome<CallToolResult>) => T);
  // The session's revision checks and shapes a finished result; a task envelope is the task layer's to follow.
  const revision = revisionOf(ctx.session);
  const decode = (raw: unknown) => (isTaskEnvelope(raw) ? shapedCallResult(raw) : revision.decodeToolResult(raw));
  const decoded = (outcome: RpcOutcome): Outcome<CallToolResult> => (outcome.ok ? decode(outcome.result) : outcome);
  if (!oneRound(ctx, options)) return requestRounds(peer, ctx, "tools/call", params, options, undefined).then(decoded).then(map);
  return peer.request("tools/call", params, options).then((first) => {
    if (!roundDone(first)) return requestRounds(peer, ctx, "tools/call", params, options, first).then(decoded).then(map);
    return map(first.ok ? decode(first.result) : first);
  });
}

const same = <T>(value: T): T => value;

/** A task-creation answer (`resultType: "task"`, or a legacy `{ task }`), not a finished tool result. */
function isTaskEnvelope(raw: unknown): boolean {
  if (typeof raw !== "object" || raw === null) return false;
  const r = raw as { readonly resultType?: unknown; readonly task?: unknown };
  return r.resultType === "task" || (typeof r.task === "object" && r.task !== null);
}

// getRandomValues is a native call costing microseconds; one call fills randomness for ~170 ids.
const pool = new Uint8Array(4096);
let poolAt = pool.length;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function hex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  let out = "";
  for (let i = 0; i < bytes; i++) out += HEX[pool[poolAt++] as number];
  return out;
}

/** A fresh W3C `traceparent` (version 00, sampled). */
export function newTraceparent(): string {
  return `00-${hex(16)}-${hex(8)}-01`;
}

/** Trace-context source: a function supplies one (or none), `true` generates a traceparent per call; off by default. */
export type TraceContextOption = boolean | (() => { readonly traceparent: string; readonly tracestate?: string } | undefined);

/**
 * Resolves the trace `_meta` for one call. Nothing unless the caller asked: like OpenTelemetry
 * propagation (which injects only with an active span context), an id nobody records is only
 * bytes on the wire and a parse on the server.
 */
export function traceMeta(option: TraceContextOption | undefined): { readonly [key: string]: unknown } | undefined {
  if (option === undefined || option === false) return undefined;
  if (typeof option === "function") {
    const ctx = option();
    if (!ctx) return undefined;
    return ctx.tracestate === undefined ? { traceparent: ctx.traceparent } : { traceparent: ctx.traceparent, tracestate: ctx.tracestate };
  }
  return { traceparent: newTraceparent() };
}

/**
 * The `subscriptions/listen` filter for what the server says can change plus the resources the
 * client subscribed to, or undefined when there is nothing to listen for.
 */
export function listenFilter(
  capabilities: { readonly [key: string]: unknown },
  resources: readonly string[] = [],
): { [key: string]: boolean | readonly string[] } | undefined {
  const caps = capabilities as { [k: string]: { listChanged?: unknown } | undefined };
  const filter: { [key: string]: boolean | readonly string[] } = {};
  if (caps.tools?.listChanged) filter.toolsListChanged = true;
  if (caps.prompts?.listChanged) filter.promptsListChanged = true;
  if (caps.resources?.listChanged) filter.resourcesListChanged = true;
  if (resources.length > 0) filter.resourceSubscriptions = resources;
  return Object.keys(filter).length === 0 ? undefined : filter;
}

/**
 * Opens a `subscriptions/listen` request (modern era) that stays open for the session's life; its
 * notifications reach the peer's notification handler. A listen that ends (stream dropped, server
 * closed it) is opened again after `retryMs`, up to `maxRetries` times in a row; a listen that
 * lasted longer than `retryMs * 10` resets the count. Abort the returned controller to end it.
 */
export function openListen(
  peer: RpcPeer,
  ctx: RequestContext,
  onEnd: (fault: WireFault) => void,
  retry: { readonly retryMs?: number; readonly maxRetries?: number } = {},
  resources: readonly string[] = [],
): AbortController | undefined {
  const filter = listenFilter(ctx.session.handshake.capabilities, resources);
  if (!filter) return undefined;
  const controller = new AbortController();
  const retryMs = retry.retryMs ?? 1000;
  const maxRetries = retry.maxRetries ?? 5;
  let failures = 0;
  const listen = () => {
    const started = Date.now();
    void sendRequest(peer, ctx, "subscriptions/listen", { notifications: filter }, { signal: controller.signal, timeoutMs: 0 }).then(
      (outcome) => {
        if (controller.signal.aborted) return;
        if (!outcome.ok) onEnd(outcome.fault);
        failures = Date.now() - started > retryMs * 10 ? 1 : failures + 1;
        if (failures > maxRetries) return;
        const timer = setTimeout(() => {
          controller.signal.removeEventListener("abort", stop);
          if (!controller.signal.aborted) listen();
        }, retryMs);
        const stop = () => clearTimeout(timer);
        controller.signal.addEventListener("abort", stop, { once: true });
      },
    );
  };
  listen();
  return controller;
}

/** Capabilities implied by handlers, for callers that were given handlers but no capabilities. */
export function capabilitiesFromHandlers(handlers: ReadonlyMap<string, RequestHandler> | undefined): { [key: string]: unknown } {
  const caps: { [key: string]: unknown } = {};
  if (handlers?.has("roots/list")) caps.roots = {};
  if (handlers?.has("sampling/createMessage")) caps.sampling = {};
  if (handlers?.has("elicitation/create")) caps.elicitation = {};
  return caps;
}
