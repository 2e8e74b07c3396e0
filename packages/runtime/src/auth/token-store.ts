/**
 * Where OAuth state lives: tokens per protected resource and client registrations per
 * authorization server (credentials are bound to the issuer that issued them, SEP-2352).
 */

/** Tokens for one resource, with the issuer that minted them. */
export interface OAuthTokens {
  readonly accessToken: string;
  readonly tokenType: string;
  readonly refreshToken?: string;
  /** Epoch milliseconds. */
  readonly expiresAt?: number;
  /** Scope granted (or requested, when the AS did not say). */
  readonly scope?: string;
  readonly issuer: string;
}

/** A client registration at one authorization server. */
export interface OAuthClientInfo {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** client_secret_basic, client_secret_post, none or private_key_jwt. */
  readonly tokenEndpointAuthMethod?: string;
  readonly issuer: string;
  /** How the client id was obtained. */
  readonly source: "cimd" | "pre-registered" | "dynamic";
}

/** Persistent OAuth state. Methods may be sync or async; implementations must not log values. */
export interface TokenStore {
  loadTokens(resource: string): OAuthTokens | undefined | Promise<OAuthTokens | undefined>;
  saveTokens(resource: string, tokens: OAuthTokens | undefined): void | Promise<void>;
  loadClient(issuer: string): OAuthClientInfo | undefined | Promise<OAuthClientInfo | undefined>;
  saveClient(issuer: string, client: OAuthClientInfo | undefined): void | Promise<void>;
}

/** An in-memory token store (the default); state ends with the process. */
export function createMemoryTokenStore(): TokenStore {
  const tokens = new Map<string, OAuthTokens>();
  const clients = new Map<string, OAuthClientInfo>();
  return {
    loadTokens: (resource) => tokens.get(resource),
    saveTokens: (resource, value) => {
      if (value) tokens.set(resource, value);
      else tokens.delete(resource);
    },
    loadClient: (issuer) => clients.get(issuer),
    saveClient: (issuer, value) => {
      if (value) clients.set(issuer, value);
      else clients.delete(issuer);
    },
  };
}
