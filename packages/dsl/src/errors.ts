/**
 * The error every DSL builder throws on misuse. Thrown at declaration time, while the design file is
 * being evaluated, so the message must say which builder and which argument went wrong.
 */

/** The declarations a DSL mistake was made in, as far as the builders know. */
export interface DslLocation {
  readonly toolset?: string;
  readonly tool?: string;
  readonly server?: string;
  readonly agent?: string;
  /** JSON pointer of the schema node, for mistakes `toJsonSchema` finds (`/properties/sku`). */
  readonly pointer?: string;
}

/** A mistake in a design declaration, caught by a builder before any code is generated. */
export class DslError extends Error {
  override readonly name = "DslError";
  /** The builder or declaration that went wrong: `string()`, `toolset "docs", tool "search"`. */
  readonly where: string;
  /** What went wrong, without `where`. */
  readonly detail: string;
  /** The toolset, tool, server or agent being declared (for the generator's `DesignError`). */
  readonly location: DslLocation;

  constructor(where: string, detail: string, options?: { readonly cause?: unknown; readonly location?: DslLocation }) {
    super(`${where}: ${detail}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.where = where;
    this.detail = detail;
    this.location = Object.freeze({ ...options?.location });
  }
}

/** Runs `fn`; a `DslError` it throws gains `location` (what the error already knows wins). */
export function locate<T>(location: DslLocation, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof DslError)) throw error;
    throw new DslError(error.where, error.detail, { cause: error.cause, location: { ...location, ...error.location } });
  }
}

/** Throws a `DslError` with `where: message`. */
export function fail(where: string, message: string): never {
  throw new DslError(where, message);
}

/**
 * A mistake found by a builder that cannot know where it is used (a schema builder, a standalone
 * `tool()`). It is recorded on the node under this key instead of thrown, and reported by whoever
 * knows the place: `toolset()` for tools, `toJsonSchema` (and so the code generator) with a JSON
 * pointer for schemas. `Symbol.for`, so every copy of the DSL and the generator see the same key;
 * spreads carry it to derived nodes, and JSON never shows it.
 */
export const PROBLEM: unique symbol = Symbol.for("toolwright.dsl.problem") as never;

/** A recorded mistake: the builder and what went wrong. */
export interface Problem {
  readonly where: string;
  readonly detail: string;
}

/** The mistake recorded on `node`, if any. */
export function problemOf(node: unknown): Problem | undefined {
  if (typeof node !== "object" || node === null) return undefined;
  return Object.hasOwn(node, PROBLEM) ? ((node as { [PROBLEM]?: Problem })[PROBLEM] as Problem) : undefined;
}

/** Runs `build`; a `DslError` it throws becomes `fallback` with the problem recorded on it. */
export function deferProblem<T>(build: () => T, fallback: (problem: Problem) => T): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof DslError)) throw error;
    return fallback({ where: error.where, detail: error.detail });
  }
}

/** Short, safe rendering of a value for error messages. */
export function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (value === null || typeof value !== "object") return typeof value === "function" ? "a function" : String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return "an object";
}

/** True for a plain object (not null, not an array). */
export function isPlainObject(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Fails unless `value` survives a JSON round trip (no functions, bigints, cycles or non-finite numbers). */
export function assertJson(where: string, what: string, value: unknown): void {
  const bad = findNonJson(value, new Set());
  if (bad !== undefined) fail(where, `${what} must be plain JSON data; ${bad}`);
}

function findNonJson(value: unknown, seen: Set<object>): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `found the number ${value}`;
    case "object": {
      if (value === null) return undefined;
      if (seen.has(value)) return "found a cycle";
      seen.add(value);
      const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
      for (const [, v] of entries) {
        const bad = findNonJson(v, seen);
        if (bad !== undefined) return bad;
      }
      seen.delete(value);
      return undefined;
    }
    default:
      return `found ${typeof value === "function" ? "a function" : `a ${typeof value}`}`;
  }
}
