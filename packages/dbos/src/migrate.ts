/**
 * Creates and migrates the DBOS system database once, however many workers start together: a
 * PostgreSQL advisory lock on the maintenance database serializes them, and a bounded retry with
 * backoff covers what the lock cannot (deadlocks, a database another worker just created).
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";

/** SQL for Toolwright's own table: one row per worker process, its heartbeat and whether it was taken over. */
export const WORKERS_TABLE_SQL = `
CREATE SCHEMA IF NOT EXISTS toolwright;
CREATE TABLE IF NOT EXISTS toolwright.workers (
  app_name text NOT NULL,
  executor_id text NOT NULL,
  app_version text NOT NULL,
  pid integer,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  state text NOT NULL DEFAULT 'alive',
  taken_over_by text,
  taken_over_at timestamptz,
  recovered integer,
  PRIMARY KEY (app_name, executor_id)
);`;

/** Errors that a concurrent migration can raise and a later attempt gets past. */
const TRANSIENT = new Set(["40P01", "40001", "42P04", "23505", "42P07", "42710", "57P03", "08006", "08001", "ECONNREFUSED"]);

function codeOf(error: unknown): string {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  return String(e?.code ?? e?.cause?.code ?? "");
}

/** The same server's maintenance database (`postgres`), where the lock lives even before the system database exists. */
function maintenanceUrl(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = "/postgres";
  return parsed.toString();
}

const LOCK_KEY = 7_468_574_383; // "toolwright" migrations

/** Options of `migrateSystemDatabase`. */
export interface MigrateOptions {
  /** Attempts before giving up. Default 8. */
  readonly attempts?: number;
  /** First backoff in ms, doubled per attempt with jitter. Default 100. */
  readonly baseDelayMs?: number;
}

/**
 * Creates and migrates the DBOS system database at `url` and Toolwright's workers table.
 * Safe to call from many processes at once. Throws after the last attempt, naming the database.
 */
export async function migrateSystemDatabase(url: string, options: MigrateOptions = {}): Promise<void> {
  const attempts = options.attempts ?? 8;
  const base = options.baseDelayMs ?? 100;
  let last: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const lock = new pg.Client({ connectionString: maintenanceUrl(url) });
    let locked = false;
    try {
      await lock.connect().then(
        async () => {
          await lock.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
          locked = true;
        },
        () => undefined, // no maintenance database to lock on: rely on the retries
      );
      await DBOS.migrate(url);
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        await db.query(WORKERS_TABLE_SQL);
      } finally {
        await db.end();
      }
      return;
    } catch (error) {
      last = error;
      if (!TRANSIENT.has(codeOf(error)) && !/deadlock|already exists|duplicate key/i.test(String((error as Error)?.message))) break;
      await new Promise((resolve) => setTimeout(resolve, base * 2 ** attempt * (0.5 + Math.random())));
    } finally {
      if (locked) await lock.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
      await lock.end().catch(() => undefined);
    }
  }
  const where = new URL(url);
  throw new Error(
    `toolwright/dbos: could not migrate the system database ${where.pathname.slice(1)} on ${where.host}: ${(last as Error)?.message ?? String(last)}`,
  );
}
