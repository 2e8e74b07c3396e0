/**
 * `createHttpCaller`: an MCP caller for a server reached over HTTP. Detects the protocol era
 * (`server/discover`, then `initialize`), speaks Streamable HTTP, falls back to legacy HTTP+SSE on
 * 400/404/405 of the initialize POST only, re-initializes once on a lost session, and returns
 * failures as values.
 */
import http from "node:http";
import https from "node:https";
import { redactFailureValues, redactValues, registerSecretValues } from "../failure/failure.js";
import { failureFromFault, failureFromLocal } from "../failure/failure-mapping.js";
import { withClientTasks, withTaskCapabilities } from "../protocol/client-tasks.js";
import {
  type ClientIdentity,
  capabilitiesFromHandlers,
  type Era,
  type EraPreference,
  effectiveEra,
  listToolsPaged,
  type RequestContext,
  type Session,
  sendRequest,
  statusOf,
  traceMeta,
} from "../protocol/mcp-client.js";
import { DEFAULT_CLIENT_INFO, type Outcome } from "../protocol/mcp-session.js";
import type { CallToolResult, ServerHandshake, ToolDescriptor } from "../protocol/mcp-types.js";
import { type ParamHeader, planToolHeaders } from "../protocol/modern.js";
import { watchAbort } from "../protocol/rpc-peer.js";
import { callToolTasked, serverRunsToolTasks, startToolTask, taskSupportOf } from "../protocol/task-call.js";
import type { WireFault } from "../protocol/wire-fault.js";
import type { AuthProvider } from "../transport/auth-provider.js";
import { redactFaultValues, secretFragments } from "../transport/environment.js";
import type { RedirectPolicy } from "../transport/http-exchange.js";
import { prepareHeaders } from "../transport/http-headers.js";
import { createOutboundGuard, type OutboundPolicy } from "../transport/outbound.js";
import {
  CallerClosedError,
  type CallOptions,
  type CallRequest,
  type CallResponse,
  type SessionCaller,
  type SessionCallerOptions,
} from "./caller.js";
import { createHttpConnector, type HttpConnection } from "./http-connection.js";
import { createSurface } from "./surface.js";
import { toolTask } from "./tool-task.js";

export { clearHttpEraCache } from "./http-connection.js";

/** Options for `createHttpCaller`. */
export interface HttpCallerOptions extends SessionCallerOptions {
  /** Server name used in failures. Defaults to the URL's host. */
  readonly name?: string;
  /** The MCP endpoint (Streamable HTTP), or the SSE URL of a legacy server. */
  readonly url: string | URL;
  /** Static headers; values may hold `${VAR}` or `${VAR:-default}`. */
  readonly headers?: { readonly [name: string]: string };
  /** Where `${VAR}` comes from. Default `process.env`. */
  readonly env?: { readonly [name: string]: string | undefined };
  /** Detect the era (`auto`, the default) or pin it. */
  readonly era?: EraPreference;
  /** Time allowed for the `server/discover` probe in `auto` mode. Default min(connect timeout, 5 s). */
  readonly probeTimeoutMs?: number;
  /** Non-fatal problems: dropped tools, unparseable events. */
  readonly onWarning?: (message: string) => void;
  readonly auth?: AuthProvider;
  /** Fall back to legacy HTTP+SSE on 400/404/405 of the initialize POST. Default true. */
  readonly legacySseFallback?: boolean;
  /** Default `same-origin`: cross-origin redirects are refused. `follow` drops credentials on the new origin. */
  readonly redirect?: RedirectPolicy;
  /**
   * Which hosts and addresses may be reached, on the first request and every redirect hop. Default:
   * any host, but plain http:// only to loopback and no private addresses (SSRF); loopback is allowed.
   */
  readonly outbound?: OutboundPolicy;
  /** Open the legacy GET stream / modern `subscriptions/listen`. Default: when `onNotification` or `handlers` is given. */
  readonly notificationStream?: boolean;
  /** Sockets per origin in the keep-alive pool. Default 256. */
  readonly maxSockets?: number;
}

/** An HTTP caller. */
export interface HttpCaller extends SessionCaller {
  /** The legacy session id, if the server assigned one. */
  readonly sessionId: string | undefined;
  /** The era and transport of the live connection. */
  readonly era: Era | undefined;
  readonly transport: "streamable-http" | "legacy-sse" | undefined;
  close(): Promise<void>;
}

type Connection = HttpConnection;

const closedFault: WireFault = { type: "transport", code: "ECLOSED", message: "the HTTP caller is closed" };
/** Idle keep-alive sockets are closed after this long (or 1 s before the server's hint, if shorter). */
const IDLE_SOCKET_MS = 4000;

/** Creates a caller for an MCP server over HTTP. Nothing is sent until the first call or `connect()`. */
export function createHttpCaller(options: HttpCallerOptions): HttpCaller {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    // The URL itself is not echoed: it may carry a key in its query.
    throw new Error("createHttpCaller: url is not a valid absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`createHttpCaller: url must be http(s), got ${url.protocol}`);
  const headers = prepareHeaders(options.headers, options.env ?? process.env);
  const server = options.name ?? url.host;
  const tasks = options.tasks !== false;
  const handlers = tasks ? withClientTasks(options.handlers) : options.handlers;
  const declared = options.capabilities ?? capabilitiesFromHandlers(options.handlers);
  const identity: ClientIdentity = {
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    capabilities: tasks ? withTaskCapabilities(declared, options.handlers) : declared,
    protocolVersion: options.protocolVersion,
  };
  const era = effectiveEra(options.era, options.protocolVersion);
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const redirect = options.redirect ?? "same-origin";
  const outbound = createOutboundGuard(options.outbound);
  const wantsStream =
    options.notificationStream ??
    (options.onNotification !== undefined || options.onListChanged !== undefined || options.handlers !== undefined);
  // Configured header values (tokens, keys, cookies) are secrets: a hostile server may reflect them.
  const secrets = secretFragments(Object.values(headers));
  // Every failure built while this caller is open is scrubbed of them, whatever path builds it.
  const releaseSecrets = registerSecretValues(secrets);
  const warn = (message: string) => options.onWarning?.(redactValues(message, secrets));
  const AgentClass = url.protocol === "https:" ? https.Agent : http.Agent;
  // An idle timeout is what makes Node honour a server's `Keep-Alive: timeout=N` hint (closing
  // idle sockets 1 s before the server does); without one, idle sockets are kept until reset.
  const agent = new AgentClass({ keepAlive: true, maxSockets: options.maxSockets ?? 256, timeout: IDLE_SOCKET_MS });
  let current: Connection | undefined;
  let connecting: Promise<Outcome<Connection>> | undefined;
  let closed = false;
  /** Aborted by close(): ends a connect in progress. */
  const life = new AbortController();

  const connector = createHttpConnector({
    url,
    headers,
    agent,
    redirect,
    outbound,
    auth: options.auth,
    handlers,
    identity,
    era,
    connectTimeoutMs,
    probeTimeoutMs: options.probeTimeoutMs,
    legacySseFallback: options.legacySseFallback !== false,
    notificationStream: wantsStream,
    warn,
    onNotification: (notification) => {
      handle.observe(notification);
      options.onNotification?.(notification);
    },
    resourceSubscriptions: () => listenUris,
    context: (conn) => context(conn),
    onLost: (conn) => {
      if (current === conn) current = undefined;
    },
  });
  const dispose = (conn: Connection) => connector.dispose(conn);
  /** Resources subscribed to; the modern `subscriptions/listen` carries them. */
  let listenUris: readonly string[] = [];

  function context(conn: Connection): RequestContext {
    return {
      session: conn.session as Session,
      identity,
      handlers,
      maxInputRounds: options.maxInputRounds,
      onHeaderMismatch: async () => {
        await loadPlans(conn, {});
      },
    };
  }

  /**
   * The live connection, connecting if needed. The connect is shared by every waiting call, so it
   * runs on the caller's own life signal; a call's signal only stops that call's wait.
   */
  function ensure(signal: AbortSignal | undefined): Promise<Outcome<Connection>> {
    // Using a caller after close() is a programmer error, the one case that throws.
    if (closed) return Promise.reject(new CallerClosedError(server));
    if (current?.alive) return Promise.resolve({ ok: true, value: current });
    connecting ??= (async () => {
      const outcome = await connector.open(life.signal);
      if (outcome.ok) {
        if (closed) {
          await dispose(outcome.value);
          return { ok: false, fault: closedFault } as const;
        }
        current = outcome.value;
      }
      return outcome;
    })().finally(() => {
      connecting = undefined;
    });
    const shared = connecting;
    if (!signal) return shared;
    if (signal.aborted) return Promise.resolve({ ok: false, fault: { type: "canceled", message: "aborted before connecting" } });
    return new Promise((resolve) => {
      const stop = watchAbort(signal, () => resolve({ ok: false, fault: { type: "canceled", message: "aborted while connecting" } }));
      void shared.then((outcome) => {
        stop();
        resolve(outcome);
      });
    });
  }

  /** A lost session (404 on a request that carried its id): drop the connection so the retry re-initializes. */
  function sessionLost(conn: Connection, fault: WireFault): boolean {
    if (statusOf(fault) !== 404 || !conn.streamable?.sessionExpired) return false;
    if (current === conn) current = undefined;
    conn.alive = false;
    conn.streamable.resetSession();
    void dispose(conn);
    return true;
  }

  const peerOptions = (o: CallOptions) => ({
    timeoutMs: o.timeoutMs ?? options.timeoutMs ?? 60_000,
    signal: o.signal,
    onProgress: o.onProgress,
    resetTimeoutOnProgress: o.resetTimeoutOnProgress,
    maxTotalTimeoutMs: o.maxTotalTimeoutMs,
  });

  /** Lists every page; in the modern era, drops tools whose `x-mcp-header` declarations are invalid. */
  async function loadPlans(conn: Connection, callOptions: CallOptions): Promise<Outcome<ToolDescriptor[]>> {
    const outcome = await listToolsPaged(conn.peer, context(conn), peerOptions(callOptions));
    if (outcome.ok) conn.taskSupport = taskSupportOf(outcome.value);
    if (!outcome.ok || conn.session?.era !== "modern") return outcome;
    const plans = new Map<string, readonly ParamHeader[]>();
    const dropped = new Map<string, string>();
    const kept: ToolDescriptor[] = [];
    for (const tool of outcome.value) {
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
    return { ok: true, value: kept };
  }

  /** Runs `fn` on a live connection; a lost session is re-initialized once and `fn` retried. */
  async function withConnection<T>(signal: AbortSignal | undefined, fn: (conn: Connection) => Promise<Outcome<T>>): Promise<Outcome<T>> {
    for (let attempt = 0; ; attempt++) {
      // The common case needs no promise: a live connection is used as is.
      const live = current?.alive && !closed ? current : undefined;
      const conn: Outcome<Connection> = live ? { ok: true, value: live } : await ensure(signal);
      if (!conn.ok) return conn;
      const outcome = await fn(conn.value);
      if (!outcome.ok && attempt === 0 && sessionLost(conn.value, outcome.fault)) continue;
      return outcome;
    }
  }

  const fail = (fault: WireFault, tool: string) => ({
    ok: false as const,
    failure: redactFailureValues(failureFromFault(fault, { tool, server }), secrets),
  });

  async function request(method: string, params: { readonly [key: string]: unknown } = {}, callOptions: CallOptions = {}) {
    const outcome = await withConnection(callOptions.signal, async (conn) => {
      const result = await sendRequest(conn.peer, context(conn), method, params, peerOptions(callOptions));
      return result.ok ? { ok: true as const, value: result.result } : result;
    });
    return outcome.ok ? ({ ok: true, result: outcome.value } as const) : fail(outcome.fault, method);
  }

  const handle = createSurface({
    server,
    request,
    era: () => current?.session?.era,
    serverCapabilities: () => current?.session?.handshake.capabilities,
    async connect(callOptions) {
      const outcome = await ensure(callOptions.signal);
      return outcome.ok ? { ok: true, value: undefined } : fail(outcome.fault, "connect");
    },
    listenTo(uris) {
      listenUris = uris;
      if (current) connector.relisten(current);
      return { ok: true, value: undefined };
    },
    onListChanged: options.onListChanged,
  });

  return {
    ...handle.surface,
    server,
    get handshake() {
      return current?.session?.handshake;
    },
    get sessionId() {
      return current?.streamable?.sessionId;
    },
    get era() {
      return current?.session?.era;
    },
    get transport() {
      if (!current) return undefined;
      return current.sse ? "legacy-sse" : "streamable-http";
    },
    async connect(connectOptions = {}) {
      const outcome = await ensure(connectOptions.signal);
      return outcome.ok
        ? { ok: true, value: outcome.value.session?.handshake as ServerHandshake }
        : { ok: false, fault: redactFaultValues(outcome.fault, secrets) };
    },
    async callTool(request: CallRequest, callOptions: CallOptions = {}): Promise<CallResponse> {
      let dropped: string | undefined;
      const outcome = await withConnection<CallToolResult | undefined>(callOptions.signal, async (conn) => {
        const session = conn.session as Session;
        // Header plans (modern) and task support (a task-capable legacy server) come from the tool list.
        const modern = session.era === "modern";
        if (
          (modern && conn.plans === undefined) ||
          (!modern && conn.taskSupport === undefined && serverRunsToolTasks(session.handshake.capabilities))
        )
          await loadPlans(conn, callOptions);
        // A tool left out of the list is not callable: its parameter headers cannot be built.
        dropped = conn.dropped?.get(request.name);
        if (dropped !== undefined) return { ok: true, value: undefined };
        const support = conn.taskSupport?.get(request.name);
        return callToolTasked(
          conn.peer,
          context(conn),
          request,
          traceMeta(options.traceContext),
          peerOptions(callOptions),
          support,
          callOptions.task,
        );
      });
      if (dropped !== undefined) {
        // Nothing was sent and no arguments can fix it: a local reason, so the planner replans.
        const message = `${server}: tool ${request.name} is unavailable: ${dropped}`;
        return { ok: false, failure: failureFromLocal("tool_unavailable", message, { tool: request.name, server }) };
      }
      if (!outcome.ok) return fail(outcome.fault, request.name);
      return { ok: true, result: outcome.value as CallToolResult };
    },
    async startToolTask(request: CallRequest, callOptions: CallOptions = {}) {
      const outcome = await withConnection(callOptions.signal, async (conn) => {
        if (conn.taskSupport === undefined) await loadPlans(conn, callOptions);
        const trace = traceMeta(options.traceContext);
        const support = conn.taskSupport?.get(request.name);
        return startToolTask(conn.peer, context(conn), request, trace, peerOptions(callOptions), support, callOptions.task);
      });
      if (!outcome.ok) return fail(outcome.fault, request.name);
      return { ok: true as const, task: toolTask(outcome.value, (fault) => fail(fault, request.name)) };
    },
    async listTools(callOptions: CallOptions = {}) {
      const outcome = await withConnection(callOptions.signal, (conn) => loadPlans(conn, callOptions));
      return outcome.ok ? { ok: true, tools: outcome.value } : fail(outcome.fault, "tools/list");
    },
    request,
    async ping(callOptions: CallOptions = {}) {
      const outcome = await withConnection(callOptions.signal, async (conn) => {
        // 2026-07-28 has no ping; server/discover is the cheapest liveness request there.
        const method = conn.session?.era === "modern" ? "server/discover" : "ping";
        const result = await sendRequest(conn.peer, context(conn), method, {}, peerOptions(callOptions));
        return result.ok ? { ok: true as const, value: undefined } : result;
      });
      return outcome.ok ? { ok: true } : fail(outcome.fault, "ping");
    },
    async notify(method, params) {
      const conn = current;
      if (!conn?.alive) return false;
      return conn.peer.notify(method, params).then(
        () => true,
        () => false,
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      life.abort();
      const pending = connecting;
      if (pending) await pending.catch(() => undefined);
      const conn = current;
      current = undefined;
      if (conn) await dispose(conn);
      agent.destroy();
      releaseSecrets();
    },
  };
}
