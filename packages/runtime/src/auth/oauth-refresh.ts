/**
 * One refresh of a stored grant, as the provider runs it: under the store's cross-process lock when
 * it has one (`TokenStore.refreshExclusive`), so that a rotated refresh token is spent exactly once
 * however many workers saw the expiry; with the AS's refusals told apart, because each calls for
 * its own recovery: `invalid_grant` means the user must authorize again, `invalid_client` after a
 * dynamic registration means the AS forgot the client, which one new registration repairs.
 */
import { WireFaultError } from "../transport/http-exchange.js";
import type { AuthorizationServerMetadata, FetchLike } from "./discovery.js";
import { clientFor, replaceClient, type TokenRequest } from "./oauth-grants.js";
import type { OAuthProviderOptions } from "./oauth-options.js";
import { OAuthError } from "./oauth-util.js";
import type { OAuthTokens, TokenStore } from "./token-store.js";

/** How a refresh ended: new (or another process's fresh) tokens, a dead grant, or a failure to fall back from. */
export type RefreshOutcome = { readonly tokens: OAuthTokens } | { readonly revoked: true } | { readonly failed: true };

/** What one refresh needs from the provider. */
export interface RefreshInput {
  readonly options: OAuthProviderOptions;
  readonly store: TokenStore;
  readonly fetchFn: FetchLike;
  /** The store key (the MCP server URL) and the RFC 8707 resource to ask for. */
  readonly storeKey: string;
  readonly resource: string;
  /** The tokens this process holds. */
  readonly tokens: OAuthTokens;
  /** The AS metadata for an issuer (rediscovered, else cached), undefined when unknown. */
  metadata(issuer: string): Promise<AuthorizationServerMetadata | undefined>;
  /** The issuer's metadata fetched again, bypassing the cache (undefined when that fails). */
  rediscover?(issuer: string): Promise<AuthorizationServerMetadata | undefined>;
  requestTo(as: AuthorizationServerMetadata): TokenRequest;
}

/** What every refresh of one provider shares (the rest is per refresh). */
export type RefreshSetup = Omit<RefreshInput, "storeKey" | "resource" | "tokens">;

/**
 * The failure of a call whose grant the AS refused, when the store is shared by many users' workers:
 * the user is not at this process's console to consent, and the application learns from the store
 * (and `onError`) that this user, and only this user, must authorize again. Names the server, never a token.
 */
export function reauthorizationRequired(resource: string): OAuthError {
  return new OAuthError(
    "reauthorization_required",
    `the authorization server refused to refresh the grant for ${resource} (invalid_grant): the user must authorize again`,
  );
}

/** What a call whose user must consent again fails with (`auth_required` / `finish`). */
const REAUTHORIZE = "the authorization server refused to refresh this user's grant (invalid_grant): the user must authorize again";

/**
 * The call's own fault for a grant the AS refused: an HTTP 401 that says why (not a bare "HTTP
 * 401"), without the resource URL (a URL may carry a query secret; the failure names the server).
 */
export function reauthorizationFault(status: number): WireFaultError {
  return new WireFaultError({ type: "http", status, message: REAUTHORIZE });
}

/** True for the fault `reauthorizationFault` builds: it passes through the challenge handler as it is. */
export function isReauthorizationFault(error: unknown): boolean {
  return error instanceof WireFaultError && error.message === REAUTHORIZE;
}

function isRefusal(error: unknown, code: string): boolean {
  return error instanceof OAuthError && error.serverError === code;
}

/**
 * Sends the refresh grant for `tokens`. An `invalid_client` for a dynamically registered client
 * means the AS forgot it: under the store's per-issuer lock, the client is replaced once (unless
 * another worker replaced it already) by the client ID metadata document when configured and now
 * supported, else by one new registration, and the refresh is retried once. The users' stored
 * grants are left as they are.
 */
async function sendRefresh(input: RefreshInput, tokens: OAuthTokens): Promise<OAuthTokens> {
  const { options, store, fetchFn } = input;
  const as = await input.metadata(tokens.issuer);
  if (!as) throw new OAuthError("discovery_failed", `no metadata for authorization server ${tokens.issuer}`);
  const fields = { grant_type: "refresh_token", refresh_token: tokens.refreshToken, resource: input.resource };
  const client = await clientFor(options, store, fetchFn, as, tokens.scope);
  try {
    return await input.requestTo(as)(client, fields);
  } catch (error) {
    if (!isRefusal(error, "invalid_client") || client.source !== "dynamic") throw error;
    // An AS that was reset may have changed its metadata too (CIMD switched on): asked again.
    const now = (await input.rediscover?.(as.issuer)) ?? as;
    const again = await replaceClient(options, store, fetchFn, now, tokens.scope, client);
    return await input.requestTo(now)(again, fields);
  }
}

/** The refresh itself: `{ revoked }` on invalid_grant, a throw for anything else. */
async function attempt(input: RefreshInput, tokens: OAuthTokens): Promise<{ tokens: OAuthTokens } | { revoked: true }> {
  try {
    return { tokens: await sendRefresh(input, tokens) };
  } catch (error) {
    if (isRefusal(error, "invalid_grant")) return { revoked: true };
    throw error;
  }
}

/**
 * Refreshes `input.tokens`. With a shared store, under its lock: when the newest stored tokens are
 * not the ones this process holds, another worker refreshed while this one waited, and its tokens
 * are used without sending anything. A dead grant is removed from the store (a shared store marks
 * it as needing re-authorization). Never throws: a failure is `{ failed }` and the caller falls back.
 */
export async function refreshStoredGrant(input: RefreshInput): Promise<RefreshOutcome> {
  const { store, storeKey, tokens } = input;
  try {
    if (!store.refreshExclusive) {
      const out = await attempt(input, tokens);
      await store.saveTokens(storeKey, "tokens" in out ? out.tokens : undefined);
      return out;
    }
    let revoked = false;
    const stored = await store.refreshExclusive(storeKey, async (latest) => {
      // No row: another worker found the grant dead (or the user signed out) while this one waited.
      if (!latest) {
        revoked = true;
        return undefined;
      }
      // Not yet expired is enough here (not the refresh skew): with tokens living shorter than the
      // skew, a skew test would have every waiting worker refresh again.
      const live = latest.expiresAt === undefined || latest.expiresAt > Date.now();
      if (latest.accessToken !== tokens.accessToken && live) return latest;
      if (!latest.refreshToken) throw new OAuthError("token_request_failed", "the stored grant has no refresh token");
      const out = await attempt(input, latest);
      if ("tokens" in out) return out.tokens;
      revoked = true;
      return undefined;
    });
    return revoked || !stored ? { revoked: true } : { tokens: stored };
  } catch {
    // A refused or failed refresh is not an error to report here: the caller falls back to a full authorization.
    return { failed: true };
  }
}
