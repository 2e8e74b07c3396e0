/**
 * Loads a TypeScript design file with tsx and returns its default export. Each load gets a fresh
 * module namespace, so `--watch` sees edits.
 */
import { existsSync } from "node:fs";
import { resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { DesignDecl, JsonSchema } from "@toolwright/dsl";
import { register } from "tsx/esm/api";
import { DesignError } from "../errors.js";
import { designLabel } from "./design-label.js";
import { DEFAULT_LOAD_TIMEOUT_MS } from "./load-timeout.js";

/** A loaded design and where it came from. */
export interface LoadedDesign {
  readonly design: DesignDecl;
  /** Absolute path of the design file. */
  readonly path: string;
  /** Path relative to the working directory, `/`-separated (for headers and messages). */
  readonly label: string;
  /**
   * The DSL's `toJsonSchema` from the same module instance the design used: named types are
   * tracked by object identity inside the DSL, so another copy of the DSL would not see them.
   */
  readonly toJsonSchema: ((schema: unknown) => JsonSchema) | undefined;
  /** Absolute paths of the design and every local file it imported (not node_modules); for `--watch`. */
  readonly inputs: readonly string[];
  /** Every file the load imported, node_modules included (the DSL too); for the re-run cache. */
  readonly allInputs: readonly string[];
}

let loads = 0;

/** Options for `loadDesign`. */
export interface LoadOptions {
  /** Deadline for evaluating the design, in milliseconds (default 30 s). */
  readonly timeoutMs?: number;
}

/** `LoadOptions` from an optional deadline (exactOptionalPropertyTypes forbids passing `undefined`). */
export function loadOptions(timeoutMs: number | undefined): LoadOptions {
  return timeoutMs === undefined ? {} : { timeoutMs };
}

/**
 * Settles like `work`, or rejects when `ms` pass or when the event loop runs dry first: a
 * top-level `await` on a promise nothing will ever settle would otherwise let Node exit 0
 * silently, halfway through the run. The deadline timer is unref'd so it alone keeps nothing alive.
 */
function withLoadDeadline<T>(work: Promise<T>, ms: number, label: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stuck = () =>
      reject(
        new DesignError(
          { file: label },
          "loading the design never finishes: a top-level await is waiting for a promise that nothing can settle any more",
        ),
      );
    const timer = setTimeout(() => {
      reject(
        new DesignError(
          { file: label },
          `loading the design did not finish within ${ms} ms (a top-level await that does not settle, or a slow import); fix the design or raise --load-timeout`,
        ),
      );
    }, ms);
    timer.unref();
    process.once("beforeExit", stuck);
    const done = () => {
      clearTimeout(timer);
      process.removeListener("beforeExit", stuck);
    };
    work.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

/** True when `value` looks like the plain data `design(...)` returns. */
export function isDesignDecl(value: unknown): value is DesignDecl {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { kind?: unknown; toolsets?: unknown };
  return v.kind === "design" && Array.isArray(v.toolsets);
}

/**
 * Imports `file` and returns its default-exported design. Throws `DesignError` on any failure,
 * including a load that does not finish within `options.timeoutMs`.
 */
export async function loadDesign(file: string, cwd: string = process.cwd(), options: LoadOptions = {}): Promise<LoadedDesign> {
  const path = resolve(cwd, file);
  const label = designLabel(path, cwd);
  if (!existsSync(path)) throw new DesignError({ file: label }, "design file not found");
  let mod: { default?: unknown };
  const url = pathToFileURL(path).href;
  // A fresh namespace per load, so `--watch` sees edits to the design and the files it imports.
  const inputs = new Set<string>([path]);
  const allInputs = new Set<string>([path]);
  const onImport = (imported: string) => {
    if (!imported.startsWith("file:")) return;
    const file = fileURLToPath(imported.split("?")[0]!);
    allInputs.add(file);
    if (!file.split(sep).includes("node_modules")) inputs.add(file);
  };
  const api = register({ namespace: `toolwright-${process.pid}-${++loads}`, onImport });
  let toJsonSchema: LoadedDesign["toJsonSchema"];
  const evaluate = async () => {
    const loadedMod = (await api.import(url, import.meta.url)) as { default?: unknown };
    try {
      const dsl = (await api.import("@toolwright/dsl", url)) as { toJsonSchema?: unknown };
      if (typeof dsl.toJsonSchema === "function") toJsonSchema = dsl.toJsonSchema as (schema: unknown) => JsonSchema;
    } catch {
      // A design without @toolwright/dsl (raw JSON Schemas only) needs no named-type lookup.
    }
    return loadedMod;
  };
  try {
    mod = await withLoadDeadline(evaluate(), options.timeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS, label);
  } catch (error) {
    if (error instanceof DesignError) throw error;
    const located = locatedDslError(error, label);
    if (located) throw located;
    throw new DesignError({ file: label }, `cannot load design: ${firstLines(error)}`, { cause: error });
  } finally {
    await api.unregister();
  }
  // tsx may wrap a CommonJS-style default export once more.
  let value = mod.default;
  if (!isDesignDecl(value) && typeof value === "object" && value !== null && isDesignDecl((value as { default?: unknown }).default)) {
    value = (value as { default?: unknown }).default;
  }
  if (!isDesignDecl(value)) {
    throw new DesignError({ file: label }, "the default export is not a design; write `export default design({ toolsets: [...] })`");
  }
  return { design: value, path, label, toJsonSchema, inputs: [...inputs].sort(), allInputs: [...allInputs].sort() };
}

// The part of `where` that only repeats the location (`toolset "docs", tool "a"`) is left out of the message.
const LOCATION_PREFIX = /^(?:(?:toolset|tool|mcpServer|externalServer|agent) "[^"]*"(?:, |(?=:)|$))+(?::\s*(.*))?$/s;

/**
 * A DSL mistake whose declaration is known (the DSL's `DslError.location`) as a `DesignError` naming
 * the file, toolset, tool, server or agent like the resolver's. The error comes from the design's own
 * copy of the DSL, so it is recognized by shape.
 */
function locatedDslError(error: unknown, file: string): DesignError | undefined {
  if (!(error instanceof Error) || error.name !== "DslError") return undefined;
  const { where, detail, location } = error as Error & { where?: unknown; detail?: unknown; location?: unknown };
  if (typeof where !== "string" || typeof detail !== "string" || typeof location !== "object" || location === null) return undefined;
  const at: { toolset?: string; tool?: string; server?: string; agent?: string } = {};
  for (const key of ["toolset", "tool", "server", "agent"] as const) {
    const value = (location as { [k: string]: unknown })[key];
    if (typeof value === "string") at[key] = value;
  }
  if (Object.keys(at).length === 0) return undefined;
  const prefix = LOCATION_PREFIX.exec(where);
  const problem = !prefix ? `${where}: ${detail}` : prefix[1] ? `${prefix[1]}: ${detail}` : detail;
  return new DesignError({ file, ...at }, problem, { cause: error });
}

function firstLines(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n").slice(0, 6).join("\n");
}
