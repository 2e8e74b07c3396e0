/**
 * Opening an HTTP connection in the right era and transport: the `server/discover` probe, the
 * legacy `initialize`, and the fallback to HTTP+SSE on 400/404/405 of the initialize POST (never
 * on 401/403). The era found is cached per endpoint.
 */
import type { RpcMessage, RpcNotification } from "../protocol/json-rpc.js";
import {
  type ClientIdentity,
  type ConnectBudget,
  createConnectBudget,
  type EraPreference,
  initializeLegacy,
  notModern,
  openListen,
  probeModern,
  type RequestContext,
  type Session,
  statusOf,
} from "../protocol/mcp-client.js";
import type { Outcome } from "../protocol/mcp-session.js";
import { META, MODERN_ERROR_CODES, type ParamHeader, paramHeaders, standardHeaders } from "../protocol/modern.js";
import { createRpcPeer, type RequestHandler, type RpcPeer } from "../protocol/rpc-peer.js";
import type { WireFault } from "../protocol/wire-fault.js";
import type { HttpEndpointOptions, WireFaultError } from "../transport/http-exchange.js";
import { createStreamableHttpTransport, type StreamableHttpTransport } from "../transport/http-streamable.js";
import { createLegacySseTransport, type LegacySseTransport } from "../transport/legacy-sse.js";

/** One live connection: a peer over Streamable HTTP or legacy SSE, and its session. */
export interface HttpConnection {
  readonly peer: RpcPeer;
  readonly streamable: StreamableHttpTransport | undefined;
  readonly sse: LegacySseTransport | undefined;
  session: Session | undefined;
  alive: boolean;
  /** Modern era: the `Mcp-Param-*` plan of each listed tool. */
  plans: Map<string, readonly ParamHeader[]> | undefined;
  /** Modern era: tools left out of the list for invalid `x-mcp-header` declarations, with the reason. */
  dropped: Map<string, string> | undefined;
  listen: AbortController | undefined;
  /** Each listed tool's `execution.taskSupport`, once tools were listed. */
  taskSupport?: Map<string, string> | undefined;
}

/** What the connector needs from its caller. Header names are lower-case. */
export interface HttpConnectorOptions extends HttpEndpointOptions {
  readonly handlers?: ReadonlyMap<string, RequestHandler> | undefined;
  readonly identity: ClientIdentity;
  readonly era: EraPreference;
  readonly connectTimeoutMs: number;
  readonly probeTimeoutMs?: number | undefined;
  readonly legacySseFallback: boolean;
  /** Open the legacy GET stream / modern `subscriptions/listen`. */
  readonly notificationStream: boolean;
  readonly warn: (message: string) => void;
  readonly onNotification?: ((notification: RpcNotification) => void) | undefined;
  /** The request context for a connection (used by `subscriptions/listen`). */
  readonly context: (conn: HttpConnection) => RequestContext;
  /** A legacy SSE stream closed: the connection is dead. */
  readonly onLost: (conn: HttpConnection) => void;
  /** Resource URIs the client subscribed to (modern era: carried by `subscriptions/listen`). */
  readonly resourceSubscriptions?: () => readonly string[];
}

/** Opens and disposes connections. */
export interface HttpConnector {
  open(signal: AbortSignal): Promise<Outcome<HttpConnection>>;
  dispose(conn: HttpConnection): Promise<void>;
  /** Makes sure notifications can arrive: the legacy GET stream, or a fresh modern listen (new subscriptions). */
  relisten(conn: HttpConnection): void;
}

/** Era found per endpoint, so later callers skip the probe or go straight to SSE. */
const eraCache = new Map<string, "modern" | "legacy" | "sse">();

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
    conn.session?.era === "modern" || typeof (params?._meta as { [k: string]: unknown } | undefined)?.[META.protocolVersion] === "string";
  if (!modern) return undefined;
  const out = standardHeaders(message.method, params);
  if (message.method === "tools/call" && typeof params?.name === "string") {
    const plan = conn.plans?.get(params.name);
    if (plan && plan.length > 0) Object.assign(out, paramHeaders(plan, params.arguments));
  }
  return out;
}

/** Creates a connector for one endpoint. */
export function createHttpConnector(o: HttpConnectorOptions): HttpConnector {
  const { url, identity, era } = o;

  function onNotification(conn: HttpConnection, notification: RpcNotification): void {
    if (notification.method === "notifications/tools/list_changed") {
      conn.plans = undefined;
      conn.dropped = undefined;
      conn.taskSupport = undefined;
    }
    o.onNotification?.(notification);
  }

  function streamableConnection(): HttpConnection {
    let conn: HttpConnection | undefined;
    const streamable = createStreamableHttpTransport({
      url,
      headers: o.headers,
      agent: o.agent,
      redirect: o.redirect,
      outbound: o.outbound,
      auth: o.auth,
      receive: (value) => peer.receive(value),
      onNoise: o.warn,
      headersFor: (message) => (conn ? routingHeaders(conn, message) : undefined),
    });
    const peer = createRpcPeer({
      send: (message, context) => streamable.send(message, context),
      onAbandon: (id) => streamable.abandon(id),
      onNotification: (n) => conn && onNotification(conn, n),
      onProtocolNoise: o.warn,
      ...(o.handlers ? { handlers: o.handlers } : {}),
    });
    conn = { peer, streamable, sse: undefined, session: undefined, alive: true, plans: undefined, dropped: undefined, listen: undefined };
    return conn;
  }

  async function sseConnection(signal: AbortSignal, timeoutMs: number): Promise<Outcome<HttpConnection>> {
    let conn: HttpConnection | undefined;
    const sse = createLegacySseTransport({
      url,
      headers: o.headers,
      agent: o.agent,
      redirect: o.redirect,
      outbound: o.outbound,
      auth: o.auth,
      receive: (value) => peer.receive(value),
      onNoise: o.warn,
      onClose: (fault) => {
        if (!conn) return;
        conn.alive = false;
        o.onLost(conn);
        peer.failAll(fault);
      },
    });
    const peer = createRpcPeer({
      send: (message) => sse.send(message),
      onNotification: (n) => conn && onNotification(conn, n),
      onProtocolNoise: o.warn,
      ...(o.handlers ? { handlers: o.handlers } : {}),
    });
    conn = { peer, streamable: undefined, sse, session: undefined, alive: true, plans: undefined, dropped: undefined, listen: undefined };
    try {
      await sse.connect(signal, timeoutMs);
    } catch (error) {
      await sse.close();
      return { ok: false, fault: (error as WireFaultError).fault ?? { type: "transport", code: "ESSE", message: String(error) } };
    }
    return { ok: true, value: conn };
  }

  async function dispose(conn: HttpConnection): Promise<void> {
    conn.alive = false;
    conn.listen?.abort();
    if (conn.streamable) await conn.streamable.close();
    if (conn.sse) await conn.sse.close();
    conn.peer.failAll(closedFault);
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

  function listen(conn: HttpConnection): void {
    conn.listen = openListen(
      conn.peer,
      o.context(conn),
      (fault) => {
        if (conn.alive) o.warn(`subscriptions/listen ended: ${fault.message}`);
      },
      {},
      o.resourceSubscriptions?.() ?? [],
    );
  }

  function relisten(conn: HttpConnection): void {
    if (!conn.alive) return;
    if (conn.session?.era !== "modern") {
      conn.streamable?.openNotificationStream();
      return;
    }
    conn.listen?.abort();
    listen(conn);
  }

  /** Opens a connection; a failed open forgets the cached era, so the next attempt detects afresh. */
  async function open(signal: AbortSignal): Promise<Outcome<HttpConnection>> {
    const outcome = await detect(signal);
    if (!outcome.ok) eraCache.delete(url.href);
    return outcome;
  }

  async function detect(signal: AbortSignal): Promise<Outcome<HttpConnection>> {
    const budget = createConnectBudget(o.connectTimeoutMs);
    const key = url.href;
    const cached = eraCache.get(key);
    if (cached === "sse" && era !== "modern" && o.legacySseFallback) return openSse(signal, budget);
    const conn = streamableConnection();
    const streamable = conn.streamable as StreamableHttpTransport;
    if (era === "modern" || (era === "auto" && cached !== "legacy")) {
      const probe = await probeModern(conn.peer, identity, { timeoutMs: budget.probeMs(era, o.probeTimeoutMs ?? 5000), signal });
      if (probe.kind === "modern") {
        streamable.modern = true;
        // 2026-07-28 has no sessions: forget any id a server echoed on the probe.
        streamable.resetSession();
        conn.session = probe.session;
        eraCache.set(key, "modern");
        if (o.notificationStream) listen(conn);
        return { ok: true, value: conn };
      }
      if (probe.kind === "fault" || era === "modern") {
        await dispose(conn);
        const fault = probe.fault && budget.explain(probe.fault, "server/discover");
        return { ok: false, fault: probe.kind === "fault" ? (fault as WireFault) : notModern(fault) };
      }
    }
    const init = await initializeLegacy(conn.peer, identity, { timeoutMs: budget.remaining(), signal });
    if (!init.ok) {
      await dispose(conn);
      const status = statusOf(init.fault);
      const modernError = init.fault.type === "rpc" && MODERN_ERROR_CODES.has(init.fault.code);
      // Only 400/404/405 mean "no Streamable HTTP here"; a 401/403 is an auth answer and must surface.
      if (o.legacySseFallback && (status === 400 || status === 404 || status === 405) && !modernError) return openSse(signal, budget);
      return { ok: false, fault: budget.explain(init.fault, "initialize") };
    }
    conn.session = init.value;
    streamable.protocolVersion = init.value.protocolVersion;
    eraCache.set(key, "legacy");
    if (o.notificationStream) streamable.openNotificationStream();
    return { ok: true, value: conn };
  }

  return { open, dispose, relisten };
}
