/**
 * The host side of one QuickJS run (quickjs-executor.ts): the state the run shares with its host
 * functions, console lines under their byte limit, and tool calls from the program, counted,
 * queued under the in-flight limit and answered as JSON strings. Split from the executor so each
 * file reads as one concern: driving the wasm context there, answering the program here.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten-core";
import type { ConsoleLine, ExecuteOptions, ExecutionError, ExecutionLimits, HostAnswer, LimitName } from "./executor.js";

const utf8Length = (text: string) => Buffer.byteLength(text, "utf8");

/** The state of one run, shared by the host functions and the loop that drives the program. */
export interface RunState {
  readonly limits: ExecutionLimits;
  readonly console: ConsoleLine[];
  consoleBytes: number;
  calls: number;
  inFlight: number;
  /** Calls over `maxInFlight`, waiting for a slot. */
  readonly waiting: (() => void)[];
  /** Set when the host decided the program must end (a limit); the interrupt handler then stops it. */
  fatal: ExecutionError | undefined;
  /** Wakes the driving loop (a call settled, a limit hit, the deadline, an abort). */
  wake: () => void;
  readonly deferreds: Set<QuickJSDeferredPromise>;
  closed: boolean;
  /** Aborted when the run ends, so host calls still in flight stop too. */
  readonly ended: AbortController;
  /** The prelude's unhandled-rejection report (a function), asked once the program has settled. */
  unhandled: QuickJSHandle | undefined;
}

/** The error that ends a run at a limit. */
export const limitError = (limit: LimitName, message: string): ExecutionError => ({ type: "limit", limit, message });

/** Records one console line, or ends the program when the console limit is passed. */
export function writeConsole(state: RunState, level: ConsoleLine["level"], text: string): void {
  if (state.fatal) return;
  const bytes = utf8Length(text) + 1;
  if (state.consoleBytes + bytes > state.limits.maxConsoleBytes) {
    state.fatal = limitError("maxConsoleBytes", `the program printed more than ${state.limits.maxConsoleBytes} bytes to the console`);
    state.wake();
    return;
  }
  state.consoleBytes += bytes;
  state.console.push({ level, text });
}

/** One host call from the program: counted, queued under the in-flight limit, answered as a JSON string. */
export function hostCall(
  context: QuickJSContext,
  state: RunState,
  options: ExecuteOptions,
  ns: string,
  name: string,
  argsJson: string,
): QuickJSHandle {
  const deferred = context.newPromise();
  state.deferreds.add(deferred);
  state.calls++;
  if (state.calls > state.limits.maxCalls) {
    // The program ends at once (a thrown error could be caught and the loop go on to call 10,000 times).
    state.fatal ??= limitError("maxCalls", `the program made more than ${state.limits.maxCalls} tool calls`);
    state.wake();
    return deferred.handle;
  }
  const start = () => {
    state.inFlight++;
    void answer(options, ns, name, argsJson, state.ended.signal).then(({ json, stop }) => {
      state.inFlight--;
      state.waiting.shift()?.();
      if (state.closed || !deferred.alive) return;
      if (stop !== undefined) {
        state.fatal ??= { type: "stopped", message: stop };
        state.wake();
        return;
      }
      const value = context.newString(json);
      deferred.resolve(value);
      value.dispose();
      state.deferreds.delete(deferred);
      state.wake();
    });
  };
  if (state.inFlight < state.limits.maxInFlight) start();
  else state.waiting.push(start);
  return deferred.handle;
}

/** Runs the host function; every outcome (even a throw or a non-JSON value) becomes a JSON answer. */
async function answer(
  options: ExecuteOptions,
  ns: string,
  name: string,
  argsJson: string,
  signal: AbortSignal,
): Promise<{ json: string; stop?: string }> {
  const fn = Object.hasOwn(options.hostFunctions, ns) ? options.hostFunctions[ns]?.[name] : undefined;
  let result: HostAnswer;
  try {
    if (!fn || !Object.hasOwn(options.hostFunctions[ns] ?? {}, name)) throw new Error(`no host function ${ns}.${name}`);
    result = await fn(JSON.parse(argsJson), { signal });
  } catch (error) {
    result = { ok: false, error: { message: `host function ${ns}.${name} failed: ${(error as Error)?.message ?? String(error)}` } };
  }
  if (!result.ok && result.stop === true) return { json: "", stop: String(result.error.message) };
  try {
    return { json: JSON.stringify(result) };
  } catch (error) {
    return {
      json: JSON.stringify({ ok: false, error: { message: `the answer of ${ns}.${name} is not JSON: ${(error as Error).message}` } }),
    };
  }
}
