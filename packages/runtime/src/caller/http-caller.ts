/**
 * `createHttpCaller`: an MCP caller for a server reached over HTTP. Detects the protocol era
 * (`server/discover`, then `initialize`), speaks Streamable HTTP, falls back to legacy HTTP+SSE on
 * 400/404/405 of the initialize POST only, re-initializes once on a lost session, and returns
 * failures as values. The session itself is the core's; this file sets up the endpoint.
 */
import http from "node:http";
import { redactValues } from "../failure/failure.js";
import { type Era, type EraPreference, effectiveEra } from "../protocol/mcp-client.js";
import type { AuthProvider } from "../transport/auth-provider.js";
import { secretFragments } from "../transport/environment.js";
import { type RedirectPolicy, trackIdleSockets } from "../transport/http-exchange.js";
import { prepareHeaders } from "../transport/http-headers.js";
import { nodeHttps } from "../transport/lazy-builtins.js";
import { copyOutboundPolicy, createOutboundGuard, type OutboundGuard, type OutboundPolicy } from "../transport/outbound.js";
import type { SessionCaller, SessionCallerOptions } from "./caller.js";
import { callerPrototype, liveOf } from "./caller-prototype.js";
import { createHttpConnector, type HttpConnection } from "./http-connection.js";
import { createSessionCore } from "./session-core.js";

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

/** Idle keep-alive sockets are closed after this long (or 1 s before the server's hint, if shorter). */
const IDLE_SOCKET_MS = 4000;

/**
 * The outbound guard of one caller. The policy is copied when the caller is created, so the verdict
 * on the caller's own endpoint URL (an object nobody else holds) cannot change and is computed once:
 * the check costs an address parse per request. Redirect hops and other URLs are checked every time.
 */
function endpointGuard(url: URL, policy: OutboundPolicy | undefined): OutboundGuard {
  const guard = createOutboundGuard(policy === undefined ? undefined : copyOutboundPolicy(policy));
  const href = url.href;
  const verdict = guard.check(url);
  return {
    // A refusal is handed out as a fresh object each time, as the guard itself would.
    check: (u) => (u === url && u.href === href ? verdict && { ...verdict } : guard.check(u)),
    lookup: guard.lookup,
  };
}

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
  // Configured header values (tokens, keys, cookies) are secrets: a hostile server may reflect them.
  const secrets = secretFragments(Object.values(headers));
  const warn = (message: string) => options.onWarning?.(redactValues(message, secrets));
  const AgentClass = url.protocol === "https:" ? nodeHttps().Agent : http.Agent;
  // An idle timeout is what makes Node honour a server's `Keep-Alive: timeout=N` hint (closing
  // idle sockets 1 s before the server does); without one, idle sockets are kept until reset.
  const agent = trackIdleSockets(new AgentClass({ keepAlive: true, maxSockets: options.maxSockets ?? 256, timeout: IDLE_SOCKET_MS }));
  const wantsStream =
    options.notificationStream ??
    (options.onNotification !== undefined || options.onListChanged !== undefined || options.handlers !== undefined);
  const core = createSessionCore<HttpConnection>(
    {
      server: options.name ?? url.host,
      options,
      era: effectiveEra(options.era, options.protocolVersion),
      secrets,
      listen: wantsStream,
      warn,
      prototype: HTTP_CALLER,
    },
    (link) => ({
      ...createHttpConnector(
        {
          url,
          headers,
          agent,
          redirect: options.redirect ?? "same-origin",
          outbound: endpointGuard(url, options.outbound),
          auth: options.auth,
          connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
          probeTimeoutMs: options.probeTimeoutMs,
          legacySseFallback: options.legacySseFallback !== false,
          notificationStream: wantsStream,
          warn,
          wiretap: options.wiretap,
        },
        link,
      ),
      async close() {
        agent.destroy();
      },
    }),
  );
  // sessionId, era and transport come from HTTP_CALLER.
  return core.caller({}) as HttpCaller;
}

// Getters on the shared prototype of HTTP callers (caller-prototype.ts), reading the live connection.
const HTTP_CALLER = callerPrototype({
  get sessionId() {
    return liveOf<HttpConnection>(this)?.streamable?.sessionId;
  },
  get era() {
    return liveOf<HttpConnection>(this)?.session?.era;
  },
  get transport() {
    const conn = liveOf<HttpConnection>(this);
    if (!conn) return undefined;
    return conn.sse ? ("legacy-sse" as const) : ("streamable-http" as const);
  },
});
