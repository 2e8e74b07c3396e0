/**
 * The vault's tables and their migration. As in `@toolwright/dbos`, many workers may start at once:
 * a session advisory lock serializes the DDL, and a bounded retry with backoff covers what the lock
 * cannot (a concurrent CREATE SCHEMA racing outside it, a restart of the server).
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import { VaultError } from "./crypto.js";

/** The schema version of the vault's tables. */
export const VAULT_SCHEMA_VERSION = 1;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Checks the schema name (it is written into SQL, so only a plain identifier is accepted). */
export function checkSchemaName(schema: string): string {
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema)) {
    throw new VaultError(
      "bad_option",
      `vault: schema ${JSON.stringify(String(schema)).slice(0, 80)} must be a lowercase identifier ([a-z_][a-z0-9_]*, at most 63)`,
    );
  }
  return schema;
}

/** The DDL of version 1. `state` is `active`, or `reauthorize` once the AS refused the grant (the sealed tokens are gone then). */
export function schemaSql(schema: string): string {
  const s = checkSchemaName(schema);
  return `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.tokens (
  principal text NOT NULL,
  resource text NOT NULL,
  state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'reauthorize')),
  key_id text,
  sealed bytea,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (principal, resource),
  CHECK ((state = 'active') = (sealed IS NOT NULL AND key_id IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS tokens_key_id ON ${s}.tokens (key_id);
CREATE TABLE IF NOT EXISTS ${s}.clients (
  issuer text PRIMARY KEY,
  key_id text NOT NULL,
  sealed bytea NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS clients_key_id ON ${s}.clients (key_id);
CREATE TABLE IF NOT EXISTS ${s}.approvals (
  principal text NOT NULL,
  server text NOT NULL,
  tool text NOT NULL,
  fingerprint text NOT NULL,
  approved_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (principal, server, tool)
);
CREATE TABLE IF NOT EXISTS ${s}.meta (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version integer NOT NULL
);
INSERT INTO ${s}.meta (version) VALUES (${VAULT_SCHEMA_VERSION}) ON CONFLICT (singleton) DO NOTHING;`;
}

/** A signed 64-bit advisory lock key from text (SHA-256, first 8 bytes): PostgreSQL's lock space is one bigint. */
export function lockKey(...parts: readonly string[]): string {
  const digest = createHash("sha256").update(parts.join("\u0000")).digest();
  return digest.readBigInt64BE(0).toString();
}

/** Errors that a concurrent migration can raise and a later attempt gets past. */
const TRANSIENT = new Set(["40P01", "40001", "23505", "42P06", "42P07", "42710", "57P03", "08006", "08001", "ECONNREFUSED"]);

/** Creates or upgrades the vault's tables in `schema`. Safe from many processes at once; throws naming the schema. */
export async function migrateVault(pool: pg.Pool, schema: string, attempts = 8): Promise<void> {
  const ddl = schemaSql(schema);
  let last: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      await client.query("SELECT pg_advisory_lock($1::bigint)", [lockKey("toolwright-vault-migrate", schema)]);
      try {
        // Every statement is IF NOT EXISTS: running it again under the lock is a no-op.
        await client.query(ddl);
        const version = await client.query<{ version: number }>(`SELECT version FROM ${schema}.meta`);
        const at = version.rows[0]?.version ?? VAULT_SCHEMA_VERSION;
        if (at > VAULT_SCHEMA_VERSION) {
          throw new VaultError(
            "migration_failed",
            `vault: schema ${schema} is at version ${at}, newer than this package (${VAULT_SCHEMA_VERSION})`,
          );
        }
        return;
      } finally {
        await client.query("SELECT pg_advisory_unlock($1::bigint)", [lockKey("toolwright-vault-migrate", schema)]).catch(() => undefined);
      }
    } catch (error) {
      last = error;
      if (error instanceof VaultError) throw error;
      const code = String((error as { code?: unknown })?.code ?? "");
      if (!TRANSIENT.has(code)) break;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt * (0.5 + Math.random())));
    } finally {
      client?.release();
    }
  }
  throw new VaultError("migration_failed", `vault: could not migrate schema ${schema}: ${(last as Error)?.message ?? String(last)}`);
}
