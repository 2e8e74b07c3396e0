/**
 * Gaps closed after the first code-mode release (issue 27): values of several MB come back (or fail
 * with the documented result limit, never `internal`), strings grown without bound end at a
 * documented limit, and an un-awaited rejected call of the program's own `async` function fails the
 * program. Real QuickJS wasm executor and real TypeScript checker; no wall-clock assertion.
 */
import { describe, expect, it } from "vitest";
import { createTypeChecker } from "./check/type-checker.js";
import type { ExecutionResult, HostFunctions } from "./executor.js";
import { programFailure } from "./failures.js";
import { createQuickJsExecutor } from "./quickjs-executor.js";

const executor = createQuickJsExecutor();
const host: HostFunctions = { tools: { echo: async (args) => ({ ok: true, value: args }) } };
const run = (js: string, limits = {}) => executor.run(js, { hostFunctions: host, limits });
const failed = (r: ExecutionResult) => (r.ok ? undefined : r.error);
const healthy = async () => expect(await run(`return await tools.echo({ n: 1 });`)).toMatchObject({ ok: true, value: { n: 1 } });

describe("large values", () => {
  it("a 3 MB and an 8 MB value come back whole when the result limit allows them", async () => {
    for (const mb of [3, 8]) {
      const r = await run(`return { s: "v".repeat(${mb} * 1024 * 1024), n: ${mb} };`, { maxResultBytes: 32 * 1024 * 1024 });
      expect(r.ok).toBe(true);
      const value = (r as { value: { s: string; n: number } }).value;
      expect(value.n).toBe(mb);
      expect(value.s.length).toBe(mb * 1024 * 1024);
    }
    await healthy();
  });

  it("under the default 1 MiB limit a 3 MB value is the documented result limit, told to return less", async () => {
    const r = await run(`return "w".repeat(3 * 1024 * 1024);`);
    expect(failed(r)).toMatchObject({ type: "limit", limit: "maxResultBytes" });
    const failure = programFailure(failed(r)!, "return big");
    expect(failure).toMatchObject({ kind: "invalid_call", tool: "code_mode", recovery: { action: "replan" } });
    expect(failure.message).toMatch(/^result too large: .*3145730 bytes.*return less.*read_result/);
    await healthy();
  });

  it("a value too big to encode within the memory limit is the memory limit, not an internal failure", async () => {
    const r = await run(`const s = "m".repeat(5 * 1024 * 1024); return [s, s, s, s];`, {
      memoryBytes: 16 * 1024 * 1024,
      maxResultBytes: 64 * 1024 * 1024,
    });
    expect(failed(r)).toMatchObject({ type: "limit", limit: "memoryBytes" });
    await healthy();
  });
});

describe("strings grown without bound end at a documented limit", () => {
  it("s = s + s, caught or not, ends at QuickJS's length cap or the wall time; a giant repeat at the memory limit", async () => {
    const doubled = await run(`let s = "ab"; for (;;) s = s + s;`);
    expect(failed(doubled)).toMatchObject({ type: "thrown", name: "InternalError", message: "string too long" });
    // Catching the error does not help: the loop goes on until the uncatchable wall-time interrupt.
    const caught = await run(`let s = "ab"; for (;;) { try { s = s + s; } catch (e) { s = "ab"; } }`, { wallTimeMs: 300 });
    expect(failed(caught)).toMatchObject({ type: "limit", limit: "wallTimeMs" });
    const flat = await run(`let s = "ab"; for (;;) { s = s + s; s.indexOf("z"); }`, { wallTimeMs: 300 });
    expect(failed(flat)).toMatchObject({ type: "limit" });
    const repeat = await run(`return "x".repeat(2 ** 29).length;`);
    expect(failed(repeat)).toMatchObject({ type: "limit", limit: "memoryBytes" });
    const repeats = await run(`const a = []; for (;;) a.push("y".repeat(1 << 22));`);
    expect(failed(repeats)).toMatchObject({ type: "limit", limit: "memoryBytes" });
    await healthy();
  });
});

describe("un-awaited rejections of the program's own async functions", () => {
  const checker = createTypeChecker([]);
  const checkedRun = async (source: string) => {
    const checked = checker.check(source);
    if (!checked.ok) throw new Error(checked.failure.message);
    return run(checked.js);
  };

  it("an async arrow, function or method rejected and never awaited fails the program as unhandled", async () => {
    for (const source of [
      `(async () => { throw new Error("lost arrow"); })(); return 1;`,
      `async function f(): Promise<number> { await null; throw new Error("lost function"); } f(); return 1;`,
      `const o = { async m() { throw new Error("lost method"); } }; o.m(); return 1;`,
    ]) {
      const r = await checkedRun(source);
      expect(failed(r)).toMatchObject({ type: "unhandled" });
      expect(failed(r)!.message).toMatch(/rejected with Error: lost (arrow|function|method)/);
      expect(programFailure(failed(r)!, source)).toMatchObject({ kind: "invalid_call", recovery: { action: "correct_call" } });
    }
    // Without the check (plain JavaScript), the engine's own promise is still not observable.
    expect(await run(`(async () => { throw new Error("native"); })(); return 1;`)).toMatchObject({ ok: true, value: 1 });
  });

  it("awaited, caught and late-handled async calls behave exactly as before", async () => {
    const r = await checkedRun(`class A { v = 3; async get() { return this.v; } }
async function f(x: number) { if (x) throw new Error("caught " + arguments.length); return x; }
let note = "";
try { await f(1); } catch (e) { note = e.message; }
const late = (async () => { throw new Error("late"); })();
await null;
try { await late; } catch (e) { note += "/" + e.message; }
return [await new A().get(), await f(0), (await Promise.all([f(0), new A().get()])).length, note];`);
    expect(r).toMatchObject({ ok: true, value: [3, 0, 2, "caught 1/late"] });
  });
});

describe("operators on huge strings hold the deadline in checked programs", () => {
  const checker = createTypeChecker([]);
  it("a loop of === on 4 MB strings stops within one iteration past the deadline (not 10,000 polls later)", async () => {
    // Each iteration logs its start time (the sandbox's clock): after the deadline at most one more may start.
    const source = `const a = "x".repeat(1 << 22);
const b = "x".repeat(1 << 22);
let n = 0;
const start = Date.now();
console.log(String(start));
for (;;) {
  console.log(String(Date.now() - start));
  if (a === b + "") n++;
}`;
    const checked = checker.check(source);
    if (!checked.ok) throw new Error(checked.failure.message);
    const r = await executor.run(checked.js, { hostFunctions: host, limits: { wallTimeMs: 8000 } });
    expect(failed(r)).toMatchObject({ type: "limit", limit: "wallTimeMs" });
    const elapsed = r.console.slice(1).map((line) => Number(line.text));
    expect(elapsed.length).toBeGreaterThan(0);
    // The deadline is 8,000 ms after the clock started, which is before \`start\`: anything at or past 8,000 is late.
    expect(elapsed.filter((ms) => ms >= 8000).length).toBeLessThanOrEqual(1);
    await healthy();
  });

  it("array callbacks are checked too, and normal programs are unchanged by the checks", async () => {
    // Each callback compares two distinct 4 MB strings; a callback that starts after the deadline says so.
    const slow = checker.check(`const a = "y".repeat(1 << 22);
const b = "y".repeat(1 << 22);
const start = Date.now();
return Array.from({ length: 100000 }, (_, i) => i).map((i) => {
  if (Date.now() - start >= 3000) console.log("late");
  return a === b ? i : 0;
}).length;`);
    if (!slow.ok) throw new Error(slow.failure.message);
    expect(slow.js).toContain("__toolwrightTick()");
    const stopped = await executor.run(slow.js, { hostFunctions: host, limits: { wallTimeMs: 3000 } });
    expect(failed(stopped)).toMatchObject({ limit: "wallTimeMs" });
    expect(stopped.console.length).toBeLessThanOrEqual(1);
    const normal = checker.check(`let t = 0;
for (let i = 0; i < 1000; i++) t += i;
const f = function (x: number) { return x * 2; };
class C { m() { return [1, 2].map((v) => v + 1); } }
do { t++; } while (t < 0);
for (const k in { a: 1 }) t += k.length;
return [t, f(2), new C().m(), [3, 1].sort((x, y) => x - y)];`);
    if (!normal.ok) throw new Error(normal.failure.message);
    expect(await executor.run(normal.js, { hostFunctions: host })).toMatchObject({ ok: true, value: [499502, 4, [2, 3], [1, 3]] });
  });
});
