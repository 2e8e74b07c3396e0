/**
 * The lock file `toolwright pull` writes (`<design>.lock.json`, read by `resolve/lock.ts`):
 * `{ version: 1, servers: { <name>: { fingerprint, fingerprints: { <tool>: fp }, instructions, serverInfo?, tools: [...] } } }`.
 * The server fingerprint covers every tool entry (all fields but `icons`) and the instructions;
 * `instructions` is `null` when the server sent none (a lock without the field predates them: not checked).
 * Tools are sorted by name, every object's keys are sorted, and the text ends with a newline, so the
 * same catalogue always gives the same bytes. Fingerprints come from `@toolwright/runtime` so the
 * runtime drift check computes exactly the same values.
 */
import { fingerprintCatalogue } from "@toolwright/runtime/catalogue";
import type { LockedServer } from "../resolve/lock.js";

/** A server entry as pull writes it (a `LockedServer` with per-tool fingerprints). */
export interface PulledServer extends LockedServer {
  readonly fingerprint: string;
  readonly fingerprints: { readonly [tool: string]: string };
  readonly tools: readonly { readonly name: string; readonly [key: string]: unknown }[];
  /** `serverInfo` from the handshake, for humans reading the lock; not part of any fingerprint. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const obj = value as { readonly [key: string]: unknown };
  const out: { [key: string]: unknown } = {};
  for (const key of Object.keys(obj).sort()) if (obj[key] !== undefined) out[key] = sortKeys(obj[key]);
  return out;
}

/**
 * Checks one `tools/list` answer and builds its lock entry. Throws a plain message naming the
 * offending entry when the listing is not a usable catalogue (no name, no object input schema,
 * duplicate names).
 */
export function lockEntryFromListing(listed: readonly unknown[], instructions: string | null = null): PulledServer {
  const seen = new Set<string>();
  const tools = listed.map((entry, i) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw new Error(`tools[${i}] is not an object`);
    const e = entry as { readonly [key: string]: unknown };
    if (typeof e.name !== "string" || e.name === "") throw new Error(`tools[${i}] has no name`);
    const at = `tool ${JSON.stringify(e.name)}`;
    if (seen.has(e.name)) throw new Error(`${at} is listed twice`);
    seen.add(e.name);
    const input = e.inputSchema as { type?: unknown } | undefined;
    if (typeof input !== "object" || input === null || Array.isArray(input)) throw new Error(`${at} has no inputSchema object`);
    if (input.type !== "object") throw new Error(`${at}: inputSchema must have type "object"`);
    if (e.outputSchema !== undefined && (typeof e.outputSchema !== "object" || e.outputSchema === null)) {
      throw new Error(`${at}: outputSchema is not an object`);
    }
    return sortKeys(e) as { readonly name: string; readonly [key: string]: unknown };
  });
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const { fingerprint, tools: fingerprints } = fingerprintCatalogue(tools, instructions === null ? {} : { instructions });
  return { fingerprint, fingerprints, tools, instructions };
}

/** The lock text: servers sorted by name, keys sorted, two-space indent, final newline. */
export function serializeLock(servers: { readonly [name: string]: LockedServer }): string {
  return `${JSON.stringify(sortKeys({ version: 1, servers }), null, 2)}\n`;
}
