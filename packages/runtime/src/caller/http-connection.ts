/**
 * Opening an HTTP connection in the right era and transport: the `server/discover` probe, the
 * legacy `initialize`, and the fallback to HTTP+SSE on 400/404/405 of the initialize POST (never
 * on 401/403). The era found is cached per endpoint.
 */

import type { WireFault } from "../failure/wire-fault.js";
import type { RpcMessage } from "../protocol/json-rpc.js";
import {
  type ConnectBudget,
  createConnectBudget,
  discoverOnly,
  initializeLegacy,
  notModern,
  probeModern,
  statusOf,
} from "../protocol/mcp-client.js";
import type { Outcome } from "../protocol/mcp-session.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import { META, MODERN_ERROR_CODES, type ParamHeader, paramHeaders, planToolHeaders, standardHeaders } from "../protocol/modern.js";
import { createRpcPeer, type RpcPeer, type RpcPeerOptions } from "../protocol/rpc-peer.js";
import type { Wiretap } from "../protocol/wiretap.js";
import { revisionOf } from "../revisions/registry.js";
import type { HttpEndpointOptions, WireFaultError } from "../transport/http-exchange.js";
import { createStreamableHttpTransport, type StreamableHttpTransport } from "../transport/http-streamable.js";
import { createLegacySseTransport, type LegacySseTransport } from "../transport/legacy-sse.js";
import { abortableSleep } from "./backoff.js";
import { type ConnectorLink, connectionOn, type SessionConnection, type SessionConnector } from "./connector.js";

/** One live connection: a peer over Streamable HTTP or legacy SSE, and its session. */
export interface HttpConnection extends SessionConnection {
  readonly streamable: StreamableHttpTransport | undefined;
  readonly sse: LegacySseTransport | undefined;
  /** 2026-07-28: the `Mcp-Param-*` plan of each listed tool. */
  plans: Map<string, readonly ParamHeader[]> | undefined;
}

/** What the connector needs from its caller. Header names are lower-case. */
export interface HttpConnectorOptions extends HttpEndpointOptions {
  readonly connectTimeoutMs: number;
  readonly probeTimeoutMs?: number | undefined;
  readonly legacySseFallback: boolean;
  /** Open the legacy GET stream (the core opens the 2026-07-28 `subscriptions/listen`). */
  readonly notificationStream: boolean;
  readonly warn: (message: string) => void;
  readonly wiretap?: Wiretap | undefined;
}

/** Era found per endpoint, so later callers skip the probe or go straight to SSE. */
const eraCache = new Map<string, "modern" | "legacy" | "sse">();

/** How long a connect waits for the server to answer the standalone GET before requests go out. */
const GET_OPEN_WAIT_MS = 1000;

/** Waits until the standalone GET is answered, at most GET_OPEN_WAIT_MS and never past the connect budget or `signal`. */
export async function waitForGetStream(
  streamable: Pick<StreamableHttpTransport, "openNotificationStream">,
  budget: Pick<ConnectBudget, "remaining">,
  signal: AbortSignal,
): Promise<void> {
  const answered = new AbortController();
  const wait = Math.min(GET_OPEN_WAIT_MS, budget.remaining());
  try {
    await Promise.race([streamable.openNotificationStream(), abortableSleep(wait, AbortSignal.any([signal, answered.signal]))]);
  } finally {
    // Ends the sleep, and its timer, when the GET answered first.
    answered.abort();
  }
}

/** Forgets cached era detections (tests, or after a server upgrade). */
export function clearHttpEraCache(): void {
  eraCache.clear();
}

const closedFault: WireFault = { type: "transport", code: "ECLOSED", message: "the HTTP caller is closed" };

/** `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` for a modern message; nothing for legacy ones. */
function routingHeaders(conn: HttpConnection, message: RpcMessage): { [name: string]: string } | undefined {
  if (!("method" in message)) return undefined;
  const params = message.params;
  // Modern messages carry the protocol version in `_meta` (the discover probe too, before a session exists).
  const modern =
    (conn.session !== undefined && revisionOf(conn.session).routingHeaders) ||
    typeof (params?._meta as { [k: string]: unknown } | undefined)?.[META.protocolVersion] === "string";
  if (!modern) return undefined;
  const out = standardHeaders(message.method, params);
  if (message.method === "tools/call" && typeof params?.name === "string") {
    const plan = conn.plans?.get(params.name);
    if (plan && plan.length > 0) Object.assign(out, paramHeaders(plan, params.arguments));
  }
  return out;
}

/** Releases one connection: its listen, its transport, then every call still waiting on it. */
async function dispose(conn: HttpConnection): Promise<void> {
  conn.alive = false;
  conn.listen?.abort();
  if (conn.streamable) await conn.streamable.close();
  if (conn.sse) await conn.sse.close();
  // Last: calls still waiting get a transport failure instead of hanging on a closed connection.
  conn.peer.failAll(closedFault);
}

/** A 404 on a request that carried the session id: the server forgot the session. */
function sessionLost(conn: HttpConnection, fault: WireFault): boolean {
  // A 404 without a session id is a wrong URL, not a lost session: reconnecting would not help.
  if (statusOf(fault) !== 404 || !conn.streamable?.sessionExpired) return false;
  conn.streamable.resetSession();
  return true;
}

/** 2026-07-28: drops tools whose `x-mcp-header` declarations are invalid, and plans the rest. */
function planTools(conn: HttpConnection, tools: ToolDescriptor[], warn: (message: string) => void): ToolDescriptor[] {
  if (conn.session === undefined || !revisionOf(conn.session).routingHeaders) return tools;
  const plans = new Map<string, readonly ParamHeader[]>();
  const dropped = new Map<string, string>();
  const kept: ToolDescriptor[] = [];
  for (const tool of tools) {
    const plan = planToolHeaders(tool.inputSchema);
    if (!plan.ok) {
      warn(`tool ${JSON.stringify(tool.name)} dropped: ${plan.reason}`);
      dropped.set(tool.name, plan.reason);
      continue;
    }
    plans.set(tool.name, plan.params);
    kept.push(tool);
  }
  conn.plans = plans;
  conn.dropped = dropped;
  return kept;
}

/** Creates the connector for one endpoint, on the link its session core gives it. */
export function createHttpConnector(o: HttpConnectorOptions, link: ConnectorLink<HttpConnection>): SessionConnector<HttpConnection> {
  const { url } = o;
  const { identity, era } = link;
  const endpoint = { url, headers: o.headers, agent: o.agent, redirect: o.redirect, outbound: o.outbound, auth: o.auth, onNoise: o.warn };

  /** The peer of a connection; `conn` is read late because the transport and the peer need each other. */
  function peerOf(conn: () => HttpConnection | undefined, send: RpcPeerOptions["send"], onAbandon?: RpcPeerOptions["onAbandon"]): RpcPeer {
    return createRpcPeer({
      send,
      ...(onAbandon ? { onAbandon } : {}),
      onNotification: (notification) => {
        const c = conn();
        if (!c) return;
        // The header plans come from the list the server says changed (the core drops the rest).
        if (notification.method === "notifications/tools/list_changed") c.plans = undefined;
        link.notification(c, notification);
      },
      onProtocolNoise: o.warn,
      ...(o.wiretap ? { wiretap: o.wiretap } : {}),
      ...(link.handlers ? { handlers: link.handlers } : {}),
    });
  }

  function streamableConnection(): HttpConnection {
    let conn: HttpConnection | undefined;
    const streamable = createStreamableHttpTransport({
      ...endpoint,
      receive: (value) => peer.receive(value),
      headersFor: (message) => (conn ? routingHeaders(conn, message) : undefined),
    });
    const peer = peerOf(
      () => conn,
      (message, context) => streamable.send(message, context),
      (id) => streamable.abandon(id),
    );
    conn = connectionOn(peer, { streamable, sse: undefined, plans: undefined });
    return conn;
  }

  async function sseConnection(signal: AbortSignal, timeoutMs: number): Promise<Outcome<HttpConnection>> {
    let conn: HttpConnection | undefined;
    const sse = createLegacySseTransport({
      ...endpoint,
      receive: (value) => peer.receive(value),
      onClose: (fault) => {
        // The legacy SSE GET carries every server message: when it closes, the session is gone and
        // every request still waiting fails now instead of at its timeout.
        if (!conn) return;
        link.lost(conn);
        peer.failAll(fault);
      },
    });
    const peer = peerOf(
      () => conn,
      (message) => sse.send(message),
    );
    conn = connectionOn(peer, { streamable: undefined, sse, plans: undefined });
    try {
      await sse.connect(signal, timeoutMs);
    } catch (error) {
      await sse.close();
      return { ok: false, fault: (error as WireFaultError).fault ?? { type: "transport", code: "ESSE", message: String(error) } };
    }
    return { ok: true, value: conn };
  }

  async function openSse(signal: AbortSignal, budget: ConnectBudget): Promise<Outcome<HttpConnection>> {
    const opened = await sseConnection(signal, budget.remaining());
    if (!opened.ok) return { ok: false, fault: budget.explain(opened.fault, "the SSE endpoint event") };
    const conn = opened.value;
    const init = await initializeLegacy(conn.peer, identity, { timeoutMs: budget.remaining(), signal });
    if (!init.ok) {
      await dispose(conn);
      return { ok: false, fault: budget.explain(init.fault, "initialize") };
    }
    conn.session = init.value;
    eraCache.set(url.href, "sse");
    return { ok: true, value: conn };
  }

  async function detect(signal: AbortSignal): Promise<Outcome<HttpConnection>> {
    const budget = createConnectBudget(o.connectTimeoutMs);
    const key = url.href;
    const cached = eraCache.get(key);
    // A cached "sse" skips the POST that would only get 404/405 again; honoured only while fallback is allowed.
    if (cached === "sse" && !discoverOnly(era) && o.legacySseFallback) return openSse(signal, budget);
    const conn = streamableConnection();
    const streamable = conn.streamable as StreamableHttpTransport;
    if (discoverOnly(era) || (era === "auto" && cached !== "legacy")) {
      const probe = await probeModern(conn.peer, identity, { timeoutMs: budget.probeMs(era, o.probeTimeoutMs ?? 5000), signal }, era);
      if (probe.kind === "modern") {
        streamable.modern = true;
        // 2026-07-28 has no sessions: forget any id a server echoed on the probe.
        streamable.resetSession();
        conn.session = probe.session;
        eraCache.set(key, "modern");
        return { ok: true, value: conn };
      }
      // A fault (transport, canceled, 401/403) is the answer, not a sign of an older server; and a
      // caller pinned to the modern era never falls back to initialize.
      if (probe.kind === "fault" || discoverOnly(era)) {
        await dispose(conn);
        const fault = probe.fault && budget.explain(probe.fault, "server/discover");
        return { ok: false, fault: probe.kind === "fault" ? (fault as WireFault) : notModern(fault) };
      }
    }
    const init = await initializeLegacy(conn.peer, identity, { timeoutMs: budget.remaining(), signal });
    if (!init.ok) {
      await dispose(conn);
      const status = statusOf(init.fault);
      // A 400 carrying a 2026-07-28 error code means the server is modern, not that it lacks Streamable HTTP.
      const modernError = init.fault.type === "rpc" && MODERN_ERROR_CODES.has(init.fault.code);
      // Only 400/404/405 mean "no Streamable HTTP here"; a 401/403 is an auth answer and must surface.
      if (o.legacySseFallback && (status === 400 || status === 404 || status === 405) && !modernError) return openSse(signal, budget);
      return { ok: false, fault: budget.explain(init.fault, "initialize") };
    }
    conn.session = init.value;
    // Sent as MCP-Protocol-Version on every later request (required from 2025-06-18 on).
    streamable.protocolVersion = init.value.protocolVersion;
    eraCache.set(key, "legacy");
    // Requests wait until the server has answered the GET: a server that routes answers by stream
    // (the conformance sse-retry scenario) must see the GET stream first. The wait is capped, and
    // it is part of the connect: it ends with the connect budget or when the connect is aborted.
    if (o.notificationStream) await waitForGetStream(streamable, budget, signal);
    return { ok: true, value: conn };
  }

  return {
    plansFromToolList: true,
    /** Opens a connection; a failed open forgets the cached era, so the next attempt detects afresh. */
    async open(signal) {
      const outcome = await detect(signal);
      if (!outcome.ok) eraCache.delete(url.href);
      return outcome;
    },
    dispose,
    openNotificationStream: (conn) => void conn.streamable?.openNotificationStream(),
    /** A 404 on a request that carried the session id: the server forgot the session. */
    sessionLost,
    /** 2026-07-28: drops tools whose `x-mcp-header` declarations are invalid, and plans the rest. */
    planTools: (conn, tools) => planTools(conn, tools, o.warn),
  };
}
