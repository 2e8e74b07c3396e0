/**
 * Key rotation: rows sealed with an older key are opened with it and sealed again with the active
 * key, a batch per transaction. `FOR UPDATE SKIP LOCKED` lets several workers rotate at once, and a
 * refresh in progress is never blocked by a rotation (its row is skipped, and picked up by a later
 * batch or a later `rotate()`).
 */
import type pg from "pg";
import { clientAad, clientWhere, tokenAad, tokenWhere } from "./crypto.js";
import type { VaultContext } from "./token-store.js";

/** What `rotate()` did. */
export interface RotationReport {
  /** Token rows re-encrypted with the active key. */
  readonly tokens: number;
  /** Client registrations re-encrypted. */
  readonly clients: number;
  /** Transactions used. */
  readonly batches: number;
  /** Rows still under an older key (locked by a refresh while this ran): run `rotate()` again. */
  readonly remaining: number;
}

/** Options of `rotate()`. */
export interface RotateOptions {
  /** Rows per transaction. Default 200. */
  readonly batchSize?: number;
}

interface Table {
  readonly name: "tokens" | "clients";
  readonly keyColumns: readonly string[];
  readonly aad: (row: { [column: string]: string }) => string;
  readonly where: (row: { [column: string]: string }) => string;
}

const TABLES: readonly Table[] = [
  {
    name: "tokens",
    keyColumns: ["principal", "resource"],
    aad: (r) => tokenAad(r.principal as string, r.resource as string),
    where: (r) => tokenWhere(r.principal as string, r.resource as string),
  },
  { name: "clients", keyColumns: ["issuer"], aad: (r) => clientAad(r.issuer as string), where: (r) => clientWhere(r.issuer as string) },
];

/** Re-encrypts one batch of `table`; returns how many rows it changed. */
async function rotateBatch(db: pg.PoolClient, ctx: VaultContext, table: Table, size: number): Promise<number> {
  const keys = table.keyColumns.join(", ");
  await db.query("BEGIN");
  try {
    const { rows } = await db.query<{ [column: string]: string } & { key_id: string; sealed: Buffer }>(
      `SELECT ${keys}, key_id, sealed FROM ${ctx.schema}.${table.name}
       WHERE key_id IS NOT NULL AND key_id <> $1 ORDER BY ${keys} LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [ctx.keys.activeId, size],
    );
    for (const row of rows) {
      const aad = table.aad(row);
      const { keyId, sealed } = ctx.keys.seal(ctx.keys.open(row.key_id, row.sealed, aad, table.where(row)), aad);
      const match = table.keyColumns.map((c, i) => `${c} = $${i + 3}`).join(" AND ");
      await db.query(`UPDATE ${ctx.schema}.${table.name} SET key_id = $1, sealed = $2 WHERE ${match}`, [
        keyId,
        sealed,
        ...table.keyColumns.map((c) => row[c]),
      ]);
    }
    await db.query("COMMIT");
    return rows.length;
  } catch (error) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Re-encrypts every row under an older key with the active key, in batches. Throws naming the row whose key is missing or wrong. */
export async function rotateKeys(ctx: VaultContext, options: RotateOptions = {}): Promise<RotationReport> {
  const size = options.batchSize ?? 200;
  if (!Number.isInteger(size) || size < 1 || size > 10_000)
    throw new TypeError("vault rotate: batchSize must be an integer from 1 to 10000");
  const done = { tokens: 0, clients: 0 };
  let batches = 0;
  const db = await ctx.pool.connect();
  try {
    for (const table of TABLES) {
      // Bounded: each batch either changes rows (finitely many) or ends the loop.
      for (;;) {
        const changed = await rotateBatch(db, ctx, table, size);
        batches++;
        done[table.name] += changed;
        if (changed < size) break;
      }
    }
    const { rows } = await db.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM ${ctx.schema}.tokens WHERE key_id <> $1) + (SELECT count(*) FROM ${ctx.schema}.clients WHERE key_id <> $1) AS n`,
      [ctx.keys.activeId],
    );
    return { ...done, batches, remaining: Number(rows[0]?.n ?? 0) };
  } finally {
    db.release();
  }
}
