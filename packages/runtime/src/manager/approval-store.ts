/**
 * Trust on first use for the manager: a small file next to `mcp.json` (`mcp-approvals.json`)
 * records the fingerprint a person approved for each server's tools. A tool whose fingerprint no
 * longer matches is held back from the model until it is approved again; a tool never seen is
 * approved on first use (`newTools: "allow"`) or held back too (`"hold"`).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fingerprintTool } from "../catalogue/fingerprint.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import { writeFileSafe } from "./safe-write.js";

/** What happens to a tool the store has never seen: approved on first use and recorded, or held back. */
export type NewToolPolicy = "allow" | "hold";

/** A tool kept from the model, and why. */
export interface HeldTool {
  readonly server: string;
  readonly name: string;
  /** `changed`: its fingerprint differs from the approved one; `new`: never approved (policy `hold`). */
  readonly reason: "changed" | "new";
  readonly fingerprint: string;
  readonly approved?: string;
}

/** The store: approved fingerprints per server and tool. Maps are prototype-free. */
export interface ApprovalStore {
  readonly path: string;
  readonly newTools: NewToolPolicy;
  /** The approved fingerprint, if any. */
  approved(server: string, tool: string): string | undefined;
  /** Records approvals and writes the file (sorted, so it diffs cleanly). */
  approve(server: string, tools: readonly { readonly name: string; readonly fingerprint: string }[]): void;
  /** Splits a listing into what may reach the model and what is held back (recording first-use approvals under `allow`). */
  gate(server: string, tools: readonly ToolDescriptor[]): { readonly allowed: ToolDescriptor[]; readonly held: HeldTool[] };
  /** Re-reads the file (after `toolwright approve` changed it). */
  reload(): void;
}

/** Options for `createApprovalStore`. */
export interface ApprovalStoreOptions {
  /** The store file. `approvalsPathFor(config)` gives the default next to the project's mcp.json. */
  readonly path: string;
  /** Default `allow` (trust on first use). */
  readonly newTools?: NewToolPolicy;
}

type Servers = Map<string, Map<string, string>>;

/** The store file beside an mcp.json: `<dir>/mcp-approvals.json`. */
export function approvalsPathFor(mcpJsonPath: string): string {
  return join(dirname(mcpJsonPath), "mcp-approvals.json");
}

/** Reads the store file; a missing file is empty. Throws a message naming the file and the bad field. */
export function readApprovals(path: string): Servers {
  const servers: Servers = new Map();
  if (!existsSync(path)) return servers;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`${path}: not valid JSON (${(error as Error).message})`);
  }
  const root = parsed as { version?: unknown; servers?: unknown };
  if (typeof root !== "object" || root === null || root.version !== 1 || typeof root.servers !== "object" || root.servers === null) {
    throw new Error(`${path}: not a version 1 approval store ({ "version": 1, "servers": { ... } })`);
  }
  for (const [server, tools] of Object.entries(root.servers as object)) {
    if (typeof tools !== "object" || tools === null || Array.isArray(tools))
      throw new Error(`${path}: /servers/${server} must be an object`);
    const map = new Map<string, string>();
    for (const [tool, print] of Object.entries(tools as object)) {
      if (typeof print !== "string" || !/^sha256:[0-9a-f]{64}$/.test(print)) {
        throw new Error(`${path}: /servers/${server}/${tool} must be a sha256:<64 hex> fingerprint`);
      }
      map.set(tool, print);
    }
    servers.set(server, map);
  }
  return servers;
}

function serialize(servers: Servers): string {
  const out: { [server: string]: { [tool: string]: string } } = Object.create(null);
  for (const server of [...servers.keys()].sort()) {
    const tools: { [tool: string]: string } = Object.create(null);
    const map = servers.get(server) as Map<string, string>;
    for (const tool of [...map.keys()].sort()) tools[tool] = map.get(tool) as string;
    out[server] = tools;
  }
  return `${JSON.stringify({ version: 1, servers: out }, null, 2)}\n`;
}

function writeAtomic(path: string, text: string): void {
  writeFileSafe(path, text, { mode: 0o600 });
}

/** One server's listing split by the trust-on-first-use rule (`splitByApproval`). */
export interface ApprovalSplit {
  /** What may reach the model. */
  readonly allowed: ToolDescriptor[];
  /** Changed tools, and new ones under `newTools: "hold"`. */
  readonly held: HeldTool[];
  /** New tools approved by this listing (`newTools: "allow"`): the store records them. */
  readonly firstUse: { readonly name: string; readonly fingerprint: string }[];
}

/**
 * The trust-on-first-use rule, once for every approval store (this file store and the vault's
 * per-principal rows): an approved fingerprint passes, a changed one is held, a new tool is
 * approved on first use or held. `approvedOf` reads the store's approved fingerprint of a tool.
 */
export function splitByApproval(
  server: string,
  tools: readonly ToolDescriptor[],
  approvedOf: (tool: string) => string | undefined,
  newTools: NewToolPolicy,
): ApprovalSplit {
  const allowed: ToolDescriptor[] = [];
  const held: HeldTool[] = [];
  const firstUse: { name: string; fingerprint: string }[] = [];
  for (const tool of tools) {
    const fingerprint = fingerprintTool(tool);
    const approved = approvedOf(tool.name);
    if (approved === fingerprint) allowed.push(tool);
    else if (approved !== undefined) held.push({ server, name: tool.name, reason: "changed", fingerprint, approved });
    else if (newTools === "hold") held.push({ server, name: tool.name, reason: "new", fingerprint });
    else {
      allowed.push(tool);
      firstUse.push({ name: tool.name, fingerprint });
    }
  }
  return { allowed, held, firstUse };
}

/** Opens (or starts) a store. Throws when the file exists but is malformed. */
export function createApprovalStore(options: ApprovalStoreOptions): ApprovalStore {
  const { path } = options;
  const newTools = options.newTools ?? "allow";
  let servers = readApprovals(path);

  function approve(server: string, tools: readonly { readonly name: string; readonly fingerprint: string }[]): void {
    if (tools.length === 0) return;
    const map = servers.get(server) ?? new Map<string, string>();
    for (const t of tools) map.set(t.name, t.fingerprint);
    servers.set(server, map);
    writeAtomic(path, serialize(servers));
  }

  return {
    path,
    newTools,
    approved: (server, tool) => servers.get(server)?.get(tool),
    approve,
    gate(server, tools) {
      const known = servers.get(server);
      const { allowed, held, firstUse } = splitByApproval(server, tools, (name) => known?.get(name), newTools);
      approve(server, firstUse);
      return { allowed, held };
    },
    reload() {
      servers = readApprovals(path);
    },
  };
}
