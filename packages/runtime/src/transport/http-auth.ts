/**
 * The HTTP transports' half of the `AuthProvider` seam: the provider's credentials go into each
 * request's headers, and a 401/403 answer goes back to the provider, which decides whether one
 * retry with fresh credentials is worth it. Both HTTP transports (streamable and legacy SSE) use it.
 */
import type http from "node:http";
import type { AuthProvider } from "./auth-provider.js";
import { AbortHandle, type HttpEndpointOptions, type HttpResponse, httpExchange } from "./http-exchange.js";
import type { OutboundGuard } from "./outbound.js";

/** Adds the provider's headers for one request to `headers`, in place and lower-cased (the exchange's header names are). */
export async function addCredentials(headers: { [name: string]: string }, auth: AuthProvider, url: URL, method: string): Promise<void> {
  for (const [k, v] of Object.entries(await auth.authorize({ url: url.href, method }))) headers[k.toLowerCase()] = v;
}

/** True when the status is one the auth provider may answer (401: no or bad token; 403: step-up, insufficient scope). */
export function isChallenge(res: HttpResponse): boolean {
  return res.status === 401 || res.status === 403;
}

/**
 * Hands a 401/403 response to the provider; resolves true when the request should be sent again.
 * The body is drained when it will not be read: on a retry, and when the provider rejects (its
 * fault, e.g. an outbound-policy refusal of the token request, replaces this response). A refused
 * challenge (false) leaves the body unread, so the caller can report it.
 */
export async function answerChallenge(
  auth: AuthProvider,
  res: HttpResponse,
  url: URL,
  outbound: OutboundGuard | undefined,
  dpopNonce?: string,
): Promise<boolean> {
  const retry = await auth
    .handleChallenge({
      url: url.href,
      status: res.status,
      wwwAuthenticate: (res.headers["www-authenticate"] as string | undefined) ?? null,
      ...(dpopNonce ? { dpopNonce } : {}),
      ...(outbound ? { outbound } : {}),
    })
    .catch((error: unknown) => {
      res.body.resume();
      throw error;
    });
  if (retry) res.body.resume();
  return retry;
}

/**
 * One exchange with the endpoint that answers auth challenges: at most one retry per distinct
 * challenge (a 401, a 403 step-up, and each again with a DPoP nonce, RFC 9449 §9), so a provider
 * that keeps saying "retry" cannot loop. `headers` is called per attempt: a retry needs fresh
 * credentials, and the exchange adds `content-length` to the object in place.
 */
export async function exchangeAuthorized(
  endpoint: HttpEndpointOptions,
  method: "GET" | "POST" | "DELETE",
  headers: () => Promise<{ [name: string]: string }>,
  body: string | undefined,
  signal: AbortSignal | AbortHandle,
  agent: http.Agent | false,
): Promise<HttpResponse> {
  const challenged = new Set<string>();
  for (;;) {
    const res = await httpExchange({
      method,
      url: endpoint.url,
      headers: await headers(),
      ...(body === undefined ? {} : { body }),
      agent,
      ...(signal instanceof AbortHandle ? { abort: signal } : { signal }),
      redirect: endpoint.redirect,
      outbound: endpoint.outbound,
    });
    if (!isChallenge(res) || !endpoint.auth) return res;
    const dpopNonce = res.headers["dpop-nonce"] as string | undefined;
    const challenge = `${res.status}${dpopNonce ? ":dpop-nonce" : ""}`;
    if (challenged.has(challenge)) return res;
    challenged.add(challenge);
    if (!(await answerChallenge(endpoint.auth, res, endpoint.url, endpoint.outbound, dpopNonce))) return res;
  }
}
