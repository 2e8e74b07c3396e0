/**
 * Section 8: the cost of a durable tool call on DBOS and PostgreSQL (a throwaway cluster, fsync
 * off) against a plain call to the same stdio server and against a bare DBOS step doing nothing.
 */
import { fileURLToPath } from "node:url";
import { PostgresMissingError, startThrowawayPostgres } from "@toolwright/dbos/postgres";
import { parseResult, run } from "../lib/spawn.ts";
import { makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";

const HERE = fileURLToPath(new URL("..", import.meta.url));

interface Cost {
  readonly wall: number;
  readonly cpu: number;
}

interface DurableResult {
  readonly plain: Cost;
  readonly bareStep: Cost;
  readonly durableRead: Cost;
  readonly durableWrite: Cost;
}

/** Per-call µs, `config.reps` fresh worker processes against one cluster. Empty (with a note) without PostgreSQL. */
export async function measureDurable(config: BenchConfig, log: (line: string) => void, note: (text: string) => void): Promise<Row[]> {
  let pg: Awaited<ReturnType<typeof startThrowawayPostgres>>;
  try {
    pg = await startThrowawayPostgres();
  } catch (error) {
    if (!(error instanceof PostgresMissingError)) throw error;
    note(`durable section skipped: ${error.message}`);
    return [];
  }
  const calls = config.quick ? 200 : 1000;
  const results: DurableResult[] = [];
  try {
    for (let rep = 0; rep < config.reps; rep++) {
      const finished = await run(
        process.execPath,
        ["--import", "tsx", `${HERE}durable-worker.ts`, pg.url("toolwright_bench"), String(calls)],
        {
          cwd: `${HERE}..`,
          timeoutMs: 300_000,
        },
      );
      const result = parseResult<DurableResult>(finished, "durable worker");
      results.push(result);
      const us = (c: Cost) => `${c.wall.toFixed(0)} µs (cpu ${c.cpu.toFixed(0)})`;
      log(
        `  durable rep ${rep + 1}: plain ${us(result.plain)}, bare DBOS step ${us(result.bareStep)}, durable read ${us(result.durableRead)}, durable write ${us(result.durableWrite)}`,
      );
    }
  } finally {
    await pg.stop();
  }
  note(
    `durable: ${calls} sequential calls per repetition to the raw stdio echo server; plain = runtime.execute, "sdk" = a bare DBOS.runStep doing nothing, toolwright = run.execute inside a DBOS workflow (read-only tool: 1 step; non-idempotent: intent + call, 2 steps). PostgreSQL on 127.0.0.1 with fsync off.`,
  );
  const rows: Row[] = [];
  for (const [kind, unit] of [
    ["wall", "µs/call"],
    ["cpu", "worker CPU µs/call"],
  ] as const) {
    const row = (measure: string, client: "raw" | "sdk" | "toolwright", label: string, pick: (r: DurableResult) => Cost) =>
      makeRow({
        section: "durable",
        measure: `${measure} (${kind})`,
        server: "raw-echo-stdio",
        client,
        label,
        unit,
        better: "lower",
        values: results.map((r) => pick(r)[kind]),
      });
    rows.push(
      row("call, read-only tool", "raw", "plain runtime.execute", (r) => r.plain),
      row("call, read-only tool", "sdk", "bare DBOS step (no-op)", (r) => r.bareStep),
      row("call, read-only tool", "toolwright", "durable run.execute (1 step)", (r) => r.durableRead),
      row("call, non-idempotent tool", "raw", "plain runtime.execute", (r) => r.plain),
      row("call, non-idempotent tool", "sdk", "bare DBOS step (no-op)", (r) => r.bareStep),
      row("call, non-idempotent tool", "toolwright", "durable run.execute (intent + call)", (r) => r.durableWrite),
    );
  }
  return rows;
}
