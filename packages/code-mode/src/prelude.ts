/**
 * The JavaScript that runs inside the sandbox before the program: `ToolError`, a captured
 * `console`, one frozen object per namespace whose functions call the host, and `finish`, which
 * turns the program's promise into plain strings for the host. It captures `JSON`, `Promise.then`
 * and `Object.keys` first, so a program that replaces them breaks only itself, never the way its
 * value or its failure is reported. The global `Promise` is replaced by a tracking subclass (see
 * unhandled.ts) so a rejection nobody handles is reported when the program ends, and the slow
 * built-ins check the deadline (see deadline.ts).
 */

import { DEADLINE_CHECK_SOURCE } from "./deadline.js";
import { TRACK_REJECTIONS_SOURCE } from "./unhandled.js";

/** The namespaces and their function names, as the sandbox sees them. */
export interface PreludeBindings {
  readonly [namespace: string]: readonly string[];
}

/**
 * The prelude's source: an expression whose value is a function `(host, hostConsole) => finish`.
 * `bindings` is embedded as JSON text (a JSON value is a valid JavaScript expression), never as code.
 */
export function preludeSource(bindings: PreludeBindings): string {
  return `(function (host, hostConsole) {
  "use strict";
  const bindings = ${JSON.stringify(bindings)};
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const then = Promise.prototype.then;
  const keys = Object.keys;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const ErrorClass = Error;
  const hostErrors = new WeakMap();
${TRACK_REJECTIONS_SOURCE}
${DEADLINE_CHECK_SOURCE}
  class ToolError extends ErrorClass {
    constructor(error) {
      super(String(error && error.message));
      defineProperty(this, "name", { value: "ToolError", enumerable: false, writable: true, configurable: true });
      for (const key of keys(error)) if (key !== "message" && key !== "name" && key !== "stack") this[key] = error[key];
      if (this.issues === undefined) this.issues = (error.recovery && error.recovery.issues) || [];
      hostErrors.set(this, stringify(error));
    }
  }
  const show = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof ErrorClass) return String(value.name) + ": " + String(value.message);
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text;
    } catch (e) {
      return String(value);
    }
  };
  const out = {};
  for (const level of ["log", "info", "warn", "error", "debug"])
    out[level] = (...args) => { hostConsole(level, args.map(show).join(" ")); };
  globalThis.console = freeze(out);
  globalThis.ToolError = ToolError;
  for (const ns of keys(bindings)) {
    if (ns in globalThis) throw new TypeError("namespace " + ns + " collides with a global of the sandbox");
    const api = {};
    for (const name of bindings[ns]) {
      const call = async function (args) {
        const json = stringify(args === undefined ? {} : args);
        if (json === undefined) throw new TypeError(ns + "." + name + ": the arguments are not JSON");
        const answer = parse(await host(ns, name, json));
        if (answer.ok) return answer.value;
        throw new ToolError(answer.error);
      };
      // A tracked promise, so a failed call nobody awaits is reported (see unhandled.ts).
      api[name] = function (args) { return track(call(args)); };
    }
    defineProperty(globalThis, ns, { value: freeze(api), enumerable: true, writable: false, configurable: false });
  }
  const describe = (e) => {
    if (e instanceof ToolError && hostErrors.has(e)) return ["tool", hostErrors.get(e), String(e.stack || "")];
    if (e instanceof ErrorClass) return ["error", String(e.name), String(e.message), String(e.stack || "")];
    let text;
    try { text = stringify(e); } catch (x) { text = undefined; }
    return ["value", text === undefined ? String(e) : text];
  };
  const finish = function finish(promise) {
    return then.call(promise, (value) => {
      if (value === undefined) return ["undefined"];
      try {
        const text = stringify(value);
        return text === undefined ? ["undefined"] : ["json", text];
      } catch (e) {
        return ["unjsonable", show(e)];
      }
    }, (e) => ["thrown", describe(e)]);
  };
  // For checked programs: their own async functions return tracked promises (check/track-async.ts).
  defineProperty(globalThis, "__toolwrightTrack", { value: track, enumerable: false, writable: false, configurable: false });
  defineProperty(globalThis, "__toolwrightTick", { value: tick, enumerable: false, writable: false, configurable: false });
  defineProperty(finish, "unhandled", { value: () => unhandledReport(show) });
  defineProperty(finish, "start", { value: startClock });
  return finish;
})`;
}

/**
 * The program wrapped as the body of an async function, on the same lines as written (the opening
 * is on line 1 with the program's first line), so line numbers in errors match the source.
 */
export function wrapProgram(js: string): string {
  return `(async () => { "use strict"; ${js}\n})()`;
}
