/**
 * The default executor: QuickJS compiled to WebAssembly (`quickjs-emscripten-core` with the
 * release-sync wasm variant: pure wasm, no native build, no install script). The compiled module is
 * shared across runs; each run gets its own QuickJS runtime and context, so its heap, its memory
 * limit and its globals die with it. The context has only the language's built-ins plus what the
 * prelude adds: no `process`, `require`, module loader, `fetch`, timers, file system or environment.
 */
import type {
  CustomizeVariantOptions,
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSSyncVariant,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import { startSandboxClock } from "./deadline.js";
import {
  type ConsoleLine,
  type ExecuteOptions,
  type ExecutionError,
  type ExecutionLimits,
  type ExecutionResult,
  type Executor,
  resolveLimits,
} from "./executor.js";
import { preludeSource, wrapProgram } from "./prelude.js";
import { hostCall, limitError, type RunState, writeConsole } from "./quickjs-host.js";
import { unhandledFailure } from "./unhandled.js";

/** Options of `createQuickJsExecutor`. */
export interface QuickJsExecutorOptions {
  /** Default limits of every run (a run's own `limits` win). */
  readonly limits?: Partial<ExecutionLimits>;
}

/**
 * Compiled modules by memory cap. QuickJS's own memory limit cannot be trusted in this build (its
 * allocator reports no usable sizes under Emscripten, so it counts only a few bytes per allocation):
 * the limit is enforced by the WebAssembly memory itself, created with a maximum, so an allocation
 * past it fails and QuickJS throws its catchable "out of memory". Runs that overlap in time on one
 * module share that memory; the cap still holds for all of them together.
 */
const modules = new Map<number, Promise<QuickJSWASMModule>>();
const PAGE = 65536;
/** What the module itself needs besides the program's heap: its static data, stack and allocator slack. */
const MODULE_BASE_BYTES = 16 * 1024 * 1024;

/** Loads (once per cap) the wasm module; a failed load is forgotten so the next run tries again. */
function loadModule(memoryBytes: number): Promise<QuickJSWASMModule> {
  const cached = modules.get(memoryBytes);
  if (cached) return cached;
  const loading = (async () => {
    const [{ newQuickJSWASMModuleFromVariant, newVariant }, variant] = await Promise.all([
      import("quickjs-emscripten-core"),
      import("@jitl/quickjs-wasmfile-release-sync"),
    ]);
    // Reserved whole from the start (initial = maximum): a run during which the memory grows and
    // that returns a value of a few MB leaks a QuickJS object, and freeing its runtime then aborts
    // the wasm instance (an internal failure, found by the large-value test). Pages never touched
    // are not committed by the OS, so reserving them costs address space, not RAM.
    const maximum = Math.ceil((memoryBytes + MODULE_BASE_BYTES) / PAGE);
    const initial = maximum;
    // The package's tsconfig has no DOM or wasm lib: the one constructor used is typed here.
    const wasm = (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum: number }) => object } })
      .WebAssembly;
    const wasmMemory = new wasm.Memory({ initial, maximum }) as CustomizeVariantOptions["wasmMemory"];
    // The variant package types its export against its own copy of the ffi types: same shape, cast.
    const base = variant.default as unknown as QuickJSSyncVariant;
    const module = await newQuickJSWASMModuleFromVariant(newVariant(base, { wasmMemory }));
    // One throwaway evaluation compiles the interpreter's hot paths, so the first program is not billed for it.
    module.evalCode("[1, 2].map((x) => JSON.stringify({ x })).join()");
    return module;
  })();
  modules.set(memoryBytes, loading);
  loading.catch(() => modules.delete(memoryBytes));
  return loading;
}

const utf8Length = (text: string) => Buffer.byteLength(text, "utf8");

/** Creates the QuickJS executor. The wasm module loads on the first run and is reused by every later one. */
export function createQuickJsExecutor(options: QuickJsExecutorOptions = {}): Executor {
  const defaults = options.limits ?? {};
  return {
    async run(js, runOptions) {
      let limits: ExecutionLimits;
      try {
        limits = resolveLimits({ ...defaults, ...runOptions.limits });
      } catch (error) {
        return { ok: false, error: { type: "internal", message: (error as Error).message }, console: [], calls: 0 };
      }
      let module: QuickJSWASMModule;
      try {
        module = await loadModule(limits.memoryBytes);
      } catch (error) {
        const message = `code mode: the QuickJS wasm module did not load: ${(error as Error).message}`;
        return { ok: false, error: { type: "internal", message }, console: [], calls: 0 };
      }
      try {
        return await runOnce(module, js, runOptions, limits);
      } catch (error) {
        // A fault of the wasm instance itself (an abort) may leave the shared module broken: drop it.
        modules.delete(limits.memoryBytes);
        const message = `code mode: the sandbox failed: ${(error as Error).message}`;
        return { ok: false, error: { type: "internal", message }, console: [], calls: 0 };
      }
    },
  };
}

async function runOnce(module: QuickJSWASMModule, js: string, options: ExecuteOptions, limits: ExecutionLimits): Promise<ExecutionResult> {
  // The clock starts once the sandbox is set up: the program's time is the program's, not ours.
  let deadline = Number.POSITIVE_INFINITY;
  const signal = options.signal;
  const state: RunState = {
    limits,
    console: [],
    consoleBytes: 0,
    calls: 0,
    inFlight: 0,
    waiting: [],
    fatal: undefined,
    wake: () => {},
    deferreds: new Set(),
    closed: false,
    ended: new AbortController(),
    unhandled: undefined,
  };
  const done = (error: ExecutionError | undefined, value?: unknown): ExecutionResult =>
    error
      ? { ok: false, error, console: state.console, calls: state.calls }
      : { ok: true, value, console: state.console, calls: state.calls };
  if (signal?.aborted) return done({ type: "aborted", message: "the program was aborted before it started" });

  const runtime = module.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => state.fatal !== undefined || Date.now() > deadline || signal?.aborted === true);
  const context = runtime.newContext();
  const onAbort = () => state.wake();
  signal?.addEventListener("abort", onAbort);
  try {
    const stopped = () => stopReason(state, deadline, signal);
    const finish = installPrelude(context, state, options);
    if ("error" in finish) return done(stopped() ?? finish.error);
    deadline = Date.now() + limits.wallTimeMs;
    const start = context.getProp(finish.handle, "start");
    startSandboxClock(context, start, deadline);
    start.dispose();
    let program: QuickJSHandle;
    {
      const evaluated = context.evalCode(wrapProgram(js), "program.js");
      if (evaluated.error) {
        const thrown = context.dump(evaluated.error) as { name?: string; message?: string } | undefined;
        evaluated.error.dispose();
        finish.handle.dispose();
        const reason = stopped();
        if (reason) return done(reason);
        const message = `${thrown?.name ?? "Error"}: ${thrown?.message ?? String(thrown)}`;
        return done(thrown?.name === "SyntaxError" ? { type: "syntax", message } : { type: "thrown", message });
      }
      program = evaluated.value;
    }
    state.unhandled = context.getProp(finish.handle, "unhandled");
    const called = context.callFunction(finish.handle, context.undefined, program);
    program.dispose();
    finish.handle.dispose();
    if (called.error) {
      called.error.dispose();
      return done(stopped() ?? { type: "internal", message: "code mode: the program's promise could not be observed" });
    }
    const outcome = called.value;
    try {
      return await drive(context, runtime, outcome, state, deadline, signal, done);
    } finally {
      outcome.dispose();
    }
  } finally {
    state.closed = true;
    state.ended.abort(new Error("the program ended"));
    signal?.removeEventListener("abort", onAbort);
    for (const deferred of state.deferreds) if (deferred.alive) deferred.dispose();
    if (state.unhandled?.alive) state.unhandled.dispose();
    context.dispose();
    runtime.dispose();
  }
}

/** The limit (or abort) that ends the program now, if any. */
function stopReason(state: RunState, deadline: number, signal: AbortSignal | undefined): ExecutionError | undefined {
  if (state.fatal) return state.fatal;
  if (signal?.aborted) return { type: "aborted", message: "the program was aborted" };
  if (Date.now() > deadline) return limitError("wallTimeMs", `the program ran longer than ${state.limits.wallTimeMs} ms`);
  return undefined;
}

/** Runs jobs and waits for host calls until the program's outcome settles or a limit ends it. */
async function drive(
  context: QuickJSContext,
  runtime: QuickJSRuntime,
  outcome: QuickJSHandle,
  state: RunState,
  deadline: number,
  signal: AbortSignal | undefined,
  done: (error: ExecutionError | undefined, value?: unknown) => ExecutionResult,
): Promise<ExecutionResult> {
  // Every iteration either settles the program, ends it, or awaits an event (a call, the deadline,
  // an abort): the loop is bounded by the wall-time limit.
  for (;;) {
    const jobs = runtime.executePendingJobs();
    if (jobs.error) {
      const thrown = context.dump(jobs.error) as { name?: string; message?: string } | undefined;
      jobs.error.dispose();
      return done(stopReason(state, deadline, signal) ?? limitFromThrown(state.limits, thrown) ?? internal(thrown));
    }
    const reason = stopReason(state, deadline, signal);
    if (reason) return done(reason);
    const promise = context.getPromiseState(outcome);
    if (promise.type === "fulfilled") {
      const report = readReport(context, promise.value) as string[];
      promise.value.dispose();
      // Every job has run: a rejection still unhandled now never will be (the program's own throw wins).
      const lost = report[0] !== "thrown" && state.unhandled ? unhandledFailure(context, state.unhandled) : undefined;
      return lost ? done(lost) : settle(report, state, done);
    }
    if (promise.type === "rejected") {
      const thrown = context.dump(promise.error) as { name?: string; message?: string } | undefined;
      promise.error.dispose();
      return done(limitFromThrown(state.limits, thrown) ?? internal(thrown));
    }
    if (state.inFlight === 0 && state.waiting.length === 0)
      return done({ type: "deadlock", message: "the program awaits a promise that nothing can settle (no tool call is in flight)" });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1);
      state.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    state.wake = () => {};
  }
}

/**
 * The prelude's report (an array of strings and arrays of strings) read element by element.
 * Not `context.dump`: it would JSON-encode the whole report once more inside the sandbox, so a
 * big value would need twice its size of sandbox memory just to be read out.
 */
function readReport(context: QuickJSContext, handle: QuickJSHandle): unknown {
  if (context.typeof(handle) === "string") return context.getString(handle);
  const lengthHandle = context.getProp(handle, "length");
  const length = context.getNumber(lengthHandle);
  lengthHandle.dispose();
  const out: unknown[] = [];
  for (let i = 0; i < length && i < 8; i++) {
    const item = context.getProp(handle, i);
    out.push(readReport(context, item));
    item.dispose();
  }
  return out;
}

const internal = (thrown: { name?: string; message?: string } | undefined): ExecutionError => ({
  type: "internal",
  message: `code mode: ${thrown?.name ?? "Error"}: ${thrown?.message ?? String(thrown)}`,
});

/** QuickJS reports its own limits as InternalErrors: out of memory and stack overflow. */
function limitFromThrown(limits: ExecutionLimits, thrown: { name?: string; message?: string } | undefined): ExecutionError | undefined {
  const message = String(thrown?.message ?? thrown ?? "");
  if (/out of memory/i.test(message)) return limitError("memoryBytes", `the program used more than ${limits.memoryBytes} bytes of memory`);
  if (/stack overflow/i.test(message))
    return limitError("stackBytes", `the program overflowed its ${limits.stackBytes}-byte stack (too deep a recursion)`);
  return undefined;
}

/** Turns the prelude's report of the settled program into the result. */
function settle(
  report: string[],
  state: RunState,
  done: (error: ExecutionError | undefined, value?: unknown) => ExecutionResult,
): ExecutionResult {
  const [kind, ...rest] = report;
  if (kind === "undefined") return done(undefined, undefined);
  if (kind === "json") {
    const text = rest[0] ?? "null";
    const bytes = utf8Length(text);
    if (bytes > state.limits.maxResultBytes)
      return done(
        limitError(
          "maxResultBytes",
          `result too large: the program's value is ${bytes} bytes of JSON, over the limit of ${state.limits.maxResultBytes}; return less (only the fields you need), or leave a big tool result to read_result`,
        ),
      );
    return done(undefined, JSON.parse(text));
  }
  if (kind === "unjsonable" && /out of memory/i.test(rest[0] ?? ""))
    return done(
      limitError(
        "memoryBytes",
        `the program's value is too big to encode as JSON within ${state.limits.memoryBytes} bytes of memory; return less`,
      ),
    );
  if (kind === "unjsonable") return done({ type: "result", message: `the program's value is not JSON: ${rest[0] ?? ""}` });
  const thrown = (rest[0] ?? []) as unknown as string[];
  const limit = limitFromThrown(state.limits, { message: thrown[0] === "error" ? (thrown[2] ?? "") : "" });
  if (limit && thrown[1] === "InternalError") return done(limit);
  if (thrown[0] === "tool") {
    const value = JSON.parse(thrown[1] ?? "{}") as { message?: string };
    return done({
      type: "thrown",
      name: "ToolError",
      message: String(value.message ?? ""),
      value,
      ...(thrown[2] ? { stack: thrown[2] } : {}),
    });
  }
  if (thrown[0] === "error")
    return done({ type: "thrown", name: thrown[1] ?? "Error", message: thrown[2] ?? "", ...(thrown[3] ? { stack: thrown[3] } : {}) });
  // A thrown string, number or object that is not an Error: kept as JSON text, bounded.
  const text = String(thrown[1] ?? "");
  const bounded = text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  return done({ type: "thrown", message: `the program threw a value that is not an Error: ${bounded}` });
}

/** Evaluates the prelude with the two host functions; returns `finish` or why the sandbox could not be set up. */
function installPrelude(
  context: QuickJSContext,
  state: RunState,
  options: ExecuteOptions,
): { handle: QuickJSHandle } | { error: ExecutionError } {
  const bindings: { [ns: string]: string[] } = {};
  for (const [ns, fns] of Object.entries(options.hostFunctions)) bindings[ns] = Object.keys(fns);
  const evaluated = context.evalCode(preludeSource(bindings), "prelude.js");
  if (evaluated.error) {
    const thrown = context.dump(evaluated.error);
    evaluated.error.dispose();
    return { error: internal(thrown) };
  }
  const hostFn = context.newFunction("host", (nsHandle, nameHandle, argsHandle) =>
    hostCall(context, state, options, context.getString(nsHandle), context.getString(nameHandle), context.getString(argsHandle)),
  );
  const consoleFn = context.newFunction("hostConsole", (levelHandle, textHandle) => {
    writeConsole(state, context.getString(levelHandle) as ConsoleLine["level"], context.getString(textHandle));
  });
  const called = context.callFunction(evaluated.value, context.undefined, hostFn, consoleFn);
  evaluated.value.dispose();
  hostFn.dispose();
  consoleFn.dispose();
  if (called.error) {
    const thrown = context.dump(called.error) as { message?: string };
    called.error.dispose();
    return { error: { type: "internal", message: `code mode: ${thrown?.message ?? String(thrown)}` } };
  }
  return { handle: called.value };
}
