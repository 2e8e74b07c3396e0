/**
 * Enterprise-managed authorization (SEP-990): exchange an IdP ID token for an Identity Assertion
 * JWT Authorization Grant (ID-JAG) with RFC 8693 token exchange. The ID-JAG is then presented to
 * the MCP authorization server with the RFC 7523 JWT-bearer grant (`grant: "jwt_bearer"`).
 */
import type { FetchLike } from "./discovery.js";
import { formBody, OAuthError } from "./oauth-util.js";

/** The RFC 7523 JWT-bearer grant type. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";

/** Options for `requestIdJag`. */
export interface IdJagRequest {
  /** The IdP's token endpoint. */
  readonly tokenEndpoint: string;
  /** The user's ID token from the IdP. */
  readonly idToken: string;
  /** This client's id at the IdP (and secret, sent as client_secret_post when given). */
  readonly clientId: string;
  readonly clientSecret?: string;
  /** The MCP authorization server's issuer. */
  readonly audience: string;
  /** The MCP server (protected resource). */
  readonly resource: string;
  readonly scope?: string;
  readonly fetch?: FetchLike;
}

/** Exchanges an ID token for an ID-JAG at the IdP. Errors name the step, never the tokens. */
export async function requestIdJag(request: IdJagRequest): Promise<string> {
  const fetchFn: FetchLike = request.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let response: Response;
  try {
    response = await fetchFn(request.tokenEndpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: formBody({
        grant_type: TOKEN_EXCHANGE_GRANT,
        requested_token_type: ID_JAG,
        subject_token: request.idToken,
        subject_token_type: ID_TOKEN,
        audience: request.audience,
        resource: request.resource,
        scope: request.scope,
        client_id: request.clientId,
        client_secret: request.clientSecret,
      }),
    });
  } catch (error) {
    throw new OAuthError("token_request_failed", `token exchange at the IdP failed: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => undefined)) as { [key: string]: unknown } | undefined;
  if (!response.ok) {
    const code = typeof body?.error === "string" ? ` ${body.error}` : "";
    throw new OAuthError("token_request_failed", `token exchange refused by the IdP: HTTP ${response.status}${code}`);
  }
  if (typeof body?.access_token !== "string" || body.access_token === "") {
    throw new OAuthError("token_request_failed", "token exchange response has no access_token");
  }
  if (body.issued_token_type !== undefined && body.issued_token_type !== ID_JAG) {
    throw new OAuthError("token_request_failed", `token exchange issued ${String(body.issued_token_type)}, not an ID-JAG`);
  }
  return body.access_token;
}
