/**
 * Safety rails for OAuth: every HTTP exchange has a deadline and passes the caller's outbound policy
 * (at every redirect hop), the interactive step has a deadline, and authorization-server endpoints
 * must use HTTPS unless they are on the loopback interface.
 */
import { isIP } from "node:net";
import type { OutboundGuard } from "../transport/outbound.js";
import type { AuthorizationServerMetadata, FetchLike } from "./discovery.js";
import { OAuthError } from "./oauth-util.js";

/** Redirect hops an OAuth request may follow (each one checked against the policy). */
const MAX_AUTH_REDIRECTS = 5;

/** The policy's verdict on `url`: refused with an `outbound_refused` OAuthError naming the host and the rule. */
async function admit(guard: OutboundGuard, url: URL, resolveNames: boolean, hop: number): Promise<void> {
  const what = hop === 0 ? "OAuth request" : "OAuth redirect";
  const refused = guard.check(url);
  if (refused) throw new OAuthError("outbound_refused", `${what} refused by the outbound policy: ${refused.message}`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!resolveNames || isIP(host) !== 0) return;
  // fetch resolves the name again; this check refuses names that point into refused ranges
  // (a rebinding DNS server between the two lookups is not covered: the global fetch takes no lookup).
  const error = await new Promise<(Error & { code?: string }) | null>((resolve) =>
    guard.lookup(host, { all: true }, (e: unknown) => resolve(e as (Error & { code?: string }) | null)),
  );
  if (error?.code === "EPOLICY") throw new OAuthError("outbound_refused", `${what} refused by the outbound policy: ${error.message}`);
}

/**
 * Wraps `fetchFn` so every request and every redirect hop passes `guard()` (read per request: the
 * caller may hand its policy over later). Redirects are followed by hand, at most 5, the method
 * and body kept for 307/308 and `authorization` dropped on a new origin, as fetch itself does.
 * With `resolveNames`, host names are resolved first and refused when they point into refused ranges.
 */
export function fetchWithinPolicy(fetchFn: FetchLike, guard: () => OutboundGuard, resolveNames: boolean): FetchLike {
  return async (input, init = {}) => {
    let url = new URL(input);
    const policy = guard();
    await admit(policy, url, resolveNames, 0);
    if (init.redirect === "error") return fetchFn(input, init);
    let request: RequestInit = { ...init, redirect: "manual" };
    for (let hop = 0; ; hop++) {
      const response = await fetchFn(url.href, request);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || response.status === 304 || location === null) return response;
      await response.body?.cancel().catch(() => {});
      if (hop >= MAX_AUTH_REDIRECTS) throw new OAuthError("discovery_failed", `${url.origin}: more than ${MAX_AUTH_REDIRECTS} redirects`);
      const next = new URL(location, url);
      await admit(policy, next, resolveNames, hop + 1);
      const headers = new Headers(request.headers);
      if (next.origin !== url.origin) headers.delete("authorization");
      const toGet = response.status === 303 || ((response.status === 301 || response.status === 302) && request.method === "POST");
      if (toGet) {
        headers.delete("content-type");
        request = { ...request, method: "GET", body: null, headers };
      } else request = { ...request, headers };
      url = next;
    }
  };
}

/** Wraps `fetchFn` so each request is aborted after `ms` (the caller's own signal still applies). */
export function fetchWithDeadline(fetchFn: FetchLike, ms: number): FetchLike {
  return (input, init = {}) => {
    const deadline = AbortSignal.timeout(ms);
    // AbortSignal.any needs Node >= 20.3; without it the deadline alone applies.
    const signal = init.signal && typeof AbortSignal.any === "function" ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetchFn(input, { ...init, signal }).catch((error: unknown) => {
      if (deadline.aborted) throw new OAuthError("discovery_failed", `no answer from ${new URL(input).origin} within ${ms} ms`);
      throw error;
    });
  };
}

/** Resolves like `promise`, or rejects with `message` after `ms`. The timer never keeps the process alive. */
export function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OAuthError("authorization_failed", message)), ms);
    (timer as { unref?: () => void }).unref?.();
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** True for http(s) URLs on localhost, 127.0.0.0/8 or ::1. */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Refuses plain-HTTP authorization-server endpoints off the loopback interface (tokens would travel in clear). */
export function requireSecureEndpoints(as: AuthorizationServerMetadata): void {
  for (const [name, url] of [
    ["authorization_endpoint", as.authorizationEndpoint],
    ["token_endpoint", as.tokenEndpoint],
    ["registration_endpoint", as.registrationEndpoint],
  ] as const) {
    if (url === undefined) continue;
    const parsed = new URL(url);
    if (parsed.protocol === "https:" || (parsed.protocol === "http:" && isLoopback(url))) continue;
    throw new OAuthError("discovery_failed", `${name} ${parsed.origin} must use https (plain http is allowed only on loopback)`);
  }
}
