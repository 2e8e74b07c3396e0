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

/**
 * A registration step run under a store's exclusive lock on one issuer: it gets the newest stored
 * client (another process may have replaced it while this one waited) and returns what to store,
 * `latest` itself to store nothing, or `undefined` to drop the stored client.
 */
export type ExclusiveRegistration = (latest: OAuthClientInfo | undefined) => Promise<OAuthClientInfo | undefined>;

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
  /**
   * Optional: runs `register` while holding a lock on `issuer` that every process sharing the
   * store respects, stores its result before releasing the lock, and resolves with what is stored.
   * When the AS forgets the application's client, every worker refreshing at that moment gets
   * `invalid_client`; with this, one of them registers and the others use its registration. Stores
   * without it are serialized per issuer within the process only.
   */
  registerExclusive?(issuer: string, register: ExclusiveRegistration): Promise<OAuthClientInfo | undefined>;
}

/** A lock per key within this process: runs of one key run one after another, other keys do not wait. */
export type KeyedLock = <T>(key: string, run: () => Promise<T>) => Promise<T>;

/** Creates an in-process keyed lock (a promise chain per key, dropped once idle). */
export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, run: () => Promise<T>): Promise<T> => {
    const result = (tails.get(key) ?? Promise.resolve()).then(run);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
}

/** `registerExclusive` for a store used by one process: `lock` serializes per issuer, load and save are the store's. */
export function inProcessRegistration(
  store: Pick<TokenStore, "loadClient" | "saveClient">,
  lock: KeyedLock,
): NonNullable<TokenStore["registerExclusive"]> {
  return (issuer, register) =>
    lock(issuer, async () => {
      const latest = await store.loadClient(issuer);
      const next = await register(latest);
      if (next !== latest) await store.saveClient(issuer, next);
      return next;
    });
}

/** An in-memory token store (the default); state ends with the process. */
export function createMemoryTokenStore(): TokenStore {
  const tokens = new Map<string, OAuthTokens>();
  const clients = new Map<string, OAuthClientInfo>();
  const store: TokenStore = {
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
  return { ...store, registerExclusive: inProcessRegistration(store, createKeyedLock()) };
}
