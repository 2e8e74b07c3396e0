/**
 * `createOAuthProvider`: OAuth 2.1 for MCP over HTTP as an `AuthProvider`. On a 401 it discovers
 * the protected resource and its authorization server, registers (CIMD, pre-registered or dynamic),
 * runs authorization code + PKCE S256 (or client_credentials), checks `iss` (RFC 9207), and stores
 * tokens; on a 403 `insufficient_scope` it steps up with the union of scopes, a bounded number of times.
 */

import type { AuthChallenge } from "../transport/auth-provider.js";
import { WireFaultError } from "../transport/http-exchange.js";
import { createOutboundGuard, type OutboundGuard } from "../transport/outbound.js";
import { type AuthorizationServerMetadata, discoverProtectedResource, type FetchLike } from "./discovery.js";
import { createDpopProof } from "./dpop.js";
import { guardStore } from "./guarded-store.js";
import { fetchWithDeadline, fetchWithinPolicy } from "./guards.js";
import { createChallengeBudget } from "./oauth-budget.js";
import { requestToken, type TokenDpop } from "./oauth-flows.js";
import { authorizationCodeGrant, chooseScopes, clientFor, machineGrant, type TokenRequest } from "./oauth-grants.js";
import { checkOAuthOptions, type OAuthProvider, type OAuthProviderOptions } from "./oauth-options.js";
import {
  isReauthorizationFault,
  type RefreshSetup,
  reauthorizationFault,
  reauthorizationRequired,
  refreshStoredGrant,
} from "./oauth-refresh.js";
import { type AuthServerAccess, createAuthServerAccess } from "./oauth-server-access.js";
import { bearerChallenge, OAuthError } from "./oauth-util.js";
import { createMemoryTokenStore, type OAuthTokens, type TokenStore } from "./token-store.js";

export type { AssertionContext, AuthorizationResponse, OAuthProvider, OAuthProviderOptions } from "./oauth-options.js";

/** The provider's fetch: timed, and checked by an outbound policy (its own, or the HTTP caller's it adopts). */
function createOAuthFetch(options: OAuthProviderOptions): {
  readonly fetchFn: FetchLike;
  adopt(outbound: OutboundGuard | undefined): void;
} {
  const insecure = options.allowInsecureHttp ? { allowInsecureHttp: true } : {};
  const ownGuard = options.outbound ? createOutboundGuard({ ...insecure, ...options.outbound }) : undefined;
  let guard: OutboundGuard = ownGuard ?? createOutboundGuard(insecure);
  const timed = fetchWithDeadline(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), options.requestTimeoutMs ?? 30_000);
  return {
    // Names are resolved and checked only for the global fetch: a custom fetch does its own resolution.
    fetchFn: fetchWithinPolicy(timed, () => guard, options.fetch === undefined),
    adopt(outbound) {
      // The HTTP caller's outbound policy governs the OAuth requests too, unless the provider has its own.
      if (!ownGuard && outbound) guard = outbound;
    },
  };
}

/** The token request to an authorization server; the signing and DPoP keys are made on first use, after the grant's own checks. */
function tokenRequester(fetchFn: FetchLike, servers: AuthServerAccess): (as: AuthorizationServerMetadata) => TokenRequest {
  return (as) => async (client, fields) =>
    requestToken(fetchFn, as, client, fields, await servers.assertionKey(), await servers.dpopFor(as));
}

/** One run at a time: concurrent callers share it (a rotated refresh token is single-use). */
function singleFlight<T>(run: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  };
}

/** What every refresh of one provider shares. */
function refreshSetupFor(
  options: OAuthProviderOptions,
  store: TokenStore,
  fetchFn: FetchLike,
  servers: AuthServerAccess,
  requestTo: (as: AuthorizationServerMetadata) => TokenRequest,
): RefreshSetup {
  return {
    options,
    store,
    fetchFn,
    // The metadata cached at authorization still serves when rediscovery fails (a flaky well-known URL).
    metadata: (issuer) => servers.metadata(issuer, false).catch(() => servers.cached(issuer)),
    rediscover: (issuer) => servers.metadata(issuer, false, true).catch(() => undefined),
    requestTo,
  };
}

/** Any error as the provider reports it (`lastError`, `onError`). */
function asOAuthError(error: unknown): OAuthError {
  return error instanceof OAuthError ? error : new OAuthError("authorization_failed", (error as Error)?.message ?? String(error));
}

/** Creates an OAuth 2.1 provider for one MCP server. */
export function createOAuthProvider(options: OAuthProviderOptions): OAuthProvider {
  const net = createOAuthFetch(options);
  const fetchFn = net.fetchFn;
  const store = guardStore(options.store ?? createMemoryTokenStore(), options.onError);
  const discoveryHeaders: { [key: string]: string } = options.protocolVersion ? { "mcp-protocol-version": options.protocolVersion } : {};
  checkOAuthOptions(options);
  const servers = createAuthServerAccess(options, fetchFn, discoveryHeaders);
  const budget = createChallengeBudget(options.maxAttempts ?? 3);

  let serverUrl = options.serverUrl;
  let current: OAuthTokens | undefined;
  let loaded = false;
  let lastError: OAuthError | undefined;
  let running: Promise<boolean> | undefined;
  let usesOfCurrent = 0;
  let requestedScope: string[] = [];
  let lastResource: string | undefined;
  let rsNonce: string | undefined;
  let grantRevoked = false; // the AS refused a refresh with invalid_grant: the user must authorize again

  const resourceKey = () => serverUrl ?? "";
  const load = singleFlight(async (): Promise<void> => {
    if (loaded || !serverUrl) return;
    current = await store.loadTokens(resourceKey());
    loaded = true; // after the read (shared by concurrent calls): a store that failed is asked again next time
    // A DPoP-bound token is useless without the key of the provider that obtained it.
    if (current?.tokenType === "DPoP" && !servers.dpop) current = undefined;
  });
  async function save(tokens: OAuthTokens | undefined): Promise<void> {
    current = tokens;
    usesOfCurrent = 0;
    if (serverUrl) await store.saveTokens(resourceKey(), tokens);
  }
  function fail(error: unknown): false {
    lastError = asOAuthError(error);
    options.onError?.(lastError);
    return false;
  }
  const tokenRequestTo = tokenRequester(fetchFn, servers);

  /** One refresh at a time: concurrent requests share it (a rotated refresh token is single-use). */
  const refresh = singleFlight(() => refreshOnce());

  const refreshSetup = refreshSetupFor(options, store, fetchFn, servers, tokenRequestTo);
  async function refreshOnce(): Promise<boolean> {
    if (!current?.refreshToken) return false;
    const outcome = await refreshStoredGrant({
      ...refreshSetup,
      storeKey: resourceKey(),
      resource: lastResource ?? resourceKey(),
      tokens: current,
    });
    if ("failed" in outcome) return false;
    // The store holds the outcome already (under its lock, for a shared store).
    current = "tokens" in outcome ? outcome.tokens : undefined;
    usesOfCurrent = 0;
    grantRevoked = "revoked" in outcome;
    return !grantRevoked;
  }

  /** Discovery (RFC 9728 resource metadata, then the AS metadata), scope choice, then the configured grant. */
  async function authorizeFully(challenge: AuthChallenge, stepUp: boolean): Promise<boolean> {
    const bearer = bearerChallenge(challenge.wwwAuthenticate);
    const prm = await discoverProtectedResource(fetchFn, resourceKey(), bearer?.params.resource_metadata, discoveryHeaders);
    // No resource metadata: a 2025-03-26 server, whose own origin is its authorization server.
    const issuer = prm ? (prm.authorizationServers[0] as string) : new URL(resourceKey()).origin;
    const as = await servers.metadata(issuer, prm === undefined);
    if (current && current.issuer !== as.issuer) await save(undefined); // AS changed: old tokens are void
    const resource = prm?.resource ?? resourceKey();
    lastResource = resource;
    requestedScope = chooseScopes(options, bearer?.params.scope, prm, as, stepUp ? requestedScope : undefined);
    const scope = requestedScope.length > 0 ? requestedScope.join(" ") : undefined;
    const input = { as, scope, resource, requestToken: tokenRequestTo(as) };
    const grant = options.grant ?? "authorization_code";
    if (grant === "client_credentials" || grant === "jwt_bearer") await save(await machineGrant(options, input));
    else await save(await authorizationCodeGrant(options, input, (s) => clientFor(options, store, fetchFn, as, s)));
    return true;
  }

  async function handle(challenge: AuthChallenge): Promise<boolean> {
    serverUrl ??= challenge.url;
    net.adopt(challenge.outbound);
    await load();
    const bearer = bearerChallenge(challenge.wwwAuthenticate);
    if (bearer?.params.error === "use_dpop_nonce" && challenge.dpopNonce && current?.tokenType === "DPoP") {
      // RFC 9449 §9: the resource server wants a fresh nonce in the proof; retry with it, no new flow.
      const fresh = challenge.dpopNonce !== rsNonce;
      rsNonce = challenge.dpopNonce;
      return fresh;
    }
    const insufficientScope = challenge.status === 403 && bearer?.params.error === "insufficient_scope";
    // Any other 403 is a refusal no new token can fix.
    if (challenge.status !== 401 && !insufficientScope) return false;
    const refused = budget.admit(insufficientScope, bearer?.params.scope);
    if (refused) return fail(refused);
    try {
      // A 401 for a token that worked before means it expired or was revoked: a refresh may do.
      if (challenge.status === 401 && current?.refreshToken && usesOfCurrent > 0 && (await refresh())) return true;
      if (grantRevoked && store.refreshExclusive) {
        grantRevoked = false;
        loaded = false; // the next call reads the store again: the user may have authorized meanwhile
        fail(reauthorizationRequired(resourceKey()));
        throw reauthorizationFault(challenge.status);
      }
      return await authorizeFully(challenge, insufficientScope);
    } catch (error) {
      if (isReauthorizationFault(error)) throw error;
      fail(error);
      // A refusal by the outbound policy is the request's fault, named as such, not a 401.
      if (error instanceof OAuthError && error.code === "outbound_refused") {
        throw new WireFaultError({ type: "transport", code: "EPOLICY", message: error.message });
      }
      return false;
    }
  }

  return {
    get lastError() {
      return lastError;
    },
    async authorize(request) {
      await load();
      if (!current) return {};
      const skew = (options.refreshSkewSeconds ?? 60) * 1000;
      // Refresh ahead of expiry; an expired token that cannot be refreshed is not sent (the 401 starts a flow).
      if (current.expiresAt !== undefined && current.expiresAt - skew <= Date.now() && current.refreshToken) {
        if (!(await refresh()) && (current?.expiresAt ?? 0) <= Date.now()) return {};
      }
      if (!current) return {};
      usesOfCurrent++;
      // A token handed out a second time means the first use was not challenged: the flow worked.
      if (usesOfCurrent > 1) budget.succeeded();
      return credentialHeaders(current, servers.dpop, request, rsNonce);
    },
    handleChallenge(challenge) {
      // Concurrent 401s share one flow: the user sees one consent, not one per in-flight request.
      running ??= handle(challenge).finally(() => {
        running = undefined;
      });
      return running;
    },
    async tokens() {
      await load();
      return current;
    },
    async signOut() {
      await save(undefined);
    },
  };
}

/** The headers that present `tokens` on one request: Bearer, or DPoP with a fresh proof (RFC 9449 §4: bound to method, URL and token). */
async function credentialHeaders(
  tokens: OAuthTokens,
  dpop: TokenDpop | undefined,
  request: { readonly url: string; readonly method: string },
  nonce: string | undefined,
): Promise<{ [key: string]: string }> {
  if (tokens.tokenType !== "DPoP" || !dpop) return { authorization: `Bearer ${tokens.accessToken}` };
  const proof = await createDpopProof(dpop.key, {
    method: request.method,
    url: request.url,
    accessToken: tokens.accessToken,
    ...(nonce ? { nonce } : {}),
  });
  return { authorization: `DPoP ${tokens.accessToken}`, dpop: proof };
}
