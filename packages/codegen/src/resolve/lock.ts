/**
 * Reads the lock file `toolwright pull` writes next to a design (`<design>.lock.json`) and turns a
 * pulled `tools/list` entry into a tool declaration. The pulled prompts, resources and templates
 * (lock-surface.ts) are checked here too, so a bad lock is refused naming the file and the field.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ToolDecl } from "@toolwright/dsl";
import { checkLockShape, LockError } from "./lock-shape.js";
import type { LockedSurface } from "./lock-surface.js";

/** One server's snapshot in the lock. */
export interface LockedServer extends LockedSurface {
  readonly tools: readonly unknown[];
  /** Fingerprint of the whole catalogue (`fingerprintCatalogue` in `@toolwright/runtime`). */
  readonly fingerprint?: string;
  /** Fingerprint per pulled tool, by wire name; the runtime drift check compares against these. */
  readonly fingerprints?: { readonly [tool: string]: string };
  /** The server's `instructions` from the handshake; `null`: it sent none; absent: a lock from before they were pinned. */
  readonly instructions?: string | null;
}

/** The lock file. */
export interface LockFile {
  readonly version: 1;
  readonly servers: { readonly [name: string]: LockedServer };
}

/** `examples/x/design.ts` → `examples/x/design.lock.json`. */
export function lockPathFor(designPath: string): string {
  const base = basename(designPath).replace(/\.[cm]?[jt]s$/, "");
  return join(dirname(designPath), `${base}.lock.json`);
}

/**
 * Reads and shape-checks the lock (`lock-shape.ts`); `undefined` when there is none. Throws
 * `LockError` naming the lock file (as `label`, default its file name), the server, tool and field.
 * The server map comes back prototype-free: a design server named "constructor" finds no entry.
 */
export function readLock(designPath: string, label?: string): LockFile | undefined {
  const path = lockPathFor(designPath);
  const file = label ?? basename(path);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new LockError(file, {}, `not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  checkLockShape(parsed, file);
  const lock = parsed as { version: 1; servers: { [name: string]: LockedServer } };
  const servers: { [name: string]: LockedServer } = Object.create(null);
  for (const [name, entry] of Object.entries(lock.servers)) {
    const fingerprints = entry.fingerprints === undefined ? {} : { fingerprints: Object.assign(Object.create(null), entry.fingerprints) };
    servers[name] = { ...entry, ...fingerprints };
  }
  return { version: 1, servers };
}

/** Turns a pulled `tools/list` entry into a tool declaration. Throws with a plain message. */
export function toolFromListing(entry: unknown, index: number): ToolDecl {
  if (typeof entry !== "object" || entry === null) throw new Error(`tools[${index}] is not an object`);
  const e = entry as { [key: string]: unknown };
  if (typeof e.name !== "string" || e.name === "") throw new Error(`tools[${index}] has no name`);
  const a = (typeof e.annotations === "object" && e.annotations !== null ? e.annotations : {}) as { [key: string]: unknown };
  const annotations: { readOnly?: boolean; destructive?: boolean; idempotent?: boolean; openWorld?: boolean } = {};
  if (typeof a.readOnlyHint === "boolean") annotations.readOnly = a.readOnlyHint;
  if (typeof a.destructiveHint === "boolean") annotations.destructive = a.destructiveHint;
  if (typeof a.idempotentHint === "boolean") annotations.idempotent = a.idempotentHint;
  if (typeof a.openWorldHint === "boolean") annotations.openWorld = a.openWorldHint;
  const title = typeof e.title === "string" ? e.title : typeof a.title === "string" ? a.title : undefined;
  return {
    kind: "tool",
    name: e.name,
    input: (e.inputSchema ?? { type: "object" }) as { [key: string]: unknown },
    ...(e.outputSchema === undefined ? {} : { output: e.outputSchema as { [key: string]: unknown } }),
    ...(title === undefined ? {} : { title }),
    ...(typeof e.description === "string" ? { description: e.description } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    ...(typeof e._meta === "object" && e._meta !== null ? { meta: e._meta as { [key: string]: unknown } } : {}),
  };
}
