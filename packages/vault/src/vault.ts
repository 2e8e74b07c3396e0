/**
 * `createPostgresVault`: the vault's front door. It migrates its schema (advisory-locked, safe from
 * many workers), keeps two pools (reads and writes; refresh locks), and hands out per-principal
 * token stores and approvals.
 */
import type { TokenStore } from "@toolwright/runtime/auth";
import type { Principal } from "@toolwright/runtime/caller";
import pg from "pg";
import {
  type PrincipalApprovals,
  type PrincipalApprovalsOptions,
  principalApprovals,
  type VaultApprovalStore,
  type VaultApprovalStoreOptions,
  vaultApprovalStore,
} from "./approvals.js";
import { createKeyRing, VaultError, type VaultKey } from "./crypto.js";
import { type RotateOptions, type RotationReport, rotateKeys } from "./rotate.js";
import { checkSchemaName, migrateVault } from "./schema.js";
import { checkPrincipal, principalTokenStore, type VaultContext } from "./token-store.js";

/** Options of `createPostgresVault`. Give `pool` or `connectionString`. */
export interface PostgresVaultOptions {
  /** Your `pg` pool (the vault does not end it on `close()`). */
  readonly pool?: pg.Pool;
  /** Or a connection string; the vault makes and ends its own pool. */
  readonly connectionString?: string;
  /**
   * The encryption keys, 32 bytes each (raw or base64): the first encrypts, all decrypt. To rotate,
   * put a new key first, keep the old ones, call `rotate()`, then drop the old ones.
   */
  readonly keys: readonly VaultKey[];
  /** The PostgreSQL schema of the vault's tables. Default `toolwright_vault`. */
  readonly schema?: string;
  /** Connections reserved for refresh locks (a refresh waiting on another worker holds one). Default 4. */
  readonly lockConnections?: number;
  /** Size of the pool the vault makes from `connectionString`. Default 10. */
  readonly maxConnections?: number;
}

/** A principal as the runtime passes it (`{ id }`, only the id counts) or its id. */
export type PrincipalRef = string | Principal;

/** The id of a principal reference (checked by the stores). */
const idOf = (principal: PrincipalRef): string => (typeof principal === "string" ? principal : principal?.id);

/** A token vault on PostgreSQL shared by every worker of an application. */
export interface PostgresVault {
  /** The schema the tables live in. */
  readonly schema: string;
  /** The runtime `TokenStore` of one principal (pass it as `createOAuthProvider({ store })`). */
  tokenStore(principal: PrincipalRef): TokenStore;
  /** One principal's tool approvals, read and written in the database on every call. */
  approvals(principal: PrincipalRef, options?: PrincipalApprovalsOptions): PrincipalApprovals;
  /**
   * One principal's approvals as the manager's synchronous `ApprovalStore` (for `approvalsFor`):
   * read once, written through in order; `flush()` waits for the writes.
   */
  approvalStore(principal: PrincipalRef, options?: VaultApprovalStoreOptions): Promise<VaultApprovalStore>;
  /** The resources whose grant the authorization server refused (invalid_grant): the principal must authorize again. */
  needsReauthorization(principal: PrincipalRef): Promise<string[]>;
  /** Re-encrypts rows under older keys with the active key, in batches. */
  rotate(options?: RotateOptions): Promise<RotationReport>;
  /** Ends the vault's own pools (not a pool you passed in). */
  close(): Promise<void>;
}

function ownPool(options: PostgresVaultOptions): pg.Pool {
  if (typeof options.connectionString !== "string" || options.connectionString === "") {
    throw new VaultError("bad_option", "createPostgresVault: give `pool` or `connectionString`");
  }
  return new pg.Pool({ connectionString: options.connectionString, max: options.maxConnections ?? 10 });
}

function count(value: number | undefined, fallback: number, name: string): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new VaultError("bad_option", `createPostgresVault: ${name} must be an integer from 1 to 1000`);
  return n;
}

/**
 * Opens the vault: checks the options and keys, creates or upgrades the tables, and returns it.
 * Throws a `VaultError` naming the bad option, key or schema (never a key's bytes).
 */
export async function createPostgresVault(options: PostgresVaultOptions): Promise<PostgresVault> {
  const keys = createKeyRing(options.keys);
  const schema = checkSchemaName(options.schema ?? "toolwright_vault");
  const lockConnections = count(options.lockConnections, 4, "lockConnections");
  const pool = options.pool ?? ownPool(options);
  // The lock pool connects where the main pool does (the caller's pool's own settings, or ours).
  const lockPool = new pg.Pool({ ...pool.options, max: lockConnections });
  // Registration locks are rare (an AS that forgot the client) and serialized per issuer: two connections.
  const registerPool = new pg.Pool({ ...pool.options, max: 2 });
  // An idle client that loses its connection emits 'error' on the pool; without a listener that ends the process.
  lockPool.on("error", () => undefined);
  registerPool.on("error", () => undefined);
  if (!options.pool) pool.on("error", () => undefined);
  try {
    await migrateVault(pool, schema);
  } catch (error) {
    await lockPool.end().catch(() => undefined);
    await registerPool.end().catch(() => undefined);
    if (!options.pool) await pool.end().catch(() => undefined);
    throw error;
  }
  const ctx: VaultContext = { pool, lockPool, registerPool, schema, keys };
  let closed = false;
  return {
    schema,
    tokenStore: (principal) => principalTokenStore(ctx, idOf(principal)),
    approvals: (principal, approvalOptions) => principalApprovals(pool, schema, idOf(principal), approvalOptions),
    approvalStore: (principal, storeOptions) => vaultApprovalStore(pool, schema, idOf(principal), storeOptions),
    async needsReauthorization(principal) {
      const { rows } = await pool.query<{ resource: string }>(
        `SELECT resource FROM ${schema}.tokens WHERE principal = $1 AND state = 'reauthorize' ORDER BY resource`,
        [checkPrincipal(idOf(principal))],
      );
      return rows.map((r) => r.resource);
    },
    rotate: (rotateOptions) => rotateKeys(ctx, rotateOptions),
    async close() {
      if (closed) return;
      closed = true;
      await lockPool.end();
      await registerPool.end();
      if (!options.pool) await pool.end();
    },
  };
}
