/**
 * One principal's view of the vault as the runtime's `TokenStore`: tokens per (principal,
 * resource), client registrations per issuer (shared by every principal: the application is one
 * OAuth client), everything sealed with the key ring. `refreshExclusive` takes a PostgreSQL
 * advisory lock on (principal, resource), so one refresh reaches the authorization server however
 * many workers saw the expiry; `registerExclusive` takes one on the issuer, so one registration
 * replaces a client the AS forgot. A killed worker's lock ends with its connection.
 */
import type { ExclusiveRefresh, ExclusiveRegistration, OAuthClientInfo, OAuthTokens, TokenStore } from "@toolwright/runtime/auth";
import type pg from "pg";
import { clientAad, clientWhere, type KeyRing, tokenAad, tokenWhere } from "./crypto.js";
import { lockKey } from "./schema.js";

/** What the per-principal stores share. */
export interface VaultContext {
  /** Reads and writes. Never waits on an advisory lock, so a lock holder can always get a connection. */
  readonly pool: pg.Pool;
  /** Connections that hold refresh locks (waiting on a lock holds a connection; they must not starve `pool`). */
  readonly lockPool: pg.Pool;
  /**
   * Connections that hold registration locks: apart from `lockPool`, because a refresh holding a
   * refresh lock takes the registration lock when the AS forgot the client (one pool would deadlock
   * once every connection were a refresh waiting for a registration).
   */
  readonly registerPool: pg.Pool;
  readonly schema: string;
  readonly keys: KeyRing;
}

type Queryable = Pick<pg.PoolClient, "query">;

interface TokenRow {
  readonly state: string;
  readonly key_id: string | null;
  readonly sealed: Buffer | null;
}

/** Checks that a principal id is a non-empty string of reasonable size (it keys rows and locks). */
export function checkPrincipal(principal: string): string {
  if (typeof principal !== "string" || principal.length === 0 || principal.length > 512) {
    throw new TypeError("vault: a principal must be a non-empty string of at most 512 characters");
  }
  return principal;
}

function parseTokens(text: string): OAuthTokens {
  return JSON.parse(text) as OAuthTokens;
}

async function readTokens(db: Queryable, ctx: VaultContext, principal: string, resource: string): Promise<OAuthTokens | undefined> {
  const { rows } = await db.query<TokenRow>(
    `SELECT state, key_id, sealed FROM ${ctx.schema}.tokens WHERE principal = $1 AND resource = $2`,
    [principal, resource],
  );
  const row = rows[0];
  if (row?.state !== "active" || !row.sealed || !row.key_id) return undefined;
  return parseTokens(ctx.keys.open(row.key_id, row.sealed, tokenAad(principal, resource), tokenWhere(principal, resource)));
}

async function writeTokens(
  db: Queryable,
  ctx: VaultContext,
  principal: string,
  resource: string,
  tokens: OAuthTokens | undefined,
): Promise<void> {
  if (!tokens) {
    await db.query(`DELETE FROM ${ctx.schema}.tokens WHERE principal = $1 AND resource = $2`, [principal, resource]);
    return;
  }
  const { keyId, sealed } = ctx.keys.seal(JSON.stringify(tokens), tokenAad(principal, resource));
  await db.query(
    `INSERT INTO ${ctx.schema}.tokens (principal, resource, state, key_id, sealed, updated_at) VALUES ($1, $2, 'active', $3, $4, now())
     ON CONFLICT (principal, resource) DO UPDATE SET state = 'active', key_id = $3, sealed = $4, updated_at = now()`,
    [principal, resource, keyId, sealed],
  );
}

/** Marks a grant as needing re-authorization: the sealed tokens go, the row stays so the application can list it. */
async function markReauthorize(db: Queryable, ctx: VaultContext, principal: string, resource: string): Promise<void> {
  await db.query(
    `INSERT INTO ${ctx.schema}.tokens (principal, resource, state, key_id, sealed, updated_at) VALUES ($1, $2, 'reauthorize', NULL, NULL, now())
     ON CONFLICT (principal, resource) DO UPDATE SET state = 'reauthorize', key_id = NULL, sealed = NULL, updated_at = now()`,
    [principal, resource],
  );
}

/** Reads a client registration (shared by every principal). */
async function readClient(db: Queryable, ctx: VaultContext, issuer: string): Promise<OAuthClientInfo | undefined> {
  const { rows } = await db.query<{ key_id: string; sealed: Buffer }>(
    `SELECT key_id, sealed FROM ${ctx.schema}.clients WHERE issuer = $1`,
    [issuer],
  );
  const row = rows[0];
  if (!row) return undefined;
  return JSON.parse(ctx.keys.open(row.key_id, row.sealed, clientAad(issuer), clientWhere(issuer))) as OAuthClientInfo;
}

async function writeClient(db: Queryable, ctx: VaultContext, issuer: string, client: OAuthClientInfo | undefined): Promise<void> {
  if (!client) {
    await db.query(`DELETE FROM ${ctx.schema}.clients WHERE issuer = $1`, [issuer]);
    return;
  }
  const { keyId, sealed } = ctx.keys.seal(JSON.stringify(client), clientAad(issuer));
  await db.query(
    `INSERT INTO ${ctx.schema}.clients (issuer, key_id, sealed, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (issuer) DO UPDATE SET key_id = $2, sealed = $3, updated_at = now()`,
    [issuer, keyId, sealed],
  );
}

/**
/**
 * Runs `step` on a lock-pool connection holding the session advisory lock `key`, then unlocks. A
 * session lock, not a transaction's, so that each store in `step` is one autocommit statement: the
 * rotated tokens are durable one PostgreSQL round trip after the authorization server answered,
 * not two (write, then COMMIT). That round trip is the window in which a `kill -9` loses a rotated
 * refresh token (docs/guides/many-users.md); a killed worker's lock still ends with its connection.
 */
async function underLock<T>(lockPool: pg.Pool, key: string, step: (db: pg.PoolClient) => Promise<T>): Promise<T> {
  const db = await lockPool.connect();
  let locked = false;
  let broken = false;
  try {
    await db.query("SELECT pg_advisory_lock($1::bigint)", [key]);
    locked = true;
    return await step(db);
  } finally {
    // A connection still holding the lock (its unlock failed) is closed, never handed to the next locker.
    if (locked) await db.query("SELECT pg_advisory_unlock($1::bigint)", [key]).catch(() => (broken = true));
    db.release(broken);
  }
}

/**
 * Runs `refresh` holding the advisory lock of (principal, resource): re-reads the row after
 * acquiring it, stores the result, then unlocks.
 */
function exclusive(ctx: VaultContext, principal: string, resource: string, refresh: ExclusiveRefresh): Promise<OAuthTokens | undefined> {
  return underLock(ctx.lockPool, lockKey("toolwright-vault-refresh", ctx.schema, principal, resource), async (db) => {
    const latest = await readTokens(db, ctx, principal, resource);
    const result = await refresh(latest);
    if (result !== latest) {
      if (result) await writeTokens(db, ctx, principal, resource, result);
      else await markReauthorize(db, ctx, principal, resource);
    }
    return result;
  });
}

/**
 * Runs `register` holding the advisory lock of the issuer (shared by every principal, as the
 * client is): re-reads the client after acquiring it, stores the result, then unlocks.
 */
function exclusiveClient(ctx: VaultContext, issuer: string, register: ExclusiveRegistration): Promise<OAuthClientInfo | undefined> {
  return underLock(ctx.registerPool, lockKey("toolwright-vault-register", ctx.schema, issuer), async (db) => {
    const latest = await readClient(db, ctx, issuer);
    const result = await register(latest);
    if (result !== latest) await writeClient(db, ctx, issuer, result);
    return result;
  });
}

/** A `TokenStore` for one principal, backed by the vault. */
export function principalTokenStore(ctx: VaultContext, principal: string): TokenStore {
  const who = checkPrincipal(principal);
  return {
    loadTokens: (resource) => readTokens(ctx.pool, ctx, who, resource),
    saveTokens: (resource, tokens) => writeTokens(ctx.pool, ctx, who, resource, tokens),
    loadClient: (issuer) => readClient(ctx.pool, ctx, issuer),
    saveClient: (issuer, client) => writeClient(ctx.pool, ctx, issuer, client),
    refreshExclusive: (resource, refresh) => exclusive(ctx, who, resource, refresh),
    registerExclusive: (issuer, register) => exclusiveClient(ctx, issuer, register),
  };
}
