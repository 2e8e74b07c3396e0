/**
 * Per-principal tool approvals in the vault's database: the same trust-on-first-use rule as the
 * manager's file store (`createApprovalStore`: a changed fingerprint is held back, a new tool is
 * approved on first use or held), but each principal approves for themself and every worker reads
 * the same rows. Fingerprints are not secret, so these rows are not encrypted.
 */
import { type ApprovalStore, type HeldTool, type NewToolPolicy, splitByApproval } from "@toolwright/runtime/manager";
import type { ToolDescriptor } from "@toolwright/runtime/protocol";
import type pg from "pg";
import { checkPrincipal } from "./token-store.js";

/** One principal's approvals. Every method reads or writes the database (no cache: other workers approve too). */
export interface PrincipalApprovals {
  readonly principal: string;
  readonly newTools: NewToolPolicy;
  /** The approved fingerprint of a server's tool, if any. */
  approved(server: string, tool: string): Promise<string | undefined>;
  /** Records approvals (a later approval of the same tool replaces the fingerprint). */
  approve(server: string, tools: readonly { readonly name: string; readonly fingerprint: string }[]): Promise<void>;
  /** Splits a listing into what may reach the model and what is held back (recording first-use approvals under `allow`). */
  gate(server: string, tools: readonly ToolDescriptor[]): Promise<{ readonly allowed: ToolDescriptor[]; readonly held: HeldTool[] }>;
}

/** Options of `vault.approvals(principal, options)`. */
export interface PrincipalApprovalsOptions {
  /** Default `allow` (trust on first use). */
  readonly newTools?: NewToolPolicy;
}

/** Reads an approved fingerprint from one server's rows (the rule itself is the runtime's `splitByApproval`). */
const approvedOf =
  (known: ReadonlyMap<string, string> | undefined) =>
  (tool: string): string | undefined =>
    known?.get(tool);

/** The approvals of one principal in `schema`. */
export function principalApprovals(
  pool: pg.Pool,
  schema: string,
  principal: string,
  options: PrincipalApprovalsOptions = {},
): PrincipalApprovals {
  const who = checkPrincipal(principal);
  const newTools = options.newTools ?? "allow";
  if (newTools !== "allow" && newTools !== "hold") throw new TypeError(`vault approvals: newTools must be "allow" or "hold"`);

  async function approve(server: string, tools: readonly { readonly name: string; readonly fingerprint: string }[]): Promise<void> {
    if (tools.length === 0) return;
    // One statement for the batch: unnest keeps it a single round trip whatever the listing's size.
    await pool.query(
      `INSERT INTO ${schema}.approvals (principal, server, tool, fingerprint, approved_at)
       SELECT $1, $2, t.tool, t.fingerprint, now() FROM unnest($3::text[], $4::text[]) AS t(tool, fingerprint)
       ON CONFLICT (principal, server, tool) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, approved_at = now()`,
      [who, server, tools.map((t) => t.name), tools.map((t) => t.fingerprint)],
    );
  }

  async function approvedMap(server: string): Promise<Map<string, string>> {
    const { rows } = await pool.query<{ tool: string; fingerprint: string }>(
      `SELECT tool, fingerprint FROM ${schema}.approvals WHERE principal = $1 AND server = $2`,
      [who, server],
    );
    return new Map(rows.map((r) => [r.tool, r.fingerprint]));
  }

  return {
    principal: who,
    newTools,
    async approved(server, tool) {
      const { rows } = await pool.query<{ fingerprint: string }>(
        `SELECT fingerprint FROM ${schema}.approvals WHERE principal = $1 AND server = $2 AND tool = $3`,
        [who, server, tool],
      );
      return rows[0]?.fingerprint;
    },
    approve,
    async gate(server, tools) {
      const { allowed, held, firstUse } = splitByApproval(server, tools, approvedOf(await approvedMap(server)), newTools);
      await approve(server, firstUse);
      return { allowed, held };
    },
  };
}

/** The manager's `ApprovalStore` for one principal, backed by the vault, plus a way to wait for its writes. */
export interface VaultApprovalStore extends ApprovalStore {
  /** Resolves when every approval recorded so far is in the database (rejects with the first write error). */
  flush(): Promise<void>;
}

/** Options of `vault.approvalStore(principal, options)`. */
export interface VaultApprovalStoreOptions extends PrincipalApprovalsOptions {
  /** Told about a write or reload that failed (the message names the schema, never a fingerprint's owner). */
  readonly onError?: (error: Error) => void;
}

/**
 * The manager's synchronous `ApprovalStore` (what `McpManagerOptions.approvals` and a principal
 * manager's `approvalsFor` take) for one principal: the principal's rows are read once, gate and
 * approve work on that copy, and each approval is written through to the database in order.
 * `reload()` re-reads in the background (another worker approved something).
 */
export async function vaultApprovalStore(
  pool: pg.Pool,
  schema: string,
  principal: string,
  options: VaultApprovalStoreOptions = {},
): Promise<VaultApprovalStore> {
  const rows = principalApprovals(pool, schema, principal, options);
  const servers = new Map<string, Map<string, string>>();
  async function read(): Promise<void> {
    const { rows: all } = await pool.query<{ server: string; tool: string; fingerprint: string }>(
      `SELECT server, tool, fingerprint FROM ${schema}.approvals WHERE principal = $1`,
      [rows.principal],
    );
    servers.clear();
    for (const r of all) servers.set(r.server, (servers.get(r.server) ?? new Map()).set(r.tool, r.fingerprint));
  }
  await read();
  let writes: Promise<void> = Promise.resolve();
  let firstError: Error | undefined;
  const failed = (error: unknown) => {
    const e = new Error(`vault approvals (schema ${schema}): ${(error as Error)?.message ?? String(error)}`);
    firstError ??= e;
    options.onError?.(e);
  };
  function approve(server: string, tools: readonly { readonly name: string; readonly fingerprint: string }[]): void {
    if (tools.length === 0) return;
    const map = servers.get(server) ?? new Map<string, string>();
    for (const t of tools) map.set(t.name, t.fingerprint);
    servers.set(server, map);
    const batch = tools.map((t) => ({ name: t.name, fingerprint: t.fingerprint }));
    writes = writes.then(() => rows.approve(server, batch)).catch(failed);
  }
  return {
    path: `postgresql:${schema}.approvals`,
    newTools: rows.newTools,
    approved: (server, tool) => servers.get(server)?.get(tool),
    approve,
    gate(server, tools) {
      const { allowed, held, firstUse } = splitByApproval(server, tools, approvedOf(servers.get(server)), rows.newTools);
      approve(server, firstUse);
      return { allowed, held };
    },
    reload() {
      writes = writes.then(read).catch(failed);
    },
    async flush() {
      await writes;
      if (firstError) throw firstError;
    },
  };
}
