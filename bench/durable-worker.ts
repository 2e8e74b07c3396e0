/**
 * Bench worker for the durable section (one fresh process per repetition): per-call cost of a
 * plain `runtime.execute`, of the same call as a durable step on DBOS (read-only: one step;
 * non-idempotent: intent + call), and of a bare DBOS step doing nothing, in wall time and in this
 * process's CPU time. Prints `RESULT <json>`.
 * Usage: node --import tsx bench/durable-worker.ts <database url> <calls>
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { defineDurableAgent, launchDurableWorker } from "@toolwright/dbos";
import { createRuntime, type ToolSpec } from "@toolwright/runtime";
import { createStdioCaller } from "@toolwright/runtime/stdio";

const [databaseUrl, callsArg] = process.argv.slice(2);
if (!databaseUrl) throw new Error("usage: durable-worker.ts <database url> <calls>");
const calls = Number(callsArg ?? "500");

const echo = (name: string, annotations: ToolSpec["annotations"]): ToolSpec => ({
  id: `bench.${name}`,
  toolset: "bench",
  name: "echo",
  providerName: `bench_${name}`,
  inputSchema: { type: "object" },
  annotations,
  decodePayload: (value) => ({ ok: true, value }),
});
const caller = createStdioCaller({
  name: "raw-echo",
  command: process.execPath,
  args: [fileURLToPath(new URL("./servers/raw-echo-stdio.mjs", import.meta.url))],
});
const runtime = createRuntime();
runtime.registerToolset({ toolset: "bench", caller, specs: [echo("read", { readOnly: true }), echo("write", {})] });

/** Wall and this process's CPU per call, in µs. */
const perCall = async (n: number, one: (i: number) => Promise<unknown>) => {
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) await one(i);
  const used = process.cpuUsage(cpu);
  return { wall: ((performance.now() - start) * 1000) / n, cpu: (used.user + used.system) / n };
};
type Cost = Awaited<ReturnType<typeof perCall>>;

const agent = defineDurableAgent<{ tool: string; n: number }, Cost>({
  name: "bench-calls",
  runtime,
  run: async (run, input) => {
    await run.execute({ tool: input.tool, arguments: { text: "warm" } }); // the run's start step, outside the timing
    return perCall(input.n, (i) => run.execute({ tool: input.tool, arguments: { text: `x${i}` } }));
  },
});
const bare = DBOS.registerWorkflow(async (n: number) => perCall(n, () => DBOS.runStep(async () => null, { name: "noop" })), {
  name: "bench-bare",
});

const worker = await launchDurableWorker({ databaseUrl, appName: "toolwright-bench", appVersion: "bench-1", logLevel: "error" });
try {
  const tag = `${process.pid}-${Date.now()}`;
  // Interleaved rounds, so drift in machine load falls on every measure alike.
  const rounds = 5;
  const n = Math.max(1, Math.floor(calls / rounds));
  const sums = { plain: [] as Cost[], bareStep: [] as Cost[], durableRead: [] as Cost[], durableWrite: [] as Cost[] };
  await perCall(200, (i) => runtime.execute({ tool: "bench.read", arguments: { text: `w${i}` } })); // warm the connection
  await (await DBOS.startWorkflow(bare, { workflowID: `warm-${tag}` })(50)).getResult(); // and the system database
  for (let r = 0; r < rounds; r++) {
    sums.plain.push(await perCall(n, (i) => runtime.execute({ tool: "bench.read", arguments: { text: `p${i}` } })));
    sums.bareStep.push(await (await DBOS.startWorkflow(bare, { workflowID: `bare-${tag}-${r}` })(n)).getResult());
    sums.durableRead.push(await (await agent.start({ tool: "bench.read", n }, { runId: `read-${tag}-${r}` })).result());
    sums.durableWrite.push(await (await agent.start({ tool: "bench.write", n }, { runId: `write-${tag}-${r}` })).result());
  }
  const mean = (list: readonly Cost[]): Cost => ({
    wall: list.reduce((a, c) => a + c.wall, 0) / list.length,
    cpu: list.reduce((a, c) => a + c.cpu, 0) / list.length,
  });
  const [plain, bareStep, durableRead, durableWrite] = [sums.plain, sums.bareStep, sums.durableRead, sums.durableWrite].map(mean);
  process.stdout.write(`RESULT ${JSON.stringify({ plain, bareStep, durableRead, durableWrite })}\n`);
} finally {
  await worker.shutdown();
  await caller.close();
}
