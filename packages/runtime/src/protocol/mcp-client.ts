/**
 * The era-aware client core shared by the stdio and HTTP callers: era detection (`server/discover`
 * probe, then legacy `initialize`), per-request `_meta`, the -32022 version retry, the bounded
 * `input_required` (MRTR) loop, tools/list paging and trace context.
 */

import { initializeSession, type Outcome } from "./mcp-session.js";
import type { CallToolResult, Implementation, ServerHandshake, ToolDescriptor } from "./mcp-types.js";
import { LEGACY_PROTOCOL_VERSIONS } from "./mcp-types.js";
import { META, MODERN_ERROR_CODES, MODERN_PROTOCOL_VERSIONS, pickVersion, protocolMeta } from "./modern.js";
import { shapedCallResult } from "./result-shape.js";
import type { PeerRequestOptions, RequestHandler, RpcPeer } from "./rpc-peer.js";
import type { RpcOutcome, WireFault } from "./wire-fault.js";

/**
 * Which protocol era to speak: detect, or pin one. Eras are named as `mcp.json` names them: `legacy`
 * (the `initialize` handshake, 2024-11-05 … 2025-11-25) and the stateless `2026-07-28` revision.
 */
export type EraPreference = "auto" | "legacy" | "2026-07-28";

/** A detected era: `legacy` (`initialize`) or the stateless `2026-07-28` revision. */
export type Era = "legacy" | "2026-07-28";

const ERA_PREFERENCES: readonly string[] = ["auto", "legacy", "2026-07-28"] satisfies readonly EraPreference[];

/** Who the client is and what it offers. */
export interface ClientIdentity {
  readonly clientInfo: Implementation;
  readonly capabilities: { readonly [key: string]: unknown };
  /** A pinned protocol version (legacy or modern). */
  readonly protocolVersion?: string | undefined;
}

/** A live protocol session. `protocolVersion` may change after a -32022 renegotiation. */
export interface Session {
  readonly era: Era;
  protocolVersion: string;
  readonly handshake: ServerHandshake;
}

/** What a `server/discover` probe found. */
export type ProbeResult =
  | { readonly kind: "modern"; readonly session: Session }
  /** Not a modern server (or no mutual modern version): fall back to `initialize`. */
  | { readonly kind: "legacy"; readonly fault?: WireFault }
  /** A failure that must not trigger a fallback (connection refused, auth, abort, modern rejection). */
  | { readonly kind: "fault"; readonly fault: WireFault };

/** Timing for connect-phase requests. */
export interface ConnectTiming {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/** Resolves the effective era: a pinned version implies its era unless the era is pinned too. */
export function effectiveEra(era: EraPreference | undefined, protocolVersion: string | undefined): EraPreference {
  // A wrong era is a programmer error in the caller's options (JavaScript callers, or "modern" from
  // before the era took the spec's names): throw at creation rather than silently speak legacy.
  if (era !== undefined && !ERA_PREFERENCES.includes(era))
    throw new TypeError(`era must be "auto", "legacy" or "2026-07-28" (got ${JSON.stringify(era)})`);
  if (era !== undefined && era !== "auto") return era;
  if (protocolVersion === undefined) return era ?? "auto";
  return MODERN_PROTOCOL_VERSIONS.includes(protocolVersion) ? "2026-07-28" : "legacy";
}

/** The HTTP status a fault carried, if any. */
export function statusOf(fault: WireFault): number | undefined {
  if (fault.type === "http") return fault.status;
  if (fault.type === "rpc") return fault.httpStatus;
  return undefined;
}

function noFallback(fault: WireFault): boolean {
  if (fault.type === "transport" || fault.type === "canceled") return true;
  const status = statusOf(fault);
  return status === 401 || status === 403;
}

/** Probes with `server/discover`. Retries once on -32022 when the server lists a modern version we speak. */
export async function probeModern(peer: RpcPeer, identity: ClientIdentity, timing: ConnectTiming): Promise<ProbeResult> {
  const ours =
    identity.protocolVersion && MODERN_PROTOCOL_VERSIONS.includes(identity.protocolVersion)
      ? [identity.protocolVersion]
      : MODERN_PROTOCOL_VERSIONS;
  let version = ours[0] as string;
  for (let attempt = 0; attempt < 2; attempt++) {
    const outcome = await peer.request(
      "server/discover",
      { _meta: protocolMeta(version, identity.capabilities, identity.clientInfo) },
      { timeoutMs: timing.timeoutMs, signal: timing.signal, cancellable: false, timeoutPhase: "connect" },
    );
    if (outcome.ok) {
      const r = (outcome.result ?? {}) as { [key: string]: unknown };
      const chosen = pickVersion(r.supportedVersions, ours);
      if (chosen === undefined) return { kind: "legacy" };
      const meta = r._meta as { [key: string]: unknown } | undefined;
      const serverInfo = (r.serverInfo ?? meta?.[META.serverInfo]) as Implementation | undefined;
      const handshake: ServerHandshake = {
        protocolVersion: chosen,
        capabilities: (r.capabilities as ServerHandshake["capabilities"]) ?? {},
        ...(serverInfo ? { serverInfo } : {}),
        ...(typeof r.instructions === "string" ? { instructions: r.instructions } : {}),
      };
      return { kind: "modern", session: { era: "2026-07-28", protocolVersion: chosen, handshake } };
    }
    const fault = outcome.fault;
    if (fault.type === "rpc" && fault.code === -32022) {
      const next = pickVersion((fault.data as { supported?: unknown } | undefined)?.supported, ours);
      if (next !== undefined && attempt === 0) {
        version = next;
        continue;
      }
      return { kind: "legacy", fault };
    }
    if (fault.type === "rpc" && MODERN_ERROR_CODES.has(fault.code)) return { kind: "fault", fault };
    if (noFallback(fault)) return { kind: "fault", fault };
    return { kind: "legacy", fault };
  }
  return { kind: "legacy" };
}

/** Runs the legacy `initialize` handshake. */
export async function initializeLegacy(peer: RpcPeer, identity: ClientIdentity, timing: ConnectTiming): Promise<Outcome<Session>> {
  const pinned = identity.protocolVersion;
  const outcome = await initializeSession(peer, {
    clientInfo: identity.clientInfo,
    capabilities: identity.capabilities,
    timeoutMs: timing.timeoutMs,
    ...(pinned && (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(pinned) ? { protocolVersion: pinned } : {}),
    ...(timing.signal ? { signal: timing.signal } : {}),
  });
  if (!outcome.ok) return outcome;
  return { ok: true, value: { era: "legacy", protocolVersion: outcome.value.protocolVersion, handshake: outcome.value } };
}

/** One connect deadline (era detection, handshake, SSE endpoint) shared by every step, as the user set it. */
export interface ConnectBudget {
  readonly totalMs: number;
  /** Time left, at least 1 ms. */
  remaining(): number;
  /**
   * Time for the `server/discover` probe: everything when pinned to the modern era; otherwise at
   * most `probeTimeoutMs` and at most half the budget, so `initialize` keeps time to answer.
   */
  probeMs(era: EraPreference, probeTimeoutMs: number): number;
  /** A connect-phase timeout restated with the budget the user set (not the few ms that were left). */
  explain(fault: WireFault, step: string): WireFault;
}

/** Starts a connect budget of `totalMs` now. */
export function createConnectBudget(totalMs: number): ConnectBudget {
  const started = Date.now();
  const remaining = () => Math.max(1, totalMs - (Date.now() - started));
  return {
    totalMs,
    remaining,
    probeMs: (era, probeTimeoutMs) => (era === "2026-07-28" ? remaining() : Math.min(remaining(), probeTimeoutMs, Math.ceil(totalMs / 2))),
    explain: (fault, step) =>
      fault.type === "timeout" && fault.phase === "connect"
        ? { ...fault, message: `${step} got no answer within the ${totalMs} ms connect budget (connectTimeoutMs)` }
        : fault,
  };
}

/** Opens a session on a transport that needs no fallback decisions (stdio), within one connect budget. */
export async function openSession(
  peer: RpcPeer,
  identity: ClientIdentity,
  era: EraPreference,
  timing: { readonly budget: ConnectBudget; readonly probeTimeoutMs: number; readonly signal?: AbortSignal | undefined },
): Promise<Outcome<Session>> {
  const { budget, signal } = timing;
  if (era !== "legacy") {
    const probe = await probeModern(peer, identity, { timeoutMs: budget.probeMs(era, timing.probeTimeoutMs), signal });
    if (probe.kind === "modern") return { ok: true, value: probe.session };
    if (probe.kind === "fault") return { ok: false, fault: budget.explain(probe.fault, "server/discover") };
    if (era === "2026-07-28") return { ok: false, fault: notModern(probe.fault && budget.explain(probe.fault, "server/discover")) };
  }
  const init = await initializeLegacy(peer, identity, { timeoutMs: budget.remaining(), signal });
  return init.ok ? init : { ok: false, fault: budget.explain(init.fault, "initialize") };
}

/** The fault for "pinned to the modern era, but the server is not modern". */
export function notModern(cause: WireFault | undefined): WireFault {
  return {
    type: "rpc",
    code: -32022,
    message: `server does not speak ${MODERN_PROTOCOL_VERSIONS.join(", ")}${cause ? ` (${cause.message})` : ""}`,
    ...(cause?.type === "rpc" && cause.data !== undefined ? { data: cause.data } : {}),
  };
}

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
export async function sendRequest(
  peer: RpcPeer,
  ctx: RequestContext,
  method: string,
  params: { readonly [key: string]: unknown },
  options: PeerRequestOptions,
): Promise<RpcOutcome> {
  const { session, identity } = ctx;
  const modern = session.era === "2026-07-28";
  const maxRounds = ctx.maxInputRounds ?? DEFAULT_INPUT_ROUNDS;
  let retriedVersion = false;
  let retriedHeaders = false;
  let reissued = false;
  let rounds = 0;
  let extra: { inputResponses?: unknown; requestState?: string } = {};
  const started = Date.now();
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
    if (modern) {
      const base = params._meta as { [key: string]: unknown } | undefined;
      body = {
        ...params,
        ...extra,
        _meta: { ...base, ...protocolMeta(session.protocolVersion, identity.capabilities, identity.clientInfo) },
      };
    } else if (rounds > 0) {
      body = { ...params, ...extra };
    }
    const outcome = await peer.request(method, body, roundOptions);
    if (!outcome.ok) {
      const f = outcome.fault;
      if (modern && f.type === "rpc" && f.code === -32022 && !retriedVersion) {
        const next = pickVersion((f.data as { supported?: unknown } | undefined)?.supported, MODERN_PROTOCOL_VERSIONS);
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

/** Calls a tool with trace context and caller meta in `_meta`. */
export async function callToolInSession(
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
): Promise<Outcome<CallToolResult>> {
  const meta = request.meta === undefined ? trace : { ...trace, ...request.meta };
  const params: { [key: string]: unknown } =
    meta === undefined
      ? { name: request.name, arguments: request.arguments }
      : { name: request.name, arguments: request.arguments, _meta: meta };
  if (request.task) params.task = request.task;
  const outcome = await sendRequest(peer, ctx, "tools/call", params, options);
  if (!outcome.ok) return outcome;
  return shapedCallResult(outcome.result);
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

/** Trace-context source: `true` generates a traceparent per call, a function supplies one (or none). */
export type TraceContextOption = boolean | (() => { readonly traceparent: string; readonly tracestate?: string } | undefined);

/** Resolves the trace `_meta` for one call. */
export function traceMeta(option: TraceContextOption | undefined): { readonly [key: string]: unknown } | undefined {
  if (option === false) return undefined;
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
