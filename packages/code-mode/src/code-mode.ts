/**
 * `createCodeMode`: check a program, then run it in the sandbox with one host function per bound
 * tool. Every host call is a `runner.execute` request, the same path a model's direct tool call
 * takes (validation, run policy, per-call confirmation, outbound policy, redaction, a telemetry
 * span), so code mode adds no way around any of them.
 */
import type { ToolFailure, ToolResult, ToolSpec, TracerLike } from "@toolwright/runtime";
import type { ToolRunner } from "@toolwright/runtime/providers";
import { apisFromGenerated, bindApis, type CodeModeApis } from "./bindings.js";
import type { CodeModeApi } from "./check/api.js";
import { type DurableCalls, journaled } from "./durable-calls.js";
import { type ConsoleLine, type ExecutionLimits, type Executor, type HostAnswer, type HostFunctions, resolveLimits } from "./executor.js";
import { programFailure } from "./failures.js";
import { withProgramSpan } from "./program-span.js";
import { createQuickJsExecutor } from "./quickjs-executor.js";

/** What a type checker answers: the JavaScript to run, or the failure (diagnostics) and nothing runs. */
export type CheckOutcome = { readonly ok: true; readonly js: string } | { readonly ok: false; readonly failure: ToolFailure };

/** Checks (and strips the types of) a TypeScript program against the generated sandbox API. */
export interface CodeChecker {
  check(source: string): CheckOutcome | Promise<CheckOutcome>;
}

/** Options of `createCodeMode`. */
export interface CodeModeOptions {
  /** Runs the calls: a `Runtime`, the manager's registry, a tool-search surface... */
  readonly runtime: ToolRunner;
  /**
   * The sandbox API: the `<toolset>CodeMode` objects `toolwright gen` wrote (`code-mode.gen.ts`), or
   * bindings (namespace → function → tool id). Default: derived from `runtime.specs()`.
   */
  readonly apis?: readonly CodeModeApi[] | CodeModeApis;
  /** Extra filter on the tools the sandbox may call (hidden, app-only tools are never bound). */
  readonly filter?: (spec: ToolSpec) => boolean;
  /** The sandbox. Default: QuickJS compiled to WebAssembly. */
  readonly executor?: Executor;
  /** Limits of every program (a run's own `limits` win). */
  readonly limits?: Partial<ExecutionLimits>;
  /**
   * The type check. Default: with generated `apis`, `createTypeChecker(apis)` (TypeScript loads on
   * the first run); otherwise none. `false`, or no generated APIs: the program must be JavaScript, and runs unchecked.
   */
  readonly checker?: CodeChecker | false;
  /**
   * Without generated `apis`: derive declarations from the live tool specs (their input schemas;
   * results are `any`) and type-check programs against them (check/live-api.ts). Default false;
   * `createCodeModeTools` turns it on over a catalogue no generated API covers (the manager's registry).
   */
  readonly typeLive?: boolean;
  /** The tool name type-check failures carry (`run_code` from the model tools). Default `code_mode`. */
  readonly checkTool?: string;
  /** Opens a span per program (`code_mode program`); the runtime's per-call spans nest under it. */
  readonly tracer?: TracerLike;
}

/** Options of one `run`. */
export interface CodeModeRunOptions {
  readonly signal?: AbortSignal;
  readonly limits?: Partial<ExecutionLimits>;
  /**
   * Runs the calls durably (`createDurableRun(...)` on an engine): each call is checked against the
   * journal, then executed as checkpointed steps, one at a time in program order, so a re-run answers
   * completed calls from the journal and a program that diverges from it is stopped.
   */
  readonly durable?: DurableCalls;
  /**
   * Sees each successful call's result as the runtime gave it, e.g. to count the tokens direct tool
   * calling would have put in the context (code mode's `run_code` does, for the token account).
   */
  readonly onResult?: (tool: string, result: ToolResult<unknown> & { readonly ok: true }) => void;
}

/** One call the program made, in the order it made them. */
export interface CodeModeCall {
  readonly tool: string;
  readonly ok: boolean;
  readonly kind?: ToolFailure["kind"];
  readonly reason?: ToolFailure["reason"];
}

/** What a program gives: its value, or a `ToolFailure`; with what it printed and the calls it made. */
export type CodeModeResult =
  | { readonly ok: true; readonly value: unknown; readonly console: readonly ConsoleLine[]; readonly calls: readonly CodeModeCall[] }
  | {
      readonly ok: false;
      readonly failure: ToolFailure;
      readonly console: readonly ConsoleLine[];
      readonly calls: readonly CodeModeCall[];
    };

/** Code mode over one runner. */
export interface CodeMode {
  /** The namespaces and functions the sandbox offers, each with the tool id it calls. */
  readonly apis: CodeModeApis;
  /** Checks and runs one program. Never throws: every failure is a `ToolFailure` value. */
  run(source: string, options?: CodeModeRunOptions): Promise<CodeModeResult>;
}

/** The failure fields a program sees on a `ToolError` (`issues` is `recovery.issues`). */
function errorForProgram(failure: ToolFailure, call: number): HostAnswer {
  const error: { [key: string]: unknown } = {
    message: failure.message,
    kind: failure.kind,
    recovery: failure.recovery,
    issues: failure.recovery.issues ?? [],
    tool: failure.tool,
    server: failure.server,
    retryable: failure.retryable,
    call,
  };
  if (failure.reason !== undefined) error.reason = failure.reason;
  if (failure.suggestions !== undefined) error.suggestions = failure.suggestions;
  return { ok: false, error: error as { message: string } };
}

/**
 * Creates code mode over `options.runtime`. Throws a TypeError for a namespace or function that is
 * not an identifier, and a RangeError naming a limit that is not a positive number.
 */
export function createCodeMode(options: CodeModeOptions): CodeMode {
  resolveLimits(options.limits); // a bad limit is the caller's mistake: said now, not on every run
  const executor = options.executor ?? createQuickJsExecutor();
  const generated = Array.isArray(options.apis) ? (options.apis as readonly CodeModeApi[]) : undefined;
  const bindings = generated ? apisFromGenerated(generated) : (options.apis as CodeModeApis | undefined);
  const bound = bindApis(options.runtime, bindings, options.filter ?? (() => true));
  let checker: Promise<CodeChecker> | undefined;
  const checkerFor = (): Promise<CodeChecker> | undefined => {
    if (options.checker === false) return undefined;
    if (options.checker) return Promise.resolve(options.checker);
    if (!generated) {
      if (!options.typeLive) return undefined;
      checker ??= Promise.all([import("./check/type-checker.js"), import("./check/live-api.js")]).then(
        ([{ createTypeChecker }, { liveApis }]) => createTypeChecker(liveApis(bound), { tool: options.checkTool ?? "code_mode" }),
      );
      return checker;
    }
    // Loaded on first use: TypeScript is large, and a caller that only runs JavaScript never needs it.
    checker ??= import("./check/type-checker.js").then(({ createTypeChecker }) => createTypeChecker(generated));
    return checker;
  };
  const apis: { [ns: string]: { [fn: string]: string } } = {};
  for (const [ns, fns] of bound) apis[ns] = Object.fromEntries([...fns].map(([fn, spec]) => [fn, spec.id]));

  async function execute(source: string, js: string, runOptions: CodeModeRunOptions): Promise<CodeModeResult> {
    const calls: CodeModeCall[] = [];
    const failures = new Map<number, ToolFailure>();
    const run = runOptions.durable
      ? journaled(runOptions.durable)
      : (request: { tool: string; arguments: unknown }, signal: AbortSignal) => options.runtime.execute(request, { signal });
    const hostFunctions: { [ns: string]: { [fn: string]: HostFunctions[string][string] } } = {};
    for (const [ns, fns] of bound) {
      hostFunctions[ns] = {};
      for (const [fn, spec] of fns) {
        (hostFunctions[ns] as { [fn: string]: HostFunctions[string][string] })[fn] = async (args, { signal }) => {
          const index = calls.length;
          calls.push({ tool: spec.id, ok: false });
          const result: ToolResult<unknown> | { stop: string } = await run({ tool: spec.id, arguments: args }, signal);
          if ("stop" in result) return { ok: false, error: { message: result.stop }, stop: true };
          if (result.ok) {
            calls[index] = { tool: spec.id, ok: true };
            runOptions.onResult?.(spec.id, result);
            return { ok: true, value: result.value };
          }
          const failure = result.failure;
          failures.set(index, failure);
          calls[index] = { tool: spec.id, ok: false, kind: failure.kind, ...(failure.reason ? { reason: failure.reason } : {}) };
          return errorForProgram(failure, index);
        };
      }
    }
    const limits = { ...options.limits, ...runOptions.limits };
    const outcome = await executor.run(js, { hostFunctions, limits, ...(runOptions.signal ? { signal: runOptions.signal } : {}) });
    if (outcome.ok) return { ok: true, value: outcome.value, console: outcome.console, calls };
    const error = outcome.error;
    // An uncaught ToolError ends the program with the call's own failure, as the runtime built it
    // (the host's copy: a program cannot forge or edit it).
    if (error.type === "thrown" && error.name === "ToolError") {
      const call = (error.value as { call?: unknown } | undefined)?.call;
      const original = typeof call === "number" ? failures.get(call) : undefined;
      if (original) return { ok: false, failure: original, console: outcome.console, calls };
    }
    return { ok: false, failure: programFailure(error, source), console: outcome.console, calls };
  }

  return {
    apis,
    async run(source, runOptions = {}) {
      return withProgramSpan(options.tracer, async () => {
        let js = source;
        const pending = checkerFor();
        if (pending) {
          let checked: CheckOutcome;
          try {
            checked = await (await pending).check(source);
          } catch (error) {
            const failure = programFailure({ type: "internal", message: `the type check failed: ${(error as Error).message}` }, source);
            return { ok: false, failure, console: [], calls: [] };
          }
          if (!checked.ok) return { ok: false, failure: checked.failure, console: [], calls: [] };
          js = checked.js;
        }
        return execute(source, js, runOptions);
      });
    },
  };
}
