/**
 * One HTTP exchange over node:http(s) with a keep-alive agent: redirects under a policy, abort,
 * and transport errors turned into `WireFault` values. node:http rather than fetch: lower
 * per-request overhead and explicit control of sockets (see README design notes).
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WireFault } from "../failure/wire-fault.js";
import type { AuthProvider } from "./auth-provider.js";
import { nodeHttps } from "./lazy-builtins.js";
import type { OutboundGuard } from "./outbound.js";

/** How redirects are handled. `same-origin` follows only same-origin hops; `follow` follows any hop but drops credentials when the origin changes. */
export type RedirectPolicy = "same-origin" | "follow" | "error";

/** Where and how an HTTP transport talks to one server. Header names are lower-case. */
export interface HttpEndpointOptions {
  readonly url: URL;
  readonly headers: { readonly [name: string]: string };
  readonly agent: http.Agent;
  readonly redirect: RedirectPolicy;
  readonly auth?: AuthProvider | undefined;
  /** Which hosts and addresses may be reached, checked on every hop. */
  readonly outbound?: OutboundGuard | undefined;
}

/** Options for one exchange. Header names must be lower-case. */
export interface HttpExchangeOptions {
  readonly method: "GET" | "POST" | "DELETE";
  readonly url: URL;
  /** A fresh object per exchange: the exchange adds `content-length` to it in place. */
  readonly headers: { [name: string]: string };
  readonly body?: string;
  /** Agent for the original origin; `false` opens a dedicated connection. */
  readonly agent?: http.Agent | false;
  readonly signal?: AbortSignal;
  /** A cheaper alternative to `signal` for per-request cancellation (no EventTarget work). */
  readonly abort?: AbortHandle;
  readonly redirect?: RedirectPolicy;
  readonly maxRedirects?: number;
  /** Checked before the first request and every redirect hop; its lookup refuses forbidden addresses. */
  readonly outbound?: OutboundGuard | undefined;
}

/** A response whose body has not been read yet. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The final URL after redirects. */
  readonly url: URL;
  readonly body: IncomingMessage;
}

/** An error carrying a wire fault; the RPC peer unwraps `fault`. */
export class WireFaultError extends Error {
  constructor(readonly fault: WireFault) {
    super(fault.message);
    this.name = "WireFaultError";
  }
}

/**
 * A one-watcher abort flag. AbortController costs several microseconds per request in Node
 * (EventTarget listeners); an exchange only ever needs one watcher at a time, and one stream (its
 * request, then its response body) to tear down, which needs no closure.
 */
export class AbortHandle {
  #aborted = false;
  #watcher: (() => void) | undefined;
  #stream: { destroy(error: Error): unknown } | undefined;
  get aborted(): boolean {
    return this.#aborted;
  }
  /** Sets (or clears) the one callback run on abort. */
  watch(fn: (() => void) | undefined): void {
    this.#watcher = fn;
  }
  /** Sets the stream an abort destroys (with an `ABORT_ERR` error); destroying a finished one is a no-op. */
  track(stream: { destroy(error: Error): unknown } | undefined): void {
    this.#stream = stream;
  }
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const stream = this.#stream;
    const fn = this.#watcher;
    this.#stream = undefined;
    this.#watcher = undefined;
    stream?.destroy(abortError());
    fn?.();
  }
}

/** The error an abort destroys a request or body with; `faultFromError` maps it to "canceled". */
function abortError(): Error {
  return Object.assign(new Error("aborted"), { code: "ABORT_ERR" });
}

/** Headers that carry credentials and never follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie", "mcp-session-id"];
const SECRET_HEADER_NAME = /key|token|secret|auth|cookie|session|passw|credential|signature/i;

const targets = new WeakMap<URL, { protocol: string; hostname: string; port: string; path: string; host: string }>();

/** Request options for a URL, computed once per URL object (node would re-derive them per request). */
function target(url: URL): { protocol: string; hostname: string; port: string; path: string; host: string } {
  let t = targets.get(url);
  if (!t) {
    const host = url.hostname;
    t = {
      protocol: url.protocol,
      // URL keeps IPv6 literals bracketed ("[::1]"); node:http wants the bare address.
      hostname: host.startsWith("[") ? host.slice(1, -1) : host,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      // What node would send as Host: brackets kept, the port only when it is not the scheme's default.
      host: url.host,
    };
    targets.set(url, t);
  }
  return t;
}

/** A reused socket idle at least this long may have been closed by the server's keep-alive timeout. */
const STALE_IDLE_MS = 1000;
/** When each pooled socket last finished a response (went idle). */
const idleSince = new WeakMap<object, number>();
/** Agents that record `idleSince` themselves (see `trackIdleSockets`), so their requests need no `end` listener. */
const tracked = new WeakSet<object>();

/**
 * Makes `agent` record when each of its sockets goes back to the pool, which the stale-socket retry
 * reads. Done in the agent's own `keepSocketAlive` (the moment a socket becomes idle) instead of a
 * listener on every response. Returns the agent.
 */
export function trackIdleSockets<A extends http.Agent>(agent: A): A {
  // Typed `void` in @types/node; node's returns whether the socket may be kept.
  const keepSocketAlive = agent.keepSocketAlive as (this: http.Agent, socket: Duplex) => boolean;
  agent.keepSocketAlive = function (this: http.Agent, socket: Duplex) {
    const keep = keepSocketAlive.call(this, socket);
    if (keep) idleSince.set(socket, Date.now());
    return keep;
  } as http.Agent["keepSocketAlive"];
  tracked.add(agent);
  return agent;
}

/** Records, for an agent that does not track its sockets, when the response's socket went idle. */
function markIdle(this: IncomingMessage & { req: http.ClientRequest }): void {
  // By "end" node has detached the socket from the response; the request still has it.
  const socket = this.req.socket;
  if (socket) idleSince.set(socket, Date.now());
}

/**
 * True when a request failed because its reused keep-alive socket had been closed by the server,
 * so the server never read it: a TCP reset (RST, or EPIPE on the write) before any response (a
 * server that read everything closes with FIN, not RST), or a hang-up on a socket that sat idle
 * long enough for the server's keep-alive timeout to have closed it.
 */
function staleSocket(error: NodeJS.ErrnoException, idleMs: number): boolean {
  if (error.code === "EPIPE" || (error.code === "ECONNRESET" && (error.syscall === "read" || error.syscall === "write"))) return true;
  return error.code === "ECONNRESET" && idleMs >= STALE_IDLE_MS;
}

/** How long the request's reused socket had been idle when the request was handed to it (`sentAt`). */
function idleFor(req: http.ClientRequest, sentAt: number): number {
  const since = req.socket ? idleSince.get(req.socket) : undefined;
  return since === undefined ? 0 : sentAt - since;
}

/**
 * One request. A reused keep-alive socket can race the server closing it (its keep-alive timeout
 * passed while we were busy elsewhere, e.g. in an OAuth flow): such a request is sent once more,
 * on a fresh connection, as Node's docs advise for `request.reusedSocket`. Other resets are
 * failures: the server may have read that request. Listeners are plain `on` (each event fires at
 * most once on a per-request object): `once` wrappers were a visible share of the profile.
 */
function once(
  options: HttpExchangeOptions,
  url: URL,
  headers: { [name: string]: string },
  agent: http.Agent | false | undefined,
  retried = false,
): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const signal = options.signal;
    const handle = options.abort;
    if (signal?.aborted || handle?.aborted) {
      reject(new WireFaultError({ type: "canceled", message: "aborted before sending" }));
      return;
    }
    const mod = url.protocol === "https:" ? nodeHttps() : http;
    const body = options.body;
    // `headers` is this exchange's own object (see httpExchange): set the length in place.
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const t = target(url);
    // Headers as a flat [name, value, ...] list: node validates each once and writes the head at
    // once, instead of one setHeader (validation, lower-casing, a [name, value] pair) per header and
    // a second pass. With a list node adds neither Host nor the Basic auth of `auth`: both are here.
    const list: string[] = [];
    for (const name of Object.keys(headers)) list.push(name, headers[name] as string);
    if (headers.host === undefined) list.push("Host", t.host);
    // Userinfo in the URL becomes Basic auth, as fetch would send it; URL keeps it percent-encoded.
    if (url.username && headers.authorization === undefined) {
      list.push("Authorization", `Basic ${Buffer.from(decodeURIComponent(`${url.username}:${url.password}`)).toString("base64")}`);
    }
    const requestOptions: http.RequestOptions = {
      protocol: t.protocol,
      hostname: t.hostname,
      port: t.port,
      path: t.path,
      method: options.method,
      headers: list,
    };
    if (agent !== undefined) requestOptions.agent = agent;
    // The policy's lookup checks the resolved addresses, so a name that resolves to a private
    // address is refused at connect time, not only by its spelling (DNS rebinding).
    if (options.outbound) requestOptions.lookup = options.outbound.lookup;
    const req = mod.request(requestOptions);
    // The agent hands a pooled socket over synchronously, inside `request()`: now is when it stopped being idle.
    const sentAt = req.reusedSocket ? Date.now() : 0;
    let onAbort: (() => void) | undefined;
    if (signal) {
      onAbort = () => req.destroy(abortError());
      signal.addEventListener("abort", onAbort, { once: true });
    }
    handle?.track(req);
    // Once any response arrived the server has read the request: no resend, whatever fails later.
    let responded = false;
    req.on("response", (res: IncomingMessage) => {
      responded = true;
      if (agent === undefined || (agent !== false && !tracked.has(agent))) res.on("end", markIdle);
      // The body stream outlives this function; abort still has to tear it down.
      if (signal) {
        signal.removeEventListener("abort", onAbort as () => void);
        const onBodyAbort = () => res.destroy(abortError());
        signal.addEventListener("abort", onBodyAbort, { once: true });
        res.on("close", () => signal.removeEventListener("abort", onBodyAbort));
      }
      handle?.track(res);
      resolve(res);
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
      const aborted = signal?.aborted || handle?.aborted;
      if (!retried && !responded && !aborted && req.reusedSocket && staleSocket(error, idleFor(req, sentAt))) {
        // A fresh connection: the pool may hold more sockets the server closed at the same time.
        resolve(once(options, url, headers, false, true));
        return;
      }
      reject(new WireFaultError(faultFromError(error, url)));
    });
    req.end(body);
  });
}

/** Maps a socket-level error to a wire fault. Never includes headers or bodies. */
export function faultFromError(error: NodeJS.ErrnoException, url: URL): WireFault {
  if (error.code === "ABORT_ERR" || error.name === "AbortError") return { type: "canceled", message: "aborted by caller" };
  // A socket-level EPROTO is a failed TLS handshake (https:// to a plain-HTTP port): the server is
  // unreachable as configured, not sending garbage, so it must not map like a protocol EPROTO.
  const code = error.code === "EPROTO" ? "ETLS" : (error.code ?? "ETRANSPORT");
  return { type: "transport", code, message: `${url.origin}: ${error.message || code}` };
}

/** Sends one request, following redirects by policy. Rejects only with `WireFaultError`. */
export async function httpExchange(options: HttpExchangeOptions): Promise<HttpResponse> {
  const policy = options.redirect ?? "same-origin";
  const max = options.maxRedirects ?? 5;
  const origin = options.url.origin;
  let url = options.url;
  // The caller hands over a fresh object per exchange; it is amended in place, never shared.
  let headers = options.headers;
  let agent = options.agent;
  for (let hop = 0; ; hop++) {
    // Every hop is checked, not only the first: a redirect is the usual way around an SSRF filter.
    const refused = options.outbound?.check(url);
    if (refused) throw new WireFaultError(hop === 0 ? refused : { ...refused, message: `redirect refused: ${refused.message}` });
    const res = await once(options, url, headers, agent);
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    // 304 is a 3xx that is not a redirect; with policy "error" the caller gets the 3xx itself.
    if (status < 300 || status >= 400 || status === 304 || location === undefined || policy === "error") {
      return { status, headers: res.headers, url, body: res };
    }
    res.resume(); // drained, so its socket goes back to the pool
    if (hop >= max) throw new WireFaultError({ type: "http", status, message: `more than ${max} redirects` });
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new WireFaultError({ type: "http", status, message: "redirect with an invalid Location" });
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new WireFaultError({ type: "http", status, message: `redirect to unsupported scheme ${next.protocol}` });
    }
    if (next.origin !== origin) {
      if (policy === "same-origin") {
        throw new WireFaultError({ type: "http", status, message: `redirect to another origin (${next.origin}) refused` });
      }
      headers = { ...headers };
      for (const name of CREDENTIAL_HEADERS) delete headers[name];
      // Custom credentials (X-Api-Key, X-Auth-Token...) must not follow to another origin either.
      for (const name of Object.keys(headers)) if (SECRET_HEADER_NAME.test(name)) delete headers[name];
      // The pooled agent belongs to the original origin; another origin gets Node's default.
      agent = undefined;
    }
    url = next;
  }
}

/** Default bound on a body read into memory. */
const BODY_LIMIT = 16 * 1024 * 1024;

/**
 * The whole body as UTF-8 text when node has already parsed all of it (a small JSON answer arrives
 * with its headers), read at once without listeners; undefined otherwise (read it with `readBody`).
 * Reading it to its end also schedules "end", which returns the socket to the pool.
 */
export function bufferedBody(body: IncomingMessage, limit = BODY_LIMIT): string | undefined {
  if (!body.complete || body.readableLength > limit || body.readableFlowing !== null || body.readableEncoding !== null) return undefined;
  const chunk = body.read() as Buffer | null;
  return chunk === null ? "" : chunk.toString("utf8");
}

/** Reads a body as UTF-8 text, keeping at most `limit` characters. */
export function readBody(body: IncomingMessage, limit = BODY_LIMIT): Promise<string> {
  // Bounded: a server that streams forever must fail the call, not exhaust our memory. Chunks are
  // decoded once at the end, so a multi-byte character split across chunks stays whole.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    body.on("data", (chunk: Buffer) => {
      if (truncated) return;
      size += chunk.length;
      if (size > limit) {
        truncated = true;
        body.destroy();
        reject(new WireFaultError({ type: "transport", code: "EOVERSIZE", message: `response body larger than ${limit} bytes` }));
        return;
      }
      chunks.push(chunk);
    });
    // Plain `on`: "end" and "close" fire once on a body, and `once` wrappers cost per request.
    body.on("end", () => resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks).toString("utf8")));
    body.on("error", (error: NodeJS.ErrnoException) => {
      if (!truncated) reject(new WireFaultError(faultFromError(error, new URL("http://peer"))));
    });
    // A connection cut mid-body emits "close" without "end": the answer is incomplete, not short.
    body.on("close", () => {
      if (!body.complete && !truncated)
        reject(new WireFaultError({ type: "transport", code: "ECONNRESET", message: "response ended early" }));
    });
  });
}
