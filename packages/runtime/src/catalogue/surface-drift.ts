/**
 * Drift of what a server offers besides tools: its prompts (by name), resources (by URI) and
 * resource templates (by URI template), compared by fingerprint with what `toolwright pull`
 * recorded, field by field when the pulled entry is known. Shared by `checkDrift` (live, at
 * connect time) and `toolwright pull --check` (live against the lock file).
 */
import type { CallOptions } from "../caller/call-options.js";
import type { Caller } from "../caller/caller.js";
import type { McpSurface } from "../caller/surface.js";
import type { ToolFailure } from "../failure/failure.js";
import { describeFieldChange, diffEntries, type FieldChange } from "./catalogue-diff.js";
import { fingerprintEntry } from "./fingerprint.js";

/** The three lists a pull records besides tools. */
export type SurfaceKind = "prompt" | "resource" | "resourceTemplate";

/** One prompt, resource or template that differs from the lock. */
export interface SurfaceDrift {
  readonly kind: SurfaceKind;
  /** The prompt's name, the resource's URI or the template's URI template. */
  readonly item: string;
  readonly change: "added" | "removed" | "changed";
  readonly expected?: string;
  readonly actual?: string;
  /** For `changed`, when the pulled entry is known: each changed field with its old and new text. */
  readonly fields?: readonly FieldChange[];
}

/** Pulled fingerprints per list (absent: the lock has no such section, not checked) and the pulled entries. */
export interface ExpectedSurface {
  readonly prompts?: { readonly [name: string]: string };
  readonly resources?: { readonly [uri: string]: string };
  readonly resourceTemplates?: { readonly [uriTemplate: string]: string };
  readonly snapshots?: {
    readonly prompts?: { readonly [name: string]: unknown };
    readonly resources?: { readonly [uri: string]: unknown };
    readonly resourceTemplates?: { readonly [uriTemplate: string]: unknown };
  };
}

/** Live entries of the three lists (absent: not listed). */
export interface LiveSurface {
  readonly prompts?: readonly { readonly [field: string]: unknown }[];
  readonly resources?: readonly { readonly [field: string]: unknown }[];
  readonly resourceTemplates?: readonly { readonly [field: string]: unknown }[];
}

const SECTIONS = [
  { kind: "prompt", list: "prompts", key: "name", method: "listPrompts", capability: "prompts" },
  { kind: "resource", list: "resources", key: "uri", method: "listResources", capability: "resources" },
  { kind: "resourceTemplate", list: "resourceTemplates", key: "uriTemplate", method: "listResourceTemplates", capability: "resources" },
] as const;

const LABEL: { readonly [K in SurfaceKind]: string } = { prompt: "prompt", resource: "resource", resourceTemplate: "resource template" };

/** Compares live entries with pulled fingerprints, per list present in `expected`, sorted by list then item. */
export function compareSurface(expected: ExpectedSurface, live: LiveSurface): SurfaceDrift[] {
  const out: SurfaceDrift[] = [];
  for (const s of SECTIONS) {
    const pinned = expected[s.list];
    if (!pinned) continue;
    const entries = new Map<string, { readonly [field: string]: unknown }>();
    for (const e of live[s.list] ?? []) if (typeof e[s.key] === "string") entries.set(e[s.key] as string, e);
    const before = expected.snapshots?.[s.list];
    const items = [...new Set([...Object.keys(pinned), ...entries.keys()])].sort();
    for (const item of items) {
      const e = Object.hasOwn(pinned, item) ? pinned[item] : undefined;
      const entry = entries.get(item);
      const a = entry ? fingerprintEntry(entry) : undefined;
      if (e === a) continue;
      if (e === undefined) out.push({ kind: s.kind, item, change: "added", actual: a as string });
      else if (a === undefined) out.push({ kind: s.kind, item, change: "removed", expected: e });
      else {
        const fields = before && Object.hasOwn(before, item) ? { fields: diffEntries(before[item], entry) } : {};
        out.push({ kind: s.kind, item, change: "changed", expected: e, actual: a, ...fields });
      }
    }
  }
  return out;
}

/** One line naming the server and the item: `server "x": prompt "p" changed since the pull (description: ...)`. */
export function describeSurfaceDrift(server: string, d: SurfaceDrift): string {
  const what = `server "${server}": ${LABEL[d.kind]} "${d.item}"`;
  if (d.change === "added") return `${what} is live but not in the lock (added since the pull)`;
  if (d.change === "removed") return `${what} is in the lock but the server no longer lists it (removed)`;
  const fields = d.fields?.length ? d.fields.map(describeFieldChange).join("; ") : "its listed entry differs";
  return `${what} changed since the pull (${fields}); run toolwright pull`;
}

/** The short form for one-line summaries: `prompt "p" (changed)`. */
export function surfaceDriftLabel(d: SurfaceDrift): string {
  return `${LABEL[d.kind]} "${d.item}" (${d.change})`;
}

/**
 * Lists the lists `expected` pins through `caller` (every page, fresh). A server that does not
 * announce the capability offers none (an empty list, so pinned items show as removed).
 */
export async function listSurface(
  caller: Caller &
    Partial<McpSurface> & { readonly handshake?: { readonly capabilities?: { readonly [key: string]: unknown } } | undefined },
  expected: ExpectedSurface,
  options: CallOptions,
): Promise<
  { readonly ok: true; readonly live: LiveSurface } | { readonly ok: false; readonly list: string; readonly failure?: ToolFailure }
> {
  const live: { [list: string]: readonly { readonly [field: string]: unknown }[] } = {};
  for (const s of SECTIONS) {
    if (!expected[s.list]) continue;
    const capabilities = caller.handshake?.capabilities;
    if (capabilities && !(s.capability in capabilities)) {
      live[s.list] = [];
      continue;
    }
    if (!caller[s.method]) return { ok: false, list: s.list };
    const listed: { readonly ok: true; readonly value: readonly unknown[] } | { readonly ok: false; readonly failure: ToolFailure } =
      s.method === "listPrompts"
        ? await caller.listPrompts!({ ...options, fresh: true })
        : s.method === "listResources"
          ? await caller.listResources!({ ...options, fresh: true })
          : await caller.listResourceTemplates!({ ...options, fresh: true });
    if (!listed.ok) return { ok: false, list: s.list, failure: listed.failure };
    live[s.list] = listed.value as readonly { readonly [field: string]: unknown }[];
  }
  return { ok: true, live };
}
