/**
 * Unhandled rejections (issue 27, item 7). The QuickJS wasm build exposes no promise rejection
 * tracker (`JS_SetHostPromiseRejectionTracker` is not in its FFI), so the prelude tracks rejections
 * itself: the sandbox's global `Promise` becomes a subclass whose instances watch their own
 * rejection and whose `then` marks them handled. A subclass (not the native class) is what makes
 * `await`, `Promise.all`/`race`/`any`, `catch` and `finally` observable: for a promise whose
 * constructor is not the intrinsic one, they all go through its `then`. Tool calls return such
 * promises too. A program that ends while one of them is rejected and was never handled fails with
 * `{ type: "unhandled" }` naming the first reason, the way Node ends a process on one.
 *
 * The program's own `async` functions: the engine creates their promises from the intrinsic class,
 * which no script can replace. The type checker therefore emits every async function of a checked
 * program so that it returns a tracked promise (check/track-async.ts, through the global
 * `__toolwrightTrack` defined by the prelude), and an un-awaited rejected call of one fails the
 * program the same way. JavaScript given to the executor without the check keeps native async
 * functions, whose un-awaited rejections stay unseen (the wasm build has no rejection tracker).
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import type { ExecutionError } from "./executor.js";

/**
 * Prelude code (inside its function, after `then` is captured): defines `TrackedPromise`, installs
 * it as the global `Promise`, and `unhandledReport()`, which gives `[count, firstReasonText]`.
 * `describe`-like text is computed by `showReason`, passed by the prelude.
 */
export const TRACK_REJECTIONS_SOURCE = `
  const apply = Reflect.apply;
  const NativePromise = Promise;
  const MapClass = Map;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const mapValues = Map.prototype.values;
  const iteratorNext = Object.getPrototypeOf(new Map().values()).next;
  const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, "size").get;
  const weakAdd = WeakSet.prototype.add;
  const weakHas = WeakSet.prototype.has;
  const handledPromises = new WeakSet();
  const rejectedUnhandled = new MapClass();
  let quiet = false;
  class TrackedPromise extends NativePromise {
    constructor(executor) {
      super(executor);
      // The watcher's own derived promise is a TrackedPromise too: it must not watch itself.
      if (quiet) return;
      quiet = true;
      try {
        apply(then, this, [undefined, (reason) => {
          if (!apply(weakHas, handledPromises, [this])) apply(mapSet, rejectedUnhandled, [this, reason]);
        }]);
      } finally {
        quiet = false;
      }
    }
    then(onFulfilled, onRejected) {
      apply(weakAdd, handledPromises, [this]);
      apply(mapDelete, rejectedUnhandled, [this]);
      return apply(then, this, [onFulfilled, onRejected]);
    }
    static [Symbol.hasInstance](value) {
      return value instanceof NativePromise;
    }
  }
  defineProperty(TrackedPromise, "name", { value: "Promise" });
  // Fixed, or a program that replaced it would break await on every tracked promise (await calls it).
  defineProperty(TrackedPromise.prototype, "then", { writable: false, configurable: false });
  defineProperty(globalThis, "Promise", { value: TrackedPromise, enumerable: false, writable: true, configurable: true });
  const track = (promise) => new TrackedPromise((resolve, reject) => { apply(then, promise, [resolve, reject]); });
  const unhandledReport = (showReason) => {
    const count = apply(mapSize, rejectedUnhandled, []);
    if (count === 0) return [0, ""];
    const first = apply(iteratorNext, apply(mapValues, rejectedUnhandled, []), []);
    return [count, showReason(first.value)];
  };
`;

/**
 * Calls the prelude's report (a function handle) once the program has settled and every job has run;
 * gives the failure when a rejection was never handled, else `undefined`.
 */
export function unhandledFailure(context: QuickJSContext, report: QuickJSHandle): ExecutionError | undefined {
  const called = context.callFunction(report, context.undefined);
  if (called.error) {
    called.error.dispose();
    return undefined;
  }
  const [count, reason] = context.dump(called.value) as [number, string];
  called.value.dispose();
  if (!count) return undefined;
  const others = count > 1 ? ` (and ${count - 1} more)` : "";
  return {
    type: "unhandled",
    message: `the program ended while a promise it never awaited or caught was rejected with ${reason}${others}; await every promise (or catch it)`,
  };
}
