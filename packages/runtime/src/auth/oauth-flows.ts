/**
 * The OAuth requests themselves: dynamic client registration (RFC 7591, with application_type),
 * token requests with client authentication (basic, post, none, private_key_jwt), and the token
 * response check. Errors never include secrets or token values.
 */
import type { AuthorizationServerMetadata, FetchLike } from "./discovery.js";
import { createDpopProof, type DpopKey } from "./dpop.js";
import { type CryptoKey, createClientAssertion, type JwtAlgorithm } from "./jwt.js";
import { formBody, OAuthError } from "./oauth-util.js";
import type { OAuthClientInfo, OAuthTokens } from "./token-store.js";

/** What we tell an AS about ourselves in dynamic registration. */
export interface ClientMetadata {
  readonly clientName: string;
  readonly redirectUris: readonly string[];
  /** "native" (default; loopback or custom-scheme redirects) or "web" (SEP-837). */
  readonly applicationType?: "native" | "web";
  readonly clientUri?: string;
  readonly softwareId?: string;
  readonly softwareVersion?: string;
}

/** Picks the token endpoint auth method: what registration said, else what the AS supports. */
export function chooseAuthMethod(
  client: Pick<OAuthClientInfo, "clientSecret" | "tokenEndpointAuthMethod">,
  as: AuthorizationServerMetadata,
): string {
  if (client.tokenEndpointAuthMethod) return client.tokenEndpointAuthMethod;
  const supported = as.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"];
  if (client.clientSecret) {
    if (supported.includes("client_secret_basic")) return "client_secret_basic";
    if (supported.includes("client_secret_post")) return "client_secret_post";
  }
  return "none";
}

/**
 * An AS refusal as text: the status and RFC 6749 §5.2's `error` and `error_description` (cut to
 * 200 characters). Never the rest of the body, which can echo the request and its secrets.
 */
async function readError(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown; error_description?: unknown };
    const code = typeof body.error === "string" ? body.error : "";
    const description = typeof body.error_description === "string" ? `: ${body.error_description.slice(0, 200)}` : "";
    return `HTTP ${response.status}${code ? ` ${code}` : ""}${description}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

/** Registers a client dynamically. Asks for a public client (`none`) unless the AS only allows secrets. */
export async function registerClient(
  fetchFn: FetchLike,
  as: AuthorizationServerMetadata,
  metadata: ClientMetadata,
  scope: string | undefined,
): Promise<OAuthClientInfo> {
  if (!as.registrationEndpoint) {
    throw new OAuthError(
      "registration_failed",
      `authorization server ${as.issuer} offers no registration endpoint and no client id is configured`,
    );
  }
  // A public client (`none`) holds no secret to lose: PKCE protects its code. The RFC 8414 default
  // for an AS that lists no methods is client_secret_basic.
  const supported = as.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"];
  const method = supported.includes("none")
    ? "none"
    : (["client_secret_basic", "client_secret_post"].find((m) => supported.includes(m)) ?? "client_secret_basic");
  const body = {
    client_name: metadata.clientName,
    redirect_uris: metadata.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
    // "native": a loopback or custom-scheme redirect (RFC 8252), which is what a local agent has.
    application_type: metadata.applicationType ?? "native",
    ...(metadata.clientUri ? { client_uri: metadata.clientUri } : {}),
    ...(metadata.softwareId ? { software_id: metadata.softwareId } : {}),
    ...(metadata.softwareVersion ? { software_version: metadata.softwareVersion } : {}),
    ...(scope ? { scope } : {}),
  };
  let response: Response;
  try {
    response = await fetchFn(as.registrationEndpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
    });
  } catch (error) {
    // A policy refusal keeps its own code: the caller reports it as EPOLICY, not a failed registration.
    if (error instanceof OAuthError && error.code === "outbound_refused") throw error;
    throw new OAuthError("registration_failed", `registration request failed: ${(error as Error).message}`);
  }
  if (!response.ok) throw new OAuthError("registration_failed", `registration refused: ${await readError(response)}`);
  const info = (await response.json().catch(() => undefined)) as { [key: string]: unknown } | undefined;
  if (typeof info?.client_id !== "string" || info.client_id === "") {
    throw new OAuthError("registration_failed", "registration response has no client_id");
  }
  return {
    clientId: info.client_id,
    ...(typeof info.client_secret === "string" ? { clientSecret: info.client_secret } : {}),
    // The AS may register something other than what was asked (RFC 7591 §3.2.1: the response is
    // authoritative); a secret handed to a client that asked for none is used, not ignored.
    tokenEndpointAuthMethod:
      typeof info.token_endpoint_auth_method === "string"
        ? info.token_endpoint_auth_method
        : typeof info.client_secret === "string" && method === "none"
          ? chooseAuthMethod({ clientSecret: info.client_secret }, as)
          : method,
    issuer: as.issuer,
    source: "dynamic",
  };
}

/** Key material for `private_key_jwt`. */
export interface AssertionKey {
  readonly key: CryptoKey;
  readonly alg: JwtAlgorithm;
}

/** DPoP for token requests: the key and the AS nonce (remembered across requests). */
export interface TokenDpop {
  readonly key: DpopKey;
  nonce: string | undefined;
}

/** Sends a token request with client authentication (and a DPoP proof) and returns the parsed tokens. */
export async function requestToken(
  fetchFn: FetchLike,
  as: AuthorizationServerMetadata,
  client: OAuthClientInfo,
  fields: { readonly [key: string]: string | undefined },
  assertionKey?: AssertionKey,
  dpop?: TokenDpop,
): Promise<OAuthTokens> {
  const method = chooseAuthMethod(client, as);
  let response: Response | undefined;
  // At most one retry: when the AS asks for a DPoP nonce (RFC 9449 §8).
  for (let attempt = 0; attempt < 2; attempt++) {
    const headers: { [key: string]: string } = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    // Rebuilt per attempt: a DPoP proof is single-use (its jti), and the retry carries the new nonce.
    const body: { [key: string]: string | undefined } = { ...fields };
    if (method === "client_secret_basic") {
      if (!client.clientSecret) throw new OAuthError("bad_configuration", "client_secret_basic needs a client secret");
      // RFC 6749 §2.3.1: id and secret are form-urlencoded before Basic encoding.
      const user = encodeURIComponent(client.clientId);
      const pass = encodeURIComponent(client.clientSecret);
      headers.authorization = `Basic ${btoa(`${user}:${pass}`)}`;
    } else if (method === "client_secret_post") {
      if (!client.clientSecret) throw new OAuthError("bad_configuration", "client_secret_post needs a client secret");
      body.client_id = client.clientId;
      body.client_secret = client.clientSecret;
    } else if (method === "private_key_jwt") {
      if (!assertionKey) throw new OAuthError("bad_configuration", "private_key_jwt needs a private key");
      body.client_id = client.clientId;
      body.client_assertion_type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
      // RFC 7523 §3: the audience must identify the AS, which its issuer identifier does.
      body.client_assertion = await createClientAssertion({ clientId: client.clientId, audience: as.issuer, ...assertionKey });
    } else {
      body.client_id = client.clientId;
    }
    if (dpop) {
      headers.dpop = await createDpopProof(dpop.key, {
        method: "POST",
        url: as.tokenEndpoint,
        ...(dpop.nonce ? { nonce: dpop.nonce } : {}),
      });
    }
    try {
      response = await fetchFn(as.tokenEndpoint, { method: "POST", headers, body: formBody(body) });
    } catch (error) {
      if (error instanceof OAuthError && error.code === "outbound_refused") throw error;
      throw new OAuthError("token_request_failed", `token request failed: ${(error as Error).message}`);
    }
    // The nonce is kept for later token requests too: the AS may demand it on every one.
    const nonce = response.headers.get("dpop-nonce");
    if (dpop && nonce) dpop.nonce = nonce;
    if (!(dpop && nonce && response.status === 400 && attempt === 0)) break;
    const error = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: unknown } | undefined;
    if (error?.error !== "use_dpop_nonce") break;
  }
  if (!response) throw new OAuthError("token_request_failed", "no token response");
  if (!response.ok) {
    // The AS's error code is kept apart: invalid_grant and invalid_client each call for their own recovery.
    const code = (await response
      .clone()
      .json()
      .then((b) => (b as { error?: unknown } | null)?.error)
      .catch(() => undefined)) as unknown;
    const text = await readError(response);
    throw new OAuthError("token_request_failed", `token request refused: ${text}`, typeof code === "string" ? code : undefined);
  }
  const json = (await response.json().catch(() => undefined)) as { [key: string]: unknown } | undefined;
  if (typeof json?.access_token !== "string" || json.access_token === "") {
    throw new OAuthError("token_request_failed", "token response has no access_token");
  }
  // token_type is case-insensitive (RFC 6749 §5.1). A DPoP token without our DPoP key could never be
  // presented, and an unknown type cannot be presented at all: both are refused here, not at use.
  const tokenType = typeof json.token_type === "string" ? json.token_type : "Bearer";
  const kind = tokenType.toLowerCase();
  if (kind !== "bearer" && !(kind === "dpop" && dpop)) {
    throw new OAuthError("token_request_failed", `token type ${tokenType} is not supported`);
  }
  const expiresIn = typeof json.expires_in === "number" ? json.expires_in : Number(json.expires_in);
  // Absent from the response means unchanged (RFC 6749 §5.1, §6): the scope asked for, and on a
  // refresh the refresh token we sent (an AS that does not rotate it sends none back).
  const scope = typeof json.scope === "string" ? json.scope : fields.scope;
  const refresh = typeof json.refresh_token === "string" ? json.refresh_token : fields.refresh_token;
  return {
    accessToken: json.access_token,
    tokenType: kind === "dpop" ? "DPoP" : "Bearer",
    ...(refresh ? { refreshToken: refresh } : {}),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAt: Date.now() + expiresIn * 1000 } : {}),
    ...(scope ? { scope } : {}),
    issuer: as.issuer,
  };
}
