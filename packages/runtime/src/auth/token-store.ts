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

/**
 * A refresh step run under a store's exclusive lock: it gets the newest stored tokens (another
 * process may have refreshed them while this one waited) and returns what to store, `latest`
 * itself to store nothing, or `undefined` when the grant is dead and the user must authorize again.
 */
export type ExclusiveRefresh = (latest: OAuthTokens | undefined) => Promise<OAuthTokens | undefined>;

/** Persistent OAuth state. Methods may be sync or async; implementations must not log values. */
export interface TokenStore {
  loadTokens(resource: string): OAuthTokens | undefined | Promise<OAuthTokens | undefined>;
  saveTokens(resource: string, tokens: OAuthTokens | undefined): void | Promise<void>;
  loadClient(issuer: string): OAuthClientInfo | undefined | Promise<OAuthClientInfo | undefined>;
  saveClient(issuer: string, client: OAuthClientInfo | undefined): void | Promise<void>;
  /**
   * Optional, for stores shared by several processes: runs `refresh` while holding a lock on
   * `resource` that every process sharing the store respects, stores its result before releasing
   * the lock, and resolves with what is stored. A rotated refresh token is single-use, so two
   * workers refreshing the same grant at once would get it revoked; with this, one refresh is sent
   * and the others read its result. Stores without it refresh per process (the provider still
   * single-flights within one).
   */
  refreshExclusive?(resource: string, refresh: ExclusiveRefresh): Promise<OAuthTokens | undefined>;
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
