/**
 * Wall time between interrupt checks (issue 27, item 7). QuickJS asks the host's interrupt handler
 * only every 10,000 "polls" (calls and backward jumps), and the wasm build exposes no way to lower
 * that counter. A loop of single slow operations (an `indexOf` over a 30 MB string, a `repeat`, a
 * `join`) could therefore run 10,000 of them, minutes, past the deadline. So the prelude wraps the
 * built-ins whose one call can cost time proportional to a big input (string, array, regexp, JSON
 * and typed-array methods): each checks the deadline first, with the engine's own
 * `Date.now` (the host's clock) and no host call. Past the deadline it spins in an empty loop, which reaches the
 * next interrupt check within microseconds; the handler then ends the program with its
 * uncatchable interrupt, reported as the wall-time limit. Overrun is bounded by one operation.
 * Operators (`+`, `===` on huge strings) cannot be wrapped: for type-checked programs the checker
 * emits `tick()` (`__toolwrightTick`) first in every loop and function body (check/deadline-ticks.ts).
 * Cost: the wrapper frame, about a microsecond per wrapped call under load (measured: 4,000 calls
 * of padStart/slice take ~4 ms more); cheap built-ins are not wrapped for that reason.
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";

/**
 * Prelude code (inside its function, after its own captures): wraps the built-ins and defines
 * `startClock(deadlineMs)`, which the host calls once the program's clock starts.
 */
export const DEADLINE_CHECK_SOURCE = `
  const dateNow = Date.now;
  const applyOriginal = Reflect.apply;
  let deadline = Infinity;
  const startClock = (ms) => { deadline = ms; };
  // Checked programs call it first in every loop and function body (check/deadline-ticks.ts).
  const tick = () => { if (dateNow() > deadline) for (;;) {} };
  // Only the built-ins whose single call can scan or build a value as big as memory allows; cheap
  // ones (push, at, charCodeAt...) stay native, they sit in hot loops and cannot be slow.
  const slow = {
    String: ["fromCharCode", "fromCodePoint", "raw"],
    StringProto: ["concat", "endsWith", "includes", "indexOf", "lastIndexOf", "localeCompare", "match", "matchAll", "normalize",
      "padEnd", "padStart", "repeat", "replace", "replaceAll", "search", "slice", "split", "startsWith", "substring", "substr",
      "toLowerCase", "toUpperCase", "toLocaleLowerCase", "toLocaleUpperCase", "trim", "trimEnd", "trimStart"],
    Array: ["from"],
    ArrayProto: ["concat", "copyWithin", "fill", "flat", "flatMap", "includes", "indexOf", "join", "lastIndexOf", "reverse",
      "shift", "slice", "sort", "splice", "toReversed", "toSorted", "toSpliced", "unshift", "with"],
    RegExpProto: ["exec", "test"],
    JSON: ["parse", "stringify"],
    TypedArrayProto: ["fill", "includes", "indexOf", "join", "lastIndexOf", "set", "slice", "sort", "subarray", "toSorted"],
  };
  const wrap = (target, names) => {
    for (const key of names) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      const original = descriptor && descriptor.value;
      if (typeof original !== "function") continue;
      // Method syntax: the wrapper is not a constructor either, and keeps the name. Past the
      // deadline the empty loop reaches the next interrupt poll at once; the host then stops it.
      const wrapper = { [key]() { if (dateNow() > deadline) for (;;) {} return applyOriginal(original, this, arguments); } }[key];
      Object.defineProperty(wrapper, "length", { value: original.length });
      descriptor.value = wrapper;
      Object.defineProperty(target, key, descriptor);
    }
  };
  wrap(String, slow.String);
  wrap(String.prototype, slow.StringProto);
  wrap(Array, slow.Array);
  wrap(Array.prototype, slow.ArrayProto);
  wrap(RegExp.prototype, slow.RegExpProto);
  wrap(JSON, slow.JSON);
  wrap(Object.getPrototypeOf(Uint8Array.prototype), slow.TypedArrayProto);
`;

/** Tells the sandbox when the program's wall time ends (ms since epoch, the host's clock). */
export function startSandboxClock(context: QuickJSContext, start: QuickJSHandle, deadline: number): void {
  const value = context.newNumber(deadline);
  const called = context.callFunction(start, context.undefined, value);
  value.dispose();
  if (called.error) called.error.dispose();
  else called.value.dispose();
}
