/**
 * Hostile programs against the real QuickJS wasm executor (issue 27, item 7): each is contained,
 * ends with a clear failure naming what stopped it, and the host and the next program are unharmed.
 * Limits are lowered where the default would only make the test slower; the behaviour is the same.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ExecutionResult, HostFunctions } from "./executor.js";
import { createQuickJsExecutor } from "./quickjs-executor.js";

const executor = createQuickJsExecutor();
let sent = 0;
const host: HostFunctions = {
  tools: {
    echo: async (args) => {
      sent++;
      return { ok: true, value: args };
    },
    fail: async () => ({ ok: false, error: { message: "nope" } }),
  },
};
const run = (js: string, limits = {}) => executor.run(js, { hostFunctions: host, limits });
const failed = (r: ExecutionResult) => (r.ok ? undefined : r.error);

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
process.on("unhandledRejection", onRejection);
afterAll(() => {
  process.off("unhandledRejection", onRejection);
});

/** After every hostile program the sandbox still runs a normal one, with a fresh global scope. */
async function stillHealthy(): Promise<void> {
  const r = await run(`return [typeof leaked, ({}).polluted, await tools.echo({ ok: 1 })]`);
  expect(r).toMatchObject({ ok: true, value: ["undefined", null, { ok: 1 }] });
}

describe("hostile programs are contained", () => {
  it("an infinite loop ends at the wall-time limit", async () => {
    const r = await run("globalThis.leaked = 1; while (true) {}", { wallTimeMs: 300 });
    expect(failed(r)).toMatchObject({ type: "limit", limit: "wallTimeMs" });
    await stillHealthy();
  });

  it("an infinite loop inside a catch-all try still ends (the interrupt is uncatchable)", async () => {
    const r = await run("for (;;) { try { while (true) {} } catch (e) {} }", { wallTimeMs: 300 });
    expect(failed(r)).toMatchObject({ type: "limit", limit: "wallTimeMs" });
    await stillHealthy();
  });

  it("a loop of slow single operations ends at the wall-time limit (slow built-ins check the deadline)", async () => {
    // Each indexOf scans 8 MB: thousands of them between two interrupt polls would overrun by minutes.
    const scan = await run(`const s = "x".repeat(1 << 23); let n = 0; for (;;) n += s.indexOf("y");`, { wallTimeMs: 200 });
    expect(failed(scan)).toMatchObject({ type: "limit", limit: "wallTimeMs" });
    // Caught or not, the stop is the uncatchable interrupt.
    const caught = await run(`const a = new Array(1 << 20).fill(7); for (;;) { try { a.join(","); } catch (e) {} }`, { wallTimeMs: 200 });
    expect(failed(caught)).toMatchObject({ type: "limit", limit: "wallTimeMs" });
    // The wrapped built-ins behave as before: names, lengths, results, errors, not constructors.
    const same = await run(`return ["ab".repeat(2), "".padStart.length, [3, 1, 2].sort().join(), JSON.stringify({ a: [1] }),
      "a-b".split("-"), String.prototype.indexOf.name, (() => { try { new "".repeat(); return "constructed"; } catch (e) { return e.name; } })(),
      (() => { try { "x".repeat(-1); } catch (e) { return e.name; } })()];`);
    expect(same).toMatchObject({ ok: true, value: ["abab", 1, "1,2,3", '{"a":[1]}', ["a", "b"], "indexOf", "TypeError", "RangeError"] });
    await stillHealthy();
  });

  it("deep recursion ends at the stack limit", async () => {
    const r = await run("const f = (n) => f(n + 1) + 1; return f(0);");
    expect(failed(r)).toMatchObject({ type: "limit", limit: "stackBytes" });
    await stillHealthy();
  });

  it("a memory bomb ends at the memory limit", async () => {
    const r = await run(`const a = []; for (;;) a.push(new Array(100000).fill(a.length));`, { memoryBytes: 16 * 1024 * 1024 });
    expect(failed(r)).toMatchObject({ type: "limit", limit: "memoryBytes" });
    const strings = await run(`const a = []; for (;;) a.push("x".repeat(1 << 20) + a.length);`, { memoryBytes: 16 * 1024 * 1024 });
    expect(failed(strings)).toMatchObject({ type: "limit", limit: "memoryBytes" });
    // Caught, the bomb's memory is freed: the program goes on within its limit.
    const caught = await run(`try { const a = []; for (;;) a.push(new Array(100000).fill(1)); } catch (e) { return String(e); }`, {
      memoryBytes: 16 * 1024 * 1024,
    });
    expect(caught).toMatchObject({ ok: true, value: "InternalError: out of memory" });
    await stillHealthy();
  });

  it("a huge string ends at the memory limit, and a huge value at the result limit", async () => {
    const big = await run(`return "x".repeat(2 ** 28).length;`, { memoryBytes: 16 * 1024 * 1024 });
    expect(failed(big)).toMatchObject({ type: "limit", limit: "memoryBytes" });
    // Doubling builds a rope, not a flat string, until QuickJS's own length cap stops it.
    const doubled = await run(`let s = "x"; for (let i = 0; i < 40; i++) s = s + s; return s.length;`, { memoryBytes: 16 * 1024 * 1024 });
    expect(failed(doubled)).toMatchObject({ type: "thrown", name: "InternalError", message: "string too long" });
    const value = await run(`return "y".repeat(200000);`, { maxResultBytes: 100_000 });
    expect(failed(value)).toMatchObject({ type: "limit", limit: "maxResultBytes" });
    const printed = await run(`for (let i = 0; i < 1000; i++) console.log("z".repeat(1000)); return 1;`, { maxConsoleBytes: 50_000 });
    expect(failed(printed)).toMatchObject({ type: "limit", limit: "maxConsoleBytes" });
    expect(printed.console.length).toBeLessThan(50);
    await stillHealthy();
  });

  it("process, require, fetch, timers and the environment do not exist; import() loads nothing", async () => {
    const r = await run(`return [typeof process, typeof require, typeof fetch, typeof setTimeout, typeof setInterval,
      typeof XMLHttpRequest, typeof WebAssembly, typeof Deno, typeof Bun, typeof module, typeof std, typeof os];`);
    expect(r).toMatchObject({ ok: true, value: Array(12).fill("undefined") });
    const imported = await run(`const fs = await import("node:fs"); return typeof fs.readFileSync;`);
    expect(failed(imported)).toMatchObject({ type: "thrown" });
    expect((failed(imported) as { message: string }).message).toMatch(/could not load module/);
    await stillHealthy();
  });

  it("Function and eval reach only the sandbox's own global", async () => {
    const r = await run(`
      const g1 = Function("return this")();
      const g2 = (0, eval)("this");
      const g3 = await tools.echo.constructor("return this")();
      const ctor = (async () => {}).constructor;
      const g4 = await ctor("return globalThis")();
      return [g1 === globalThis, g2 === globalThis, g3 === globalThis, g4 === globalThis,
        typeof g1.process, typeof eval("typeof require"), typeof g1.require];`);
    expect(r).toMatchObject({ ok: true, value: [true, true, true, true, "undefined", "string", "undefined"] });
    expect(r.ok && r.value).toBeTruthy();
    await stillHealthy();
  });

  it("prototype pollution stays in the sandbox: host prototypes are unchanged and the next run is clean", async () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    const r = await run(`
      Object.prototype.polluted = "yes";
      Array.prototype.map = () => "hijacked";
      JSON.parse = () => ({ forged: true });
      JSON.stringify = () => "forged";
      const fixed = (() => { try { Promise.prototype.then = function () { return "hijacked"; }; } catch (e) { return e.name; } })();
      const echoed = await tools.echo({ a: 1, __proto__: { b: 2 } });
      return { echoed, own: Object.keys(echoed), fixed };`);
    // The prelude captured JSON and Promise#then first: the value is still reported faithfully.
    // Promise#then of the (tracking) global Promise is fixed: replacing it throws.
    expect(r).toMatchObject({ ok: true, value: { echoed: { a: 1 }, own: ["a"], fixed: "TypeError" } });
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect([1].map((x) => x + 1)).toEqual([2]);
    await stillHealthy();
  });

  it("a host result with a __proto__ key is data in the sandbox, not a prototype", async () => {
    const r = await executor.run(`const v = await t.get({}); return [Object.keys(v), v.polluted === undefined, ({}).polluted];`, {
      hostFunctions: { t: { get: async () => ({ ok: true, value: JSON.parse('{"__proto__": {"polluted": 1}, "x": 2}') }) } },
    });
    expect(r).toMatchObject({ ok: true, value: [["__proto__", "x"], true, null] });
  });

  it("an unhandled rejection ends the program with a clear failure; handled ones do not, and none reaches the host", async () => {
    const before = rejections.length;
    const ignored = await run(`Promise.reject(new Error("ignored")); return "done";`);
    expect(failed(ignored)).toMatchObject({ type: "unhandled", message: expect.stringContaining("Error: ignored") });
    const built = await run(`new Promise((_, reject) => reject(new TypeError("built"))); return 1;`);
    expect(failed(built)).toMatchObject({ type: "unhandled", message: expect.stringContaining("TypeError: built") });
    const chained = await run(`Promise.resolve(1).then(() => { throw new Error("in then"); }); await tools.echo({}); return 1;`);
    expect(failed(chained)).toMatchObject({ type: "unhandled", message: expect.stringContaining("in then") });
    // A failed tool call nobody awaits: its ToolError is reported, not silently dropped.
    const call = await run(`tools.fail({}); await tools.echo({}); await tools.echo({}); return 1;`);
    expect(failed(call)).toMatchObject({ type: "unhandled", message: expect.stringContaining("ToolError: nope") });
    const two = await run(`Promise.reject(new Error("a")); Promise.reject(new Error("b")); return 1;`);
    expect(failed(two)).toMatchObject({ type: "unhandled", message: expect.stringContaining("(and 1 more)") });
    // Handled late, by catch, by Promise.all/allSettled, by await: no failure.
    const handled = await run(`
      const late = Promise.reject(new Error("late")); await tools.echo({}); const a = await late.catch((e) => e.message);
      const b = await Promise.allSettled([tools.fail({}), Promise.reject(1)]);
      const c = await Promise.all([tools.echo({ x: 1 }), tools.fail({})]).catch((e) => e.name);
      let d; try { await tools.fail({}); } catch (e) { d = e.message; }
      const e = await Promise.reject(2).finally(() => {}).then(null, (v) => v);
      return [a, b.map((s) => s.status), c, d, e, Promise.resolve(1) instanceof Promise, (async () => 1)() instanceof Promise];`);
    expect(handled).toMatchObject({ ok: true, value: ["late", ["rejected", "rejected"], "ToolError", "nope", 2, true, true] });
    // The program's own throw is the failure, not the rejections it left behind.
    const awaited = await run(`Promise.reject(new Error("left")); await Promise.reject(new RangeError("boom"));`);
    expect(failed(awaited)).toMatchObject({ type: "thrown", name: "RangeError", message: "boom" });
    // Known gap (see unhandled.ts): the intrinsic promise of the program's own async function is not seen.
    const own = await run(`(async () => { throw new Error("own"); })(); return "done";`);
    expect(own).toMatchObject({ ok: true, value: "done" });
    expect(rejections.length).toBe(before);
    await stillHealthy();
  });

  it("thrown non-errors become a clear failure with the value", async () => {
    expect(failed(await run(`throw 42;`))).toMatchObject({ type: "thrown", message: "the program threw a value that is not an Error: 42" });
    expect(failed(await run(`throw { code: "E1" };`))).toMatchObject({ message: expect.stringContaining('{"code":"E1"}') });
    expect(failed(await run(`throw undefined;`))).toMatchObject({ message: expect.stringContaining("undefined") });
    const cyclic = await run(`const o = {}; o.o = o; throw o;`);
    expect(failed(cyclic)).toMatchObject({ type: "thrown", message: expect.stringContaining("[object Object]") });
    await stillHealthy();
  });

  it("10,000 calls hit the call limit, even when the program catches every failure", async () => {
    const start = sent;
    const r = await run(`for (let i = 0; i < 10000; i++) { try { await tools.echo({ i }); } catch (e) {} } return "finished";`);
    expect(failed(r)).toMatchObject({ type: "limit", limit: "maxCalls", message: "the program made more than 256 tool calls" });
    expect(sent - start).toBe(256);
    expect(r.calls).toBe(257);
    const parallel = await run(`return (await Promise.all(Array.from({ length: 10000 }, (_, i) => tools.echo({ i })))).length;`);
    expect(failed(parallel)).toMatchObject({ type: "limit", limit: "maxCalls" });
    await stillHealthy();
  });

  it("in-flight calls are capped; the rest wait their turn and all complete", async () => {
    let inFlight = 0;
    let peak = 0;
    const slow: HostFunctions = {
      t: {
        wait: async (args) => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await new Promise((resolve) => setImmediate(resolve));
          inFlight--;
          return { ok: true, value: args };
        },
      },
    };
    const r = await executor.run(
      `return (await Promise.all(Array.from({ length: 20 }, (_, i) => t.wait(i)))).reduce((a, b) => a + b, 0);`,
      {
        hostFunctions: slow,
        limits: { maxInFlight: 3 },
      },
    );
    expect(r).toMatchObject({ ok: true, value: 190, calls: 20 });
    expect(peak).toBe(3);
  });

  it("a program awaiting forever with nothing in flight ends at once as a deadlock", async () => {
    expect(failed(await run(`await new Promise(() => {});`))).toMatchObject({ type: "deadlock" });
  });

  it("an abort signal stops a running program", async () => {
    const controller = new AbortController();
    const pending = executor.run(`while (true) {}`, { hostFunctions: host, signal: controller.signal });
    controller.abort();
    expect(failed(await pending)).toMatchObject({ type: "aborted" });
    await stillHealthy();
  });

  it("host functions get JSON copies: a host object mutated by the program is unchanged", async () => {
    const shared = { list: [1, 2] };
    const r = await executor.run(`const v = await t.get({}); v.list.push(3); v.extra = true; return v;`, {
      hostFunctions: { t: { get: async () => ({ ok: true, value: shared }) } },
    });
    expect(r).toMatchObject({ ok: true, value: { list: [1, 2, 3], extra: true } });
    expect(shared).toEqual({ list: [1, 2] });
  });
});
