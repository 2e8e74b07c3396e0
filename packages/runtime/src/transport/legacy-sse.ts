/**
 * The deprecated HTTP+SSE transport (2024-11-05): GET opens an event stream whose first `endpoint`
 * event names the POST URL; every client message is POSTed there and answers come back as
 * `message` events. An endpoint on another origin is refused.
 */

import type { WireFault } from "../failure/wire-fault.js";
import type { RpcMessage } from "../protocol/json-rpc.js";
import { httpStatusFault, isSse, readFaultBody } from "./http-answer.js";
import { addCredentials, answerChallenge, isChallenge } from "./http-auth.js";
import { type HttpEndpointOptions, type HttpResponse, httpExchange, WireFaultError } from "./http-exchange.js";
import { createSseParser } from "./sse-parser.js";

/** Options for `createLegacySseTransport`. Header names are lower-case. */
export interface LegacySseOptions extends HttpEndpointOptions {
  readonly receive: (value: unknown) => void;
  readonly onNoise?: ((reason: string) => void) | undefined;
  /** The event stream ended; in-flight requests must fail. */
  readonly onClose: (fault: WireFault) => void;
}

/** A legacy HTTP+SSE transport. */
export interface LegacySseTransport {
  /** Opens the stream and waits for the `endpoint` event. Rejects with a `WireFaultError`. */
  connect(signal: AbortSignal, timeoutMs: number): Promise<void>;
  send(message: RpcMessage): Promise<void>;
  readonly endpoint: URL | undefined;
  close(): Promise<void>;
}

/** Where the POSTs go, from an `endpoint` event's data: a URL on the stream's origin, or the fault refusing it. */
function endpointFrom(data: string, streamUrl: URL | string, origin: string): URL | WireFault {
  let url: URL;
  try {
    url = new URL(data.trim(), streamUrl);
  } catch {
    return { type: "transport", code: "EPROTO", message: "the endpoint event is not a URL" };
  }
  // Our POSTs carry credentials: a server must not send them, and our requests, to another origin.
  if (url.origin !== origin) return { type: "transport", code: "EPROTO", message: `endpoint on another origin (${url.origin}) refused` };
  return url;
}

/** Creates a legacy HTTP+SSE transport. */
export function createLegacySseTransport(options: LegacySseOptions): LegacySseTransport {
  const life = new AbortController();
  let endpoint: URL | undefined;
  let closed = false;
  const posts = new Set<AbortController>();

  async function authHeaders(method: string): Promise<{ [name: string]: string }> {
    const headers: { [name: string]: string } = { ...options.headers };
    if (options.auth) await addCredentials(headers, options.auth, options.url, method);
    return headers;
  }

  /** Runs an exchange; a 401/403 goes to the auth provider, and the exchange is retried once if it says so. */
  async function withChallenge(run: () => Promise<HttpResponse>): Promise<HttpResponse> {
    const res = await run();
    if (!isChallenge(res) || !options.auth) return res;
    return (await answerChallenge(options.auth, res, options.url, options.outbound)) ? run() : res;
  }

  async function fail(res: HttpResponse): Promise<WireFault> {
    return httpStatusFault(res, await readFaultBody(res));
  }

  return {
    get endpoint() {
      return endpoint;
    },
    async connect(signal, timeoutMs) {
      const onAbort = () => life.abort();
      signal.addEventListener("abort", onAbort, { once: true });
      // The deadline covers the GET's response headers too: a server that accepts the connection and
      // never answers must not hold connect() forever.
      let timedOut = false;
      const deadline = setTimeout(() => {
        timedOut = true;
        life.abort();
      }, timeoutMs);
      try {
        const res = await withChallenge(async () =>
          httpExchange({
            method: "GET",
            url: options.url,
            headers: { ...(await authHeaders("GET")), accept: "text/event-stream" },
            // A dedicated socket: the stream stays open for the session and would be lost to the pool.
            agent: false,
            signal: life.signal,
            redirect: options.redirect,
            outbound: options.outbound,
          }),
        );
        if (res.status < 200 || res.status >= 300) throw new WireFaultError(await fail(res));
        if (!isSse(res)) {
          res.body.resume();
          throw new WireFaultError({ type: "http", status: res.status, message: "the SSE endpoint did not answer with text/event-stream" });
        }
        // The endpoint may be relative (often a path with a session query); it resolves against the
        // stream's final URL, after redirects, as a browser's EventSource would.
        const streamUrl = res.url;
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => {
            reject(new WireFaultError({ type: "timeout", phase: "connect", message: `no endpoint event within ${timeoutMs} ms` }));
            res.body.destroy();
          }, timeoutMs);
          const parser = createSseParser((event) => {
            if (event.event === "endpoint") {
              // Only the first one counts: a later event must not move where our POSTs go mid-session.
              if (endpoint !== undefined) return;
              const found = endpointFrom(event.data, streamUrl, options.url.origin);
              clearTimeout(timer);
              if (found instanceof URL) {
                endpoint = found;
                resolve();
              } else {
                reject(new WireFaultError(found));
                res.body.destroy();
              }
              return;
            }
            if (event.event !== "message") return;
            let value: unknown;
            try {
              value = JSON.parse(event.data);
            } catch {
              options.onNoise?.("SSE event data is not JSON");
              return;
            }
            options.receive(value);
          });
          res.body.setEncoding("utf8");
          res.body.on("data", (chunk: string) => parser.push(chunk));
          // "close" follows every error: the fault is reported once, there.
          res.body.on("error", () => {});
          res.body.once("close", () => {
            clearTimeout(timer);
            const fault: WireFault = { type: "transport", code: "ECONNRESET", message: "the SSE stream closed" };
            if (endpoint === undefined) reject(new WireFaultError(fault));
            if (!closed) options.onClose(fault);
          });
        });
      } catch (error) {
        if (timedOut) throw new WireFaultError({ type: "timeout", phase: "connect", message: `no endpoint event within ${timeoutMs} ms` });
        throw error;
      } finally {
        clearTimeout(deadline);
        signal.removeEventListener("abort", onAbort);
      }
    },
    async send(message) {
      if (closed || endpoint === undefined)
        throw new WireFaultError({ type: "transport", code: "ECLOSED", message: "the SSE stream is not open" });
      // One controller per POST: sharing the life signal would pile listeners onto it under load.
      const controller = new AbortController();
      posts.add(controller);
      try {
        const target = endpoint;
        const res = await withChallenge(async () =>
          httpExchange({
            method: "POST",
            url: target,
            headers: { ...(await authHeaders("POST")), "content-type": "application/json" },
            body: JSON.stringify(message),
            agent: options.agent,
            signal: controller.signal,
            redirect: options.redirect,
            outbound: options.outbound,
          }),
        );
        if (res.status < 200 || res.status >= 300) throw new WireFaultError(await fail(res));
        // 202 Accepted, usually: the answer comes as a message event on the stream, not in this body.
        res.body.resume();
      } finally {
        posts.delete(controller);
      }
    },
    async close() {
      // No DELETE in this era: closing the stream ends the session.
      closed = true;
      life.abort();
      for (const controller of posts) controller.abort();
    },
  };
}
