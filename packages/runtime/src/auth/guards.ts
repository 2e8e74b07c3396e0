/**
 * Safety rails for OAuth: every HTTP exchange has a deadline, the interactive step has a deadline,
 * and authorization-server endpoints must use HTTPS unless they are on the loopback interface.
 */
import type { AuthorizationServerMetadata, FetchLike } from "./discovery.js";
import { OAuthError } from "./oauth-util.js";

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
