/**
 * The lock file `toolwright pull` writes (`<design>.lock.json`, read by `resolve/lock.ts`):
 * `{ version: 1, servers: { <name>: { fingerprint, fingerprints: { <tool>: fp }, instructions, serverInfo?, tools: [...],
 * prompts?, resources?, resourceTemplates? } } }` (each of the last three only when the server announces it).
 * The server fingerprint covers every tool, prompt, resource and template entry (all fields but `icons`) and the instructions;
 * `instructions` is `null` when the server sent none (a lock without the field predates them: not checked).
 * Tools are sorted by name, every object's keys are sorted, and the text ends with a newline, so the
 * same catalogue always gives the same bytes. Fingerprints come from `@toolwright/runtime` so the
 * runtime drift check computes exactly the same values.
 */
import { fingerprintCatalogue } from "@toolwright/runtime/catalogue";
import type { LockedServer } from "../resolve/lock.js";
import { checkLockedSurface } from "../resolve/lock-surface.js";

/** What a server offers besides tools, as listed (a list is absent when the server does not announce it). */
export interface ListedSurface {
  readonly prompts?: readonly unknown[];
  readonly resources?: readonly unknown[];
  readonly resourceTemplates?: readonly unknown[];
}

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
export function lockEntryFromListing(
  listed: readonly unknown[],
  instructions: string | null = null,
  surface: ListedSurface = {},
): PulledServer {
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
  const problem = checkLockedSurface(surface as { readonly [list: string]: unknown });
  if (problem) throw new Error(problem);
  const sorted = <T>(list: readonly unknown[] | undefined, key: string) =>
    list === undefined
      ? undefined
      : ((list.map(sortKeys) as { [field: string]: string }[]).sort((a, b) =>
          a[key]! < b[key]! ? -1 : a[key]! > b[key]! ? 1 : 0,
        ) as unknown as T);
  const extras = {
    prompts: sorted<PulledServer["prompts"]>(surface.prompts, "name"),
    resources: sorted<PulledServer["resources"]>(surface.resources, "uri"),
    resourceTemplates: sorted<PulledServer["resourceTemplates"]>(surface.resourceTemplates, "uriTemplate"),
  };
  const { fingerprint, tools: fingerprints } = fingerprintCatalogue(tools, {
    ...(instructions === null ? {} : { instructions }),
    ...extras,
  });
  return {
    fingerprint,
    fingerprints,
    tools,
    instructions,
    ...(extras.prompts ? { prompts: extras.prompts } : {}),
    ...(extras.resources ? { resources: extras.resources } : {}),
    ...(extras.resourceTemplates ? { resourceTemplates: extras.resourceTemplates } : {}),
  };
}

/** The lock text: servers sorted by name, keys sorted, two-space indent, final newline. */
export function serializeLock(servers: { readonly [name: string]: LockedServer }): string {
  return `${JSON.stringify(sortKeys({ version: 1, servers }), null, 2)}\n`;
}
