/**
 * The steps of one authorization, once discovery has found the authorization server: which scopes
 * to ask for, which client to be, and the grants themselves (authorization code + PKCE with the
 * RFC 9207 `iss` check, client_credentials, jwt_bearer). The provider keeps the state; these take
 * what they need as arguments.
 */
import type { AuthorizationServerMetadata, FetchLike, ProtectedResourceMetadata } from "./discovery.js";
import { withDeadline } from "./guards.js";
import { registerClient } from "./oauth-flows.js";
import type { AuthorizationResponse, OAuthProviderOptions } from "./oauth-options.js";
import { createPkce, OAuthError, randomString, scopeList } from "./oauth-util.js";
import { JWT_BEARER_GRANT } from "./token-exchange.js";
import { createKeyedLock, inProcessRegistration, type OAuthClientInfo, type OAuthTokens, type TokenStore } from "./token-store.js";

/** Sends a token request for `client` to the authorization server (client authentication and DPoP are the provider's). */
export type TokenRequest = (client: OAuthClientInfo, fields: { readonly [key: string]: string | undefined }) => Promise<OAuthTokens>;

/** One grant's inputs: the server, what to ask for, and how to send the token request. */
export interface GrantInput {
  readonly as: AuthorizationServerMetadata;
  readonly scope: string | undefined;
  readonly resource: string;
  readonly requestToken: TokenRequest;
}

/**
 * The scopes to ask for, most specific source first: the challenge's `scope`, the resource's
 * `scopes_supported`, the configured default. A step-up (403 insufficient_scope) asks for the
 * union with what was asked before, so the new token does not lose the old token's scopes.
 * `offline_access` is added for interactive grants when the AS lists it (SEP-2207: a refresh
 * token spares the user a new consent).
 */
export function chooseScopes(
  options: OAuthProviderOptions,
  challengeScope: string | undefined,
  prm: ProtectedResourceMetadata | undefined,
  as: AuthorizationServerMetadata,
  previous: readonly string[] | undefined,
): string[] {
  let scopes =
    challengeScope !== undefined ? scopeList(challengeScope) : prm?.scopesSupported ? [...prm.scopesSupported] : scopeList(options.scope);
  if (previous) scopes = [...new Set([...previous, ...scopes])];
  const interactive = (options.grant ?? "authorization_code") === "authorization_code";
  if (scopes.length > 0 && options.requestOfflineAccess !== false && interactive && as.scopesSupported?.includes("offline_access")) {
    if (!scopes.includes("offline_access")) scopes.push("offline_access");
  }
  return scopes;
}

/** The configured redirect URI; only the authorization code grant needs one, so it is checked when used. */
export function redirectUriOf(options: OAuthProviderOptions): string {
  if (!options.redirectUri) throw new OAuthError("bad_configuration", "redirectUri is required for the authorization_code grant");
  return options.redirectUri;
}

/** The CIMD client, when a metadata document URL is configured and `as` supports CIMD. */
function cimdClient(options: OAuthProviderOptions, as: AuthorizationServerMetadata): OAuthClientInfo | undefined {
  if (!options.clientMetadataUrl || !as.clientIdMetadataDocumentSupported) return undefined;
  return { clientId: options.clientMetadataUrl, tokenEndpointAuthMethod: "none", issuer: as.issuer, source: "cimd" };
}

/** Serializes registrations per issuer in this process for stores without their own (cross-process) lock. */
const localRegistrations = createKeyedLock();

/**
 * The client to be at `as`, in order of preference: a pre-registered client, a Client ID
 * Metadata Document URL when the AS supports CIMD (no registration at all), a client this store
 * registered at that issuer before, and last a new dynamic registration (RFC 7591), stored.
 */
export async function clientFor(
  options: OAuthProviderOptions,
  store: TokenStore,
  fetchFn: FetchLike,
  as: AuthorizationServerMetadata,
  scope: string | undefined,
): Promise<OAuthClientInfo> {
  if (options.clientId) {
    return {
      clientId: options.clientId,
      ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
      ...(options.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: options.tokenEndpointAuthMethod } : {}),
      issuer: as.issuer,
      source: "pre-registered",
    };
  }
  const cimd = cimdClient(options, as);
  if (cimd) return cimd;
  const known = await store.loadClient(as.issuer);
  // A client registered at another issuer is unknown here: client ids are per authorization server.
  if (known && known.issuer === as.issuer) return known;
  return replaceClient(options, store, fetchFn, as, scope, undefined);
}

/**
 * Registers at `as` under the store's per-issuer lock, once however many workers need a client at
 * that moment: the stored client is read again under the lock, and a usable one (not `failed`, the
 * client the AS just refused) is taken as is. After an `invalid_client`, a configured CIMD client
 * replaces the forgotten registration when the AS supports CIMD, with no registration at all.
 */
export async function replaceClient(
  options: OAuthProviderOptions,
  store: TokenStore,
  fetchFn: FetchLike,
  as: AuthorizationServerMetadata,
  scope: string | undefined,
  failed: OAuthClientInfo | undefined,
): Promise<OAuthClientInfo> {
  let chosen: OAuthClientInfo | undefined;
  const exclusive = store.registerExclusive?.bind(store) ?? inProcessRegistration(store, localRegistrations);
  await exclusive(as.issuer, async (latest) => {
    if (latest && latest.issuer === as.issuer && latest.clientId !== failed?.clientId) {
      chosen = latest; // registered (or replaced) by another worker while this one waited
      return latest;
    }
    const cimd = failed ? cimdClient(options, as) : undefined;
    if (cimd) {
      chosen = cimd;
      return undefined; // the forgotten registration goes; every worker now uses the metadata document
    }
    chosen = await registerClient(
      fetchFn,
      as,
      { clientName: options.clientMetadata?.clientName ?? "toolwright", ...options.clientMetadata, redirectUris: [redirectUriOf(options)] },
      scope,
    );
    return chosen;
  });
  return chosen as OAuthClientInfo;
}

/** client_credentials or jwt_bearer (RFC 7523): no user, the pre-registered client (checked at creation) authenticates itself. */
export async function machineGrant(options: OAuthProviderOptions, input: GrantInput): Promise<OAuthTokens> {
  const { as, scope, resource } = input;
  const client: OAuthClientInfo = {
    clientId: options.clientId as string,
    ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
    tokenEndpointAuthMethod:
      options.tokenEndpointAuthMethod ?? (options.privateKeyPem ? "private_key_jwt" : options.clientSecret ? pickSecretMethod(as) : "none"),
    issuer: as.issuer,
    source: "pre-registered",
  };
  if (options.grant !== "jwt_bearer") return input.requestToken(client, { grant_type: "client_credentials", scope, resource });
  // The assertion's audience is the discovered issuer, so a function gets to mint it only now.
  const source = options.assertion as NonNullable<OAuthProviderOptions["assertion"]>;
  const assertion = typeof source === "string" ? source : await source({ issuer: as.issuer, resource, ...(scope ? { scope } : {}) });
  return input.requestToken(client, { grant_type: JWT_BEARER_GRANT, assertion, scope, resource });
}

/**
 * The authorization code grant with PKCE S256: the user's part runs in `authorizationHandler`
 * under a deadline, then `state` and `iss` are checked before the code is exchanged. Refuses an
 * AS that does not advertise S256 (OAuth 2.1 requires PKCE), except the 2025-03-26 default
 * endpoints used when a server publishes no metadata: they advertise nothing at all.
 */
export async function authorizationCodeGrant(
  options: OAuthProviderOptions,
  input: GrantInput,
  client: (scope: string | undefined) => Promise<OAuthClientInfo>,
): Promise<OAuthTokens> {
  const { as, scope, resource } = input;
  if (!as.fallback && !as.codeChallengeMethodsSupported?.includes("S256")) {
    throw new OAuthError(
      "pkce_unsupported",
      `authorization server ${as.issuer} does not advertise PKCE S256 (code_challenge_methods_supported)`,
    );
  }
  const registered = await client(scope);
  const pkce = await createPkce();
  const state = randomString(24);
  const url = new URL(as.authorizationEndpoint);
  const params: [string, string | undefined][] = [
    ["response_type", "code"],
    ["client_id", registered.clientId],
    ["redirect_uri", redirectUriOf(options)],
    ["code_challenge", pkce.challenge],
    ["code_challenge_method", pkce.method],
    ["state", state],
    ["scope", scope],
    // RFC 8707: the token is bound to this MCP server, so it cannot be replayed at another.
    ["resource", resource],
  ];
  for (const [key, value] of params) if (value !== undefined) url.searchParams.set(key, value);
  const timeoutMs = options.authorizationTimeoutMs ?? 300_000;
  const handler = options.authorizationHandler as (u: string) => Promise<AuthorizationResponse>;
  const answer = await withDeadline(handler(url.href), timeoutMs, `no authorization response within ${timeoutMs} ms`);
  checkAuthorizationResponse(answer, state, as);
  const tokens = await input.requestToken(registered, {
    grant_type: "authorization_code",
    code: answer.code,
    redirect_uri: redirectUriOf(options),
    code_verifier: pkce.verifier,
    resource,
  });
  // An AS that omits `scope` granted what was asked (RFC 6749 §5.1); remembered for the step-up union.
  return scope && !tokens.scope ? { ...tokens, scope } : tokens;
}

/** The redirect's checks: a code, our `state` (CSRF), and RFC 9207's `iss` (mix-up attacks). */
function checkAuthorizationResponse(answer: AuthorizationResponse, state: string, as: AuthorizationServerMetadata): void {
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
}

/** A confidential machine client's method: basic when allowed (the RFC 6749 default), else post. */
function pickSecretMethod(as: AuthorizationServerMetadata): string {
  const supported = as.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"];
  return supported.includes("client_secret_basic")
    ? "client_secret_basic"
    : supported.includes("client_secret_post")
      ? "client_secret_post"
      : "client_secret_basic";
}
