/**
 * `createOAuthProvider`: OAuth 2.1 for MCP over HTTP as an `AuthProvider`. On a 401 it discovers
 * the protected resource and its authorization server, registers (CIMD, pre-registered or dynamic),
 * runs authorization code + PKCE S256 (or client_credentials), checks `iss` (RFC 9207), and stores
 * tokens; on a 403 `insufficient_scope` it steps up with the union of scopes, a bounded number of times.
 */

import type { AuthChallenge, AuthProvider } from "../transport/auth-provider.js";
import { WireFaultError } from "../transport/http-exchange.js";
import { createOutboundGuard, type OutboundGuard, type OutboundPolicy } from "../transport/outbound.js";
import {
  type AuthorizationServerMetadata,
  discoverAuthorizationServer,
  discoverProtectedResource,
  type FetchLike,
  type ProtectedResourceMetadata,
} from "./discovery.js";
import { createDpopKey, createDpopProof } from "./dpop.js";
import { fetchWithDeadline, fetchWithinPolicy, requireSecureEndpoints, withDeadline } from "./guards.js";
import { importPrivateKey, isJwtAlgorithm } from "./jwt.js";
import { type AssertionKey, type ClientMetadata, registerClient, requestToken, type TokenDpop } from "./oauth-flows.js";
import { bearerChallenge, createPkce, OAuthError, randomString, scopeList } from "./oauth-util.js";
import { JWT_BEARER_GRANT } from "./token-exchange.js";
import { createMemoryTokenStore, type OAuthClientInfo, type OAuthTokens, type TokenStore } from "./token-store.js";

/** What the interactive step returns: the parameters of the redirect back to `redirectUri`. */
export interface AuthorizationResponse {
  readonly code: string;
  readonly state?: string;
  readonly iss?: string;
}

/** What a jwt_bearer assertion function is told. */
export interface AssertionContext {
  /** The authorization server's issuer (the assertion's audience). */
  readonly issuer: string;
  readonly resource: string;
  readonly scope?: string;
}

/** Options for `createOAuthProvider`. */
export interface OAuthProviderOptions {
  /** The MCP server URL (the protected resource). Defaults to the URL of the first challenged request. */
  readonly serverUrl?: string;
  /**
   * `authorization_code` (default, interactive), `client_credentials` (machine to machine), or
   * `jwt_bearer` (RFC 7523: a workload JWT, or an ID-JAG from `requestIdJag` for SEP-990).
   */
  readonly grant?: "authorization_code" | "client_credentials" | "jwt_bearer";
  /** jwt_bearer: the assertion, or a function that obtains one for the discovered AS and resource. */
  readonly assertion?: string | ((context: AssertionContext) => string | Promise<string>);
  /** Opens `url` for the user and resolves with the redirect's `code`, `state` and `iss`. */
  readonly authorizationHandler?: (url: string) => Promise<AuthorizationResponse>;
  readonly redirectUri?: string;
  readonly clientMetadata?: Omit<ClientMetadata, "redirectUris">;
  /** A Client ID Metadata Document URL, used as client_id when the AS supports CIMD. */
  readonly clientMetadataUrl?: string;
  /** A pre-registered client (used before CIMD and dynamic registration). */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** private_key_jwt: a PKCS#8 PEM key and its algorithm (default ES256). */
  readonly privateKeyPem?: string;
  readonly signingAlgorithm?: string;
  /** Explicit token endpoint auth method for the pre-registered client. */
  readonly tokenEndpointAuthMethod?: string;
  /** Scope to ask for when neither the challenge nor the metadata names one. */
  readonly scope?: string;
  /** Add `offline_access` when the AS lists it (SEP-2207). Default true. */
  readonly requestOfflineAccess?: boolean;
  readonly store?: TokenStore;
  readonly fetch?: FetchLike;
  /** Sent as MCP-Protocol-Version during discovery. */
  readonly protocolVersion?: string;
  /** Authorization attempts in a row without a successful use of the token. Default 3. */
  readonly maxAttempts?: number;
  /** Seconds before expiry at which a token is refreshed. Default 60. */
  readonly refreshSkewSeconds?: number;
  /**
   * DPoP-bound tokens (RFC 9449): undefined = when the AS advertises ES256 in
   * dpop_signing_alg_values_supported; false = never (Bearer only).
   */
  readonly dpop?: boolean;
  /** Deadline for each HTTP exchange with the resource or authorization server. Default 30 s. */
  readonly requestTimeoutMs?: number;
  /** Deadline for `authorizationHandler` (the user's part). Default 5 min. */
  readonly authorizationTimeoutMs?: number;
  /** Allow plain-http authorization servers off loopback (tests only). Default false. */
  readonly allowInsecureHttp?: boolean;
  /**
   * Which hosts and addresses the OAuth requests (metadata, registration, token) may reach, at every
   * redirect hop. Default: the policy of the HTTP caller that hands over the challenge, else the
   * default policy (https or loopback only, no private addresses).
   */
  readonly outbound?: OutboundPolicy;
  /** Told about every failed OAuth step (message has no secrets). */
  readonly onError?: (error: OAuthError) => void;
}

/** An OAuth `AuthProvider`, plus a view of its state. */
export interface OAuthProvider extends AuthProvider {
  /** The last OAuth failure, if any. */
  readonly lastError: OAuthError | undefined;
  /** Current tokens (for inspection; never log them). */
  tokens(): Promise<OAuthTokens | undefined>;
  /** Forgets tokens for this resource. */
  signOut(): Promise<void>;
}

/** Creates an OAuth 2.1 provider for one MCP server. */
export function createOAuthProvider(options: OAuthProviderOptions): OAuthProvider {
  const insecure = options.allowInsecureHttp ? { allowInsecureHttp: true } : {};
  const ownGuard = options.outbound ? createOutboundGuard({ ...insecure, ...options.outbound }) : undefined;
  let guard: OutboundGuard = ownGuard ?? createOutboundGuard(insecure);
  const timed = fetchWithDeadline(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), options.requestTimeoutMs ?? 30_000);
  // Names are resolved and checked only for the global fetch: a custom fetch does its own resolution.
  const fetchFn = fetchWithinPolicy(timed, () => guard, options.fetch === undefined);
  const store = options.store ?? createMemoryTokenStore();
  const grant = options.grant ?? "authorization_code";
  const maxAttempts = options.maxAttempts ?? 3;
  const discoveryHeaders: { [key: string]: string } = options.protocolVersion ? { "mcp-protocol-version": options.protocolVersion } : {};
  if (grant === "authorization_code" && !options.authorizationHandler) {
    throw new OAuthError("bad_configuration", "createOAuthProvider: authorizationHandler is required for the authorization_code grant");
  }
  if ((grant === "client_credentials" || grant === "jwt_bearer") && !options.clientId) {
    throw new OAuthError("bad_configuration", `createOAuthProvider: clientId is required for the ${grant} grant`);
  }
  if (grant === "jwt_bearer" && options.assertion === undefined) {
    throw new OAuthError("bad_configuration", "createOAuthProvider: assertion is required for the jwt_bearer grant");
  }

  let serverUrl = options.serverUrl;
  let current: OAuthTokens | undefined;
  let loaded = false;
  let lastError: OAuthError | undefined;
  let running: Promise<boolean> | undefined;
  let attemptsInRow = 0;
  let usesOfCurrent = 0;
  let requestedScope: string[] = [];
  let lastResource: string | undefined;
  const stepUps = new Map<string, number>();
  const asCache = new Map<string, AuthorizationServerMetadata>();
  let assertionKey: AssertionKey | undefined;
  let tokenDpop: TokenDpop | undefined;
  let rsNonce: string | undefined;

  /** The DPoP state for token requests to `as`, when DPoP is in use for it. */
  async function dpopFor(as: AuthorizationServerMetadata): Promise<TokenDpop | undefined> {
    if (options.dpop === false || !as.dpopSigningAlgValuesSupported?.includes("ES256")) return undefined;
    tokenDpop ??= { key: await createDpopKey(), nonce: undefined };
    return tokenDpop;
  }

  const resourceKey = () => serverUrl ?? "";
  async function load(): Promise<void> {
    if (loaded || !serverUrl) return;
    loaded = true;
    current = await store.loadTokens(resourceKey());
    // A DPoP-bound token is useless without the key of the provider that obtained it.
    if (current?.tokenType === "DPoP" && !tokenDpop) current = undefined;
  }
  async function save(tokens: OAuthTokens | undefined): Promise<void> {
    current = tokens;
    usesOfCurrent = 0;
    if (serverUrl) await store.saveTokens(resourceKey(), tokens);
  }
  function fail(error: unknown): false {
    const e = error instanceof OAuthError ? error : new OAuthError("authorization_failed", (error as Error)?.message ?? String(error));
    lastError = e;
    options.onError?.(e);
    return false;
  }

  async function metadataFor(issuer: string, legacy: boolean): Promise<AuthorizationServerMetadata> {
    const cached = asCache.get(issuer);
    if (cached) return cached;
    const found = await discoverAuthorizationServer(fetchFn, issuer, { allowFallback: legacy, headers: discoveryHeaders });
    if (!options.allowInsecureHttp) requireSecureEndpoints(found);
    asCache.set(issuer, found);
    return found;
  }

  async function clientFor(as: AuthorizationServerMetadata, scope: string | undefined): Promise<OAuthClientInfo> {
    if (options.clientId) {
      return {
        clientId: options.clientId,
        ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
        ...(options.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: options.tokenEndpointAuthMethod } : {}),
        issuer: as.issuer,
        source: "pre-registered",
      };
    }
    if (options.clientMetadataUrl && as.clientIdMetadataDocumentSupported) {
      return { clientId: options.clientMetadataUrl, tokenEndpointAuthMethod: "none", issuer: as.issuer, source: "cimd" };
    }
    const known = await store.loadClient(as.issuer);
    if (known && known.issuer === as.issuer) return known;
    const registered = await registerClient(
      fetchFn,
      as,
      { clientName: options.clientMetadata?.clientName ?? "toolwright", ...options.clientMetadata, redirectUris: [redirectUri()] },
      scope,
    );
    await store.saveClient(as.issuer, registered);
    return registered;
  }

  function redirectUri(): string {
    if (!options.redirectUri) throw new OAuthError("bad_configuration", "redirectUri is required for the authorization_code grant");
    return options.redirectUri;
  }

  function chooseScope(
    challengeScope: string | undefined,
    prm: ProtectedResourceMetadata | undefined,
    as: AuthorizationServerMetadata,
    stepUp: boolean,
  ): string | undefined {
    let scopes =
      challengeScope !== undefined ? scopeList(challengeScope) : prm?.scopesSupported ? [...prm.scopesSupported] : scopeList(options.scope);
    if (stepUp) scopes = [...new Set([...requestedScope, ...scopes])];
    if (
      scopes.length > 0 &&
      options.requestOfflineAccess !== false &&
      grant === "authorization_code" &&
      as.scopesSupported?.includes("offline_access")
    ) {
      if (!scopes.includes("offline_access")) scopes.push("offline_access");
    }
    requestedScope = scopes;
    return scopes.length > 0 ? scopes.join(" ") : undefined;
  }

  /** One refresh at a time: concurrent requests share it (a rotated refresh token is single-use). */
  let refreshing: Promise<boolean> | undefined;
  function refresh(): Promise<boolean> {
    refreshing ??= refreshOnce().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  async function refreshOnce(): Promise<boolean> {
    const tokens = current;
    if (!tokens?.refreshToken) return false;
    try {
      const as = await metadataFor(tokens.issuer, false).catch(() => asCache.get(tokens.issuer));
      if (!as) return false;
      const client = await clientFor(as, tokens.scope);
      const fresh = await requestToken(
        fetchFn,
        as,
        client,
        { grant_type: "refresh_token", refresh_token: tokens.refreshToken, resource: lastResource ?? resourceKey() },
        await keyFor(),
        await dpopFor(as),
      );
      await save(fresh);
      return true;
    } catch {
      return false;
    }
  }

  async function keyFor(): Promise<AssertionKey | undefined> {
    if (!options.privateKeyPem) return undefined;
    if (assertionKey) return assertionKey;
    const alg = options.signingAlgorithm ?? "ES256";
    if (!isJwtAlgorithm(alg)) throw new OAuthError("bad_configuration", `signing algorithm ${alg} is not supported`);
    assertionKey = { key: await importPrivateKey(options.privateKeyPem, alg), alg };
    return assertionKey;
  }

  async function authorizeFully(challenge: AuthChallenge, stepUp: boolean): Promise<boolean> {
    const bearer = bearerChallenge(challenge.wwwAuthenticate);
    const prm = await discoverProtectedResource(fetchFn, resourceKey(), bearer?.params.resource_metadata, discoveryHeaders);
    const issuer = prm ? (prm.authorizationServers[0] as string) : new URL(resourceKey()).origin;
    const as = await metadataFor(issuer, prm === undefined);
    if (current && current.issuer !== as.issuer) await save(undefined); // AS changed: old tokens are void
    const resource = prm?.resource ?? resourceKey();
    lastResource = resource;
    const scope = chooseScope(bearer?.params.scope, prm, as, stepUp);

    if (grant === "client_credentials" || grant === "jwt_bearer") {
      const client: OAuthClientInfo = {
        clientId: options.clientId as string,
        ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
        tokenEndpointAuthMethod:
          options.tokenEndpointAuthMethod ??
          (options.privateKeyPem ? "private_key_jwt" : options.clientSecret ? pickSecretMethod(as) : "none"),
        issuer: as.issuer,
        source: "pre-registered",
      };
      if (grant === "jwt_bearer") {
        const source = options.assertion as NonNullable<OAuthProviderOptions["assertion"]>;
        const assertion = typeof source === "string" ? source : await source({ issuer: as.issuer, resource, ...(scope ? { scope } : {}) });
        await save(
          await requestToken(
            fetchFn,
            as,
            client,
            { grant_type: JWT_BEARER_GRANT, assertion, scope, resource },
            await keyFor(),
            await dpopFor(as),
          ),
        );
        return true;
      }
      await save(
        await requestToken(fetchFn, as, client, { grant_type: "client_credentials", scope, resource }, await keyFor(), await dpopFor(as)),
      );
      return true;
    }

    if (!as.fallback && !as.codeChallengeMethodsSupported?.includes("S256")) {
      throw new OAuthError(
        "pkce_unsupported",
        `authorization server ${as.issuer} does not advertise PKCE S256 (code_challenge_methods_supported)`,
      );
    }
    const client = await clientFor(as, scope);
    const pkce = await createPkce();
    const state = randomString(24);
    const url = new URL(as.authorizationEndpoint);
    const params: [string, string | undefined][] = [
      ["response_type", "code"],
      ["client_id", client.clientId],
      ["redirect_uri", redirectUri()],
      ["code_challenge", pkce.challenge],
      ["code_challenge_method", pkce.method],
      ["state", state],
      ["scope", scope],
      ["resource", resource],
    ];
    for (const [key, value] of params) if (value !== undefined) url.searchParams.set(key, value);
    const timeoutMs = options.authorizationTimeoutMs ?? 300_000;
    const handler = options.authorizationHandler as (u: string) => Promise<AuthorizationResponse>;
    const answer = await withDeadline(handler(url.href), timeoutMs, `no authorization response within ${timeoutMs} ms`);
    if (typeof answer?.code !== "string" || answer.code === "")
      throw new OAuthError("authorization_failed", "authorization response has no code");
    if (answer.state !== state) throw new OAuthError("state_mismatch", "authorization response state does not match the request");
    // RFC 9207: a present iss must equal the recorded issuer exactly; if the AS advertises it, it must be present.
    if (answer.iss !== undefined && answer.iss !== as.issuer) {
      throw new OAuthError("iss_mismatch", `authorization response iss ${JSON.stringify(answer.iss)} does not match issuer ${as.issuer}`);
    }
    if (answer.iss === undefined && as.issParameterSupported) {
      throw new OAuthError("iss_mismatch", `authorization server ${as.issuer} advertises iss but the response has none`);
    }
    const tokens = await requestToken(
      fetchFn,
      as,
      client,
      { grant_type: "authorization_code", code: answer.code, redirect_uri: redirectUri(), code_verifier: pkce.verifier, resource },
      await keyFor(),
      await dpopFor(as),
    );
    await save(scope && !tokens.scope ? { ...tokens, scope } : tokens);
    return true;
  }

  async function handle(challenge: AuthChallenge): Promise<boolean> {
    serverUrl ??= challenge.url;
    if (!ownGuard && challenge.outbound) guard = challenge.outbound;
    await load();
    const bearer = bearerChallenge(challenge.wwwAuthenticate);
    if (bearer?.params.error === "use_dpop_nonce" && challenge.dpopNonce && current?.tokenType === "DPoP") {
      // RFC 9449 §9: the resource server wants a fresh nonce in the proof; retry with it, no new flow.
      const fresh = challenge.dpopNonce !== rsNonce;
      rsNonce = challenge.dpopNonce;
      return fresh;
    }
    const insufficientScope = challenge.status === 403 && bearer?.params.error === "insufficient_scope";
    if (challenge.status !== 401 && !insufficientScope) return false;
    if (attemptsInRow >= maxAttempts) {
      return fail(new OAuthError("retry_limit", `gave up after ${attemptsInRow} authorization attempts without a successful request`));
    }
    if (insufficientScope) {
      // One step-up per distinct required scope set: a server that keeps refusing cannot loop us.
      const key = scopeList(bearer?.params.scope).sort().join(" ");
      const done = stepUps.get(key) ?? 0;
      if (done >= 1) return fail(new OAuthError("retry_limit", `server still reports insufficient_scope for "${key}" after a step-up`));
      stepUps.set(key, done + 1);
    }
    attemptsInRow++;
    try {
      if (challenge.status === 401 && current?.refreshToken && usesOfCurrent > 0 && (await refresh())) return true;
      return await authorizeFully(challenge, insufficientScope);
    } catch (error) {
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
      if (current.expiresAt !== undefined && current.expiresAt - skew <= Date.now() && current.refreshToken) {
        if (!(await refresh()) && current.expiresAt <= Date.now()) return {};
      }
      if (!current) return {};
      usesOfCurrent++;
      // A token handed out a second time means the first use was not challenged: the flow worked.
      if (usesOfCurrent > 1) attemptsInRow = 0;
      if (current.tokenType === "DPoP" && tokenDpop) {
        const proof = await createDpopProof(tokenDpop.key, {
          method: request.method,
          url: request.url,
          accessToken: current.accessToken,
          ...(rsNonce ? { nonce: rsNonce } : {}),
        });
        return { authorization: `DPoP ${current.accessToken}`, dpop: proof };
      }
      return { authorization: `Bearer ${current.accessToken}` };
    },
    handleChallenge(challenge) {
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

function pickSecretMethod(as: AuthorizationServerMetadata): string {
  const supported = as.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"];
  return supported.includes("client_secret_basic")
    ? "client_secret_basic"
    : supported.includes("client_secret_post")
      ? "client_secret_post"
      : "client_secret_basic";
}
