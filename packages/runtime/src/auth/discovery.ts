/**
 * OAuth discovery for MCP: protected-resource metadata (RFC 9728) from `WWW-Authenticate` or the
 * well-known URLs, and authorization-server metadata (RFC 8414 / OIDC) in the spec's order, with
 * the issuer checked against the URL it came from.
 */
import { OAuthError } from "./oauth-util.js";

/** A fetch function (defaults to the global one). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Protected-resource metadata, as used here. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopesSupported?: readonly string[];
  /** Where it was found. */
  readonly url: string;
}

/** Authorization-server metadata, as used here; `raw` keeps every field. */
export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly registrationEndpoint?: string;
  readonly scopesSupported?: readonly string[];
  readonly codeChallengeMethodsSupported?: readonly string[];
  readonly tokenEndpointAuthMethodsSupported?: readonly string[];
  readonly grantTypesSupported?: readonly string[];
  readonly clientIdMetadataDocumentSupported: boolean;
  readonly issParameterSupported: boolean;
  /** `dpop_signing_alg_values_supported` (RFC 9449 §5.1). */
  readonly dpopSigningAlgValuesSupported?: readonly string[];
  /** True when no metadata was found and the 2025-03-26 default endpoints are used. */
  readonly fallback: boolean;
  readonly raw: { readonly [key: string]: unknown };
}

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === "string") ? (value as string[]) : undefined;

/**
 * One metadata document, or undefined when this candidate URL has none (network error, non-2xx,
 * not a JSON object): discovery then tries the next candidate. Redirects are refused: the document
 * must come from the well-known URL itself, not from wherever that URL points.
 */
async function getJson(
  fetchFn: FetchLike,
  url: string,
  headers: { [key: string]: string },
): Promise<{ [key: string]: unknown } | undefined> {
  let response: Response;
  try {
    response = await fetchFn(url, { method: "GET", headers: { accept: "application/json", ...headers }, redirect: "error" });
  } catch (error) {
    // A policy refusal is not "no metadata here": it ends discovery with its reason.
    if (error instanceof OAuthError && error.code === "outbound_refused") throw error;
    return undefined;
  }
  if (!response.ok) {
    // Cancelled, not left unread: an unread body holds the connection until it is collected.
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  try {
    const body = (await response.json()) as unknown;
    return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { [key: string]: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/** PRM candidate URLs in order: the challenge's `resource_metadata`, the path-suffixed well-known, the root one. */
export function protectedResourceMetadataUrls(serverUrl: string, fromChallenge?: string): string[] {
  const url = new URL(serverUrl);
  const path = url.pathname.replace(/\/+$/, "");
  const out: string[] = [];
  // RFC 9728 §3.1: the well-known suffix is inserted between the origin and the resource's path.
  if (fromChallenge) out.push(new URL(fromChallenge, url).href);
  if (path) out.push(`${url.origin}/.well-known/oauth-protected-resource${path}`);
  out.push(`${url.origin}/.well-known/oauth-protected-resource`);
  return [...new Set(out)];
}

/** True when the PRM `resource` covers `serverUrl`: same origin, and the server path lies under it. */
export function resourceCovers(resource: string, serverUrl: string): boolean {
  let r: URL;
  let s: URL;
  try {
    r = new URL(resource);
    s = new URL(serverUrl);
  } catch {
    return false;
  }
  // RFC 9728 §3.3: the metadata must be for this resource; otherwise a server could point us at
  // another resource's authorization server and collect a token meant for it.
  if (r.origin !== s.origin) return false;
  const rp = r.pathname.replace(/\/+$/, "");
  const sp = s.pathname.replace(/\/+$/, "");
  return sp === rp || sp.startsWith(`${rp}/`);
}

/** Finds protected-resource metadata; undefined when the server publishes none (2025-03-26 servers). */
export async function discoverProtectedResource(
  fetchFn: FetchLike,
  serverUrl: string,
  fromChallenge: string | undefined,
  headers: { [key: string]: string } = {},
): Promise<ProtectedResourceMetadata | undefined> {
  for (const url of protectedResourceMetadataUrls(serverUrl, fromChallenge)) {
    const body = await getJson(fetchFn, url, headers);
    if (!body) continue;
    // A document that exists but is wrong ends discovery: falling through to the next URL would
    // let a broken or hostile document be silently replaced by another.
    const servers = strings(body.authorization_servers);
    if (typeof body.resource !== "string" || !servers || servers.length === 0) {
      throw new OAuthError("discovery_failed", `protected resource metadata at ${url} has no resource or authorization_servers`);
    }
    if (!resourceCovers(body.resource, serverUrl)) {
      throw new OAuthError("resource_mismatch", `protected resource metadata names resource ${body.resource}, not ${serverUrl}`);
    }
    const scopes = strings(body.scopes_supported);
    return { resource: body.resource, authorizationServers: servers, ...(scopes ? { scopesSupported: scopes } : {}), url };
  }
  return undefined;
}

/** AS metadata URLs in the spec's order (RFC 8414 path insertion, OIDC path insertion, OIDC appending). */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  if (!path) return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** Issuer identifiers compare exactly (RFC 8414 §3.3), except for a trailing slash many servers add or drop. */
const sameIssuer = (a: string, b: string) => a === b || a.replace(/\/$/, "") === b.replace(/\/$/, "");

/**
 * Discovers AS metadata for `issuer`. Metadata whose `issuer` differs is rejected (never used).
 * With `allowFallback` (no PRM: a 2025-03-26 server, whose AS URL is derived from the server URL)
 * the issuer is taken from the metadata, and missing metadata means the default endpoints.
 */
export async function discoverAuthorizationServer(
  fetchFn: FetchLike,
  issuer: string,
  options: { readonly allowFallback?: boolean; readonly headers?: { [key: string]: string } } = {},
): Promise<AuthorizationServerMetadata> {
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const body = await getJson(fetchFn, url, options.headers ?? {});
    if (!body) continue;
    // Without PRM (2025-03-26) the URL was derived from the server, not from an issuer identifier.
    if (typeof body.issuer !== "string" || (!options.allowFallback && !sameIssuer(body.issuer, issuer))) {
      throw new OAuthError(
        "issuer_mismatch",
        `authorization server metadata at ${url} names issuer ${JSON.stringify(body.issuer)}, expected ${issuer}`,
      );
    }
    if (typeof body.authorization_endpoint !== "string" || typeof body.token_endpoint !== "string") {
      throw new OAuthError("discovery_failed", `authorization server metadata at ${url} lacks authorization_endpoint or token_endpoint`);
    }
    const scopes = strings(body.scopes_supported);
    const pkce = strings(body.code_challenge_methods_supported);
    const auth = strings(body.token_endpoint_auth_methods_supported);
    const grants = strings(body.grant_types_supported);
    const dpopAlgs = strings(body.dpop_signing_alg_values_supported);
    return {
      issuer: body.issuer,
      authorizationEndpoint: body.authorization_endpoint,
      tokenEndpoint: body.token_endpoint,
      ...(typeof body.registration_endpoint === "string" ? { registrationEndpoint: body.registration_endpoint } : {}),
      ...(scopes ? { scopesSupported: scopes } : {}),
      ...(pkce ? { codeChallengeMethodsSupported: pkce } : {}),
      ...(auth ? { tokenEndpointAuthMethodsSupported: auth } : {}),
      ...(grants ? { grantTypesSupported: grants } : {}),
      ...(dpopAlgs ? { dpopSigningAlgValuesSupported: dpopAlgs } : {}),
      clientIdMetadataDocumentSupported: body.client_id_metadata_document_supported === true,
      issParameterSupported: body.authorization_response_iss_parameter_supported === true,
      fallback: false,
      raw: body,
    };
  }
  if (!options.allowFallback) {
    throw new OAuthError("discovery_failed", `no authorization server metadata found for ${issuer}`);
  }
  // The 2025-03-26 spec's defaults for a server without metadata: /authorize, /token, /register at its origin.
  const origin = new URL(issuer).origin;
  return {
    issuer: origin,
    authorizationEndpoint: `${origin}/authorize`,
    tokenEndpoint: `${origin}/token`,
    registrationEndpoint: `${origin}/register`,
    clientIdMetadataDocumentSupported: false,
    issParameterSupported: false,
    fallback: true,
    raw: {},
  };
}
