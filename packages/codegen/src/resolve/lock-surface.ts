/**
 * The prompts, resources and resource templates a lock records for a pulled server: checked field
 * by field (a bad entry is named by list, index and field), turned into the declarations the typed
 * readers are generated from, and fingerprinted for drift with the runtime's `fingerprintEntry`.
 */
import type { PromptDecl, ResourceDecl, ResourceTemplateDecl } from "@toolwright/dsl";
import { fingerprintEntry } from "@toolwright/runtime/catalogue";
import { templateVariables } from "@toolwright/runtime/protocol";
import type { IrSurfaceFingerprints } from "../ir/ir.js";
import type { SurfaceSource } from "./surface.js";

/** The lists a lock's server entry records besides tools (part of `LockedServer`). */
export interface LockedSurface {
  /** `prompts/list` entries, sorted by name; absent: the server offers no prompts, or a lock from before they were recorded. */
  readonly prompts?: readonly { readonly name: string; readonly [field: string]: unknown }[];
  /** `resources/list` entries, sorted by URI. */
  readonly resources?: readonly { readonly uri: string; readonly name: string; readonly [field: string]: unknown }[];
  /** `resources/templates/list` entries, sorted by URI template. */
  readonly resourceTemplates?: readonly { readonly uriTemplate: string; readonly name: string; readonly [field: string]: unknown }[];
}

type Entry = { readonly [field: string]: unknown };

/** The three lists, each with the field that identifies an entry (what drift and overrides match on). */
const LISTS = [
  { list: "prompts", key: "name" },
  { list: "resources", key: "uri" },
  { list: "resourceTemplates", key: "uriTemplate" },
] as const;

const isObject = (v: unknown): v is Entry => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The first problem with one entry, or undefined. A lock is a file users edit and commit: what it
 * says becomes generated method names and literals, so it is checked like any other input.
 */
function checkEntry(list: (typeof LISTS)[number]["list"], e: Entry, at: string): string | undefined {
  const text = (field: string, required: boolean) => {
    const v = e[field];
    if (v === undefined && !required) return undefined;
    return typeof v === "string" && (v !== "" || !required) ? undefined : `${at}.${field} must be a ${required ? "non-empty " : ""}string`;
  };
  const problems = [text("name", true), text("title", false), text("description", false)];
  if (list === "prompts") {
    const args = e.arguments;
    if (args !== undefined) {
      if (!Array.isArray(args)) return `${at}.arguments must be an array`;
      const names = new Set<string>();
      for (const [i, a] of args.entries()) {
        const where = `${at}.arguments[${i}]`;
        if (!isObject(a) || typeof a.name !== "string" || a.name === "") return `${where}.name must be a non-empty string`;
        // Arguments become the fields of one generated type: two of one name cannot both be fields.
        if (names.has(a.name)) return `${where}: argument ${JSON.stringify(a.name)} is listed twice`;
        names.add(a.name);
        if (a.required !== undefined && typeof a.required !== "boolean") return `${where}.required must be a boolean`;
        if (a.description !== undefined && typeof a.description !== "string") return `${where}.description must be a string`;
      }
    }
  } else {
    problems.push(text("mimeType", false));
    if (list === "resources") {
      // RFC 3986 §3.1: a scheme, then ":"; a relative URI cannot be read from a server.
      problems.unshift(
        typeof e.uri === "string" && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(e.uri) ? undefined : `${at}.uri must be an absolute URI`,
      );
    } else if (typeof e.uriTemplate !== "string" || !e.uriTemplate.includes("{")) {
      return `${at}.uriTemplate must be a URI template with {variables}`;
    } else {
      // Parsed with the runtime's RFC 6570 parser: the generated reader expands it with the same one.
      try {
        templateVariables(e.uriTemplate);
      } catch (error) {
        return `${at}.uriTemplate: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  }
  return problems.find((p) => p !== undefined);
}

/** The first problem with a server entry's `prompts`, `resources` or `resourceTemplates` (`prompts[2].name must be ...`), if any. */
export function checkLockedSurface(server: Entry): string | undefined {
  for (const { list, key } of LISTS) {
    const entries = server[list];
    if (entries === undefined) continue;
    if (!Array.isArray(entries)) return `${list} must be an array`;
    const seen = new Set<string>();
    for (const [i, e] of entries.entries()) {
      const at = `${list}[${i}]`;
      if (!isObject(e)) return `${at} is not an object`;
      const problem = checkEntry(list, e, at);
      if (problem) return problem;
      const id = e[key] as string;
      if (seen.has(id)) return `${at}: ${key} ${JSON.stringify(id)} is listed twice`;
      seen.add(id);
    }
  }
  return undefined;
}

/** `{ field }` when the entry has it as a string, else nothing (exactOptionalPropertyTypes: no `undefined` values). */
const optional = (e: Entry, field: string) => (typeof e[field] === "string" ? { [field]: e[field] as string } : {});

/** The declarations typed readers are generated from, and the per-item fingerprints (only for the lists the lock records). */
export function surfaceFromLock(entry: LockedSurface): {
  readonly surface: SurfaceSource;
  readonly fingerprints: IrSurfaceFingerprints | undefined;
} {
  const prompts: PromptDecl[] = (entry.prompts ?? []).map((p) => ({
    kind: "prompt",
    name: p.name,
    ...optional(p, "title"),
    ...optional(p, "description"),
    arguments: ((p.arguments ?? []) as readonly Entry[]).map((a) => ({
      name: a.name as string,
      ...optional(a, "description"),
      ...(typeof a.required === "boolean" ? { required: a.required } : {}),
    })),
  }));
  const resources: ResourceDecl[] = (entry.resources ?? []).map((r) => ({
    kind: "resource",
    uri: r.uri,
    name: r.name,
    ...optional(r, "description"),
    ...optional(r, "mimeType"),
  }));
  const resourceTemplates: ResourceTemplateDecl[] = (entry.resourceTemplates ?? []).map((t) => ({
    kind: "resource-template",
    uriTemplate: t.uriTemplate,
    name: t.name,
    ...optional(t, "description"),
    ...optional(t, "mimeType"),
  }));
  // An older lock records no surface at all: then there is nothing to check for drift, which is not
  // the same as a server that lists none (empty lists, fingerprinted).
  const any = LISTS.some(({ list }) => entry[list] !== undefined);
  if (!any) return { surface: { prompts, resources, resourceTemplates }, fingerprints: undefined };
  const fingerprints: { [list: string]: { [id: string]: string } } = {};
  const snapshots: { [list: string]: { [id: string]: unknown } } = {};
  for (const { list, key } of LISTS) {
    const entries = entry[list] as readonly Entry[] | undefined;
    if (!entries) continue;
    // Keys are the server's names and URIs: prototype-free maps.
    fingerprints[list] = Object.create(null);
    snapshots[list] = Object.create(null);
    for (const e of entries) {
      (fingerprints[list] as { [id: string]: string })[e[key] as string] = fingerprintEntry(e);
      (snapshots[list] as { [id: string]: unknown })[e[key] as string] = e;
    }
  }
  return { surface: { prompts, resources, resourceTemplates }, fingerprints: { ...fingerprints, snapshots } as IrSurfaceFingerprints };
}
