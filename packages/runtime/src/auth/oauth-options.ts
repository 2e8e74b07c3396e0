/**
 * The options and the public face of `createOAuthProvider`, apart from the provider so that the
 * grant steps (`oauth-grants.ts`) can read the options without importing the provider.
 */

import type { AuthProvider } from "../transport/auth-provider.js";
import type { OutboundPolicy } from "../transport/outbound.js";
import type { FetchLike } from "./discovery.js";
import type { ClientMetadata } from "./oauth-flows.js";
import { OAuthError } from "./oauth-util.js";
import type { OAuthTokens, TokenStore } from "./token-store.js";

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

/**
 * Refuses options that cannot work for their grant, at creation: discovering this at the first 401
 * would fail a user's request mid-flight, for a mistake in the code that built the provider.
 */
export function checkOAuthOptions(options: OAuthProviderOptions): void {
  const grant = options.grant ?? "authorization_code";
  if (grant === "authorization_code" && !options.authorizationHandler) {
    throw new OAuthError("bad_configuration", "createOAuthProvider: authorizationHandler is required for the authorization_code grant");
  }
  if ((grant === "client_credentials" || grant === "jwt_bearer") && !options.clientId) {
    throw new OAuthError("bad_configuration", `createOAuthProvider: clientId is required for the ${grant} grant`);
  }
  if (grant === "jwt_bearer" && options.assertion === undefined) {
    throw new OAuthError("bad_configuration", "createOAuthProvider: assertion is required for the jwt_bearer grant");
  }
}
