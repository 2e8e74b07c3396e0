/**
 * Loads a TypeScript design file with tsx and returns its default export. Each load gets a fresh
 * module namespace, so `--watch` sees edits.
 */
import { existsSync } from "node:fs";
import { resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { DesignDecl, JsonSchema } from "@toolwright/dsl";
import { register } from "tsx/esm/api";
import { DesignError } from "../errors.js";
import { designLabel } from "./design-label.js";
import { DEFAULT_LOAD_TIMEOUT_MS, killsProcessWhenLoadIsStuck } from "./load-timeout.js";

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
  const watchdog = killsProcessWhenLoadIsStuck() ? startWatchdog(ms, label) : undefined;
  return new Promise<T>((resolve, reject) => {
    // Every way out clears the timer, the listener and the watchdog (--watch keeps the process alive).
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      process.removeListener("beforeExit", stuck);
      void watchdog?.terminate();
      outcome();
    };
    const fail = (problem: string) => settle(() => reject(new DesignError({ file: label }, problem)));
    const stuck = () =>
      fail("loading the design never finishes: a top-level await is waiting for a promise that nothing can settle any more");
    const timer = setTimeout(
      () =>
        fail(
          `loading the design did not finish within ${ms} ms (a top-level await that does not settle, or a slow import); fix the design or raise --load-timeout`,
        ),
      ms,
    );
    timer.unref();
    process.once("beforeExit", stuck);
    work.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

/** True when `value` looks like the plain data `design(...)` returns. */
export function isDesignDecl(value: unknown): value is DesignDecl {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { kind?: unknown; toolsets?: unknown };
  return v.kind === "design" && Array.isArray(v.toolsets);
}

// How long after the deadline the watchdog waits for the event loop's own timer to report first.
const WATCHDOG_GRACE_MS = 2_000;

/**
 * A thread that ends the process when the main thread is still busy `WATCHDOG_GRACE_MS` after the
 * deadline: a design stuck in a synchronous loop never yields, so the deadline timer cannot fire.
 * It writes the design error to stderr itself, then SIGKILLs the process (exit status 137).
 */
function startWatchdog(ms: number, label: string): Worker {
  const message = `design error: ${label}: loading the design did not finish within ${ms} ms and it does not yield (a synchronous loop?); the process was killed\n`;
  const worker = new Worker(
    `const { workerData } = require("node:worker_threads");
setTimeout(() => {
  require("node:fs").writeSync(2, workerData.message);
  process.kill(process.pid, "SIGKILL");
}, workerData.ms);`,
    { eval: true, workerData: { ms: ms + WATCHDOG_GRACE_MS, message } },
  );
  worker.unref();
  return worker;
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
