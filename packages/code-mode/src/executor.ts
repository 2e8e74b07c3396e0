/**
 * The `Executor` seam: what any sandbox (QuickJS wasm by default; isolated-vm, Deno or a remote
 * sandbox can plug in) must do to run one program. Everything crossing it is JSON, so no host
 * reference can ever reach the program.
 */

/**
 * What a host function answers: a value for the program, or an error object the sandbox throws as a
 * `ToolError` (its own fields, e.g. `kind`, `recovery`, `issues`, are copied onto the error).
 */
export type HostAnswer =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly error: { readonly message: string; readonly [key: string]: unknown };
      /** Ends the whole program (uncatchable) with `error.message`, e.g. a durable program that diverged from its journal. */
      readonly stop?: true;
    };

/**
 * A function the program can await as `namespace.name(args)`. Receives a JSON copy of the arguments
 * and a signal that aborts when the program ends (a limit, an abort, or the program finishing first).
 */
export type HostFunction = (args: unknown, context: { readonly signal: AbortSignal }) => Promise<HostAnswer>;

/** Host functions by namespace, then by name: `{ memory: { readGraph } }` is `await memory.readGraph({})`. */
export interface HostFunctions {
  readonly [namespace: string]: { readonly [name: string]: HostFunction };
}

/** Limits of one program. Every field is optional in options; `DEFAULT_LIMITS` fills the rest. */
export interface ExecutionLimits {
  /** Wall time of the whole program, host calls included. Default 30 s. */
  readonly wallTimeMs: number;
  /** Heap of the program's JavaScript runtime. Default 64 MiB. */
  readonly memoryBytes: number;
  /**
   * Stack of the program's runtime (deep recursion ends here). Default 256 KiB: QuickJS runs on the
   * host's own stack too, and much more than ~384 KiB can exhaust Node's first (then the run fails as
   * `internal` and the wasm module is loaded afresh).
   */
  readonly stackBytes: number;
  /** Host calls per program. Default 256. */
  readonly maxCalls: number;
  /** Host calls in flight at once; further calls wait their turn. Default 32. */
  readonly maxInFlight: number;
  /** The program's value as JSON, in UTF-8 bytes. Default 1 MiB. */
  readonly maxResultBytes: number;
  /** Everything `console.*` printed, in UTF-8 bytes. Default 1 MiB. */
  readonly maxConsoleBytes: number;
}

/** The limits the issue asks for. */
export const DEFAULT_LIMITS: ExecutionLimits = Object.freeze({
  wallTimeMs: 30_000,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxCalls: 256,
  maxInFlight: 32,
  maxResultBytes: 1024 * 1024,
  maxConsoleBytes: 1024 * 1024,
});

/** One line `console.*` printed. */
export interface ConsoleLine {
  readonly level: "log" | "info" | "warn" | "error" | "debug";
  readonly text: string;
}

/** Which limit ended a program. */
export type LimitName = keyof ExecutionLimits;

/** Why a program did not produce a value. */
export type ExecutionError =
  /** The program threw (or rejected) and nothing caught it. `value` is a JSON copy of what was thrown. */
  | { readonly type: "thrown"; readonly name?: string; readonly message: string; readonly value?: unknown; readonly stack?: string }
  /** A limit stopped it. */
  | { readonly type: "limit"; readonly limit: LimitName; readonly message: string }
  /** The caller's signal aborted it. */
  | { readonly type: "aborted"; readonly message: string }
  /** The program did not parse. */
  | { readonly type: "syntax"; readonly message: string }
  /** The program's value cannot be copied out as JSON (a cycle, a BigInt). */
  | { readonly type: "result"; readonly message: string }
  /** The program waits for something that can never settle (no host call in flight). */
  | { readonly type: "deadlock"; readonly message: string }
  /** The program ended while a promise it made was rejected and never handled (see unhandled.ts). */
  | { readonly type: "unhandled"; readonly message: string }
  /** A host function stopped the program (`HostAnswer.stop`). */
  | { readonly type: "stopped"; readonly message: string }
  /** The executor itself failed; the program may or may not have run. */
  | { readonly type: "internal"; readonly message: string };

/** What running one program gives. */
export type ExecutionResult =
  | { readonly ok: true; readonly value: unknown; readonly console: readonly ConsoleLine[]; readonly calls: number }
  | { readonly ok: false; readonly error: ExecutionError; readonly console: readonly ConsoleLine[]; readonly calls: number };

/** Options of one `Executor.run`. */
export interface ExecuteOptions {
  readonly hostFunctions: HostFunctions;
  readonly limits?: Partial<ExecutionLimits>;
  readonly signal?: AbortSignal;
}

/**
 * A sandbox. `run` takes JavaScript that is the body of an async function (so it may `await` and
 * `return` its value) and never throws: every failure is an `ExecutionResult` with `ok: false`.
 * Each run starts from a fresh global scope; nothing of one run is visible to the next.
 */
export interface Executor {
  run(js: string, options: ExecuteOptions): Promise<ExecutionResult>;
  /** Frees what the executor keeps between runs (the compiled wasm module). */
  dispose?(): void;
}

/** `DEFAULT_LIMITS` overridden by `limits`; throws a RangeError naming a limit that is not a positive number. */
export function resolveLimits(limits: Partial<ExecutionLimits> = {}): ExecutionLimits {
  const out: { [K in LimitName]: number } = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as LimitName[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0)
      throw new RangeError(`code mode: limit ${key} must be a positive number, got ${String(value)}`);
    out[key] = value;
  }
  return out;
}
