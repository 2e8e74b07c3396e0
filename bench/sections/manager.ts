/**
 * Section 9: the manager path (`manager.callTool` over a live registry) against a direct caller
 * on the same raw stdio echo server; sequential p50 per call, in one worker per repetition.
 */
import { makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";
import { worker } from "./transport.ts";

/** Runs `config.reps` workers; the floor row is the direct caller, so `×floor` is the overhead. */
export async function measureManager(config: BenchConfig, log: (line: string) => void): Promise<Row[]> {
  const manager: number[] = [];
  const direct: number[] = [];
  for (let rep = 0; rep < config.reps; rep++) {
    const r = await worker<{ managerP50Us: number; directP50Us: number }>({
      mode: "manager",
      client: "toolwright",
      transport: "stdio",
      server: "raw-stdio",
      calls: config.managerCalls,
      warmup: Math.min(200, config.managerCalls),
    });
    manager.push(r.managerP50Us);
    direct.push(r.directP50Us);
  }
  log(`  manager: ${config.reps} repetitions done`);
  const base = { section: "manager", measure: "manager.callTool p50", server: "raw-stdio", unit: "µs", better: "lower" as const };
  return [
    makeRow({ ...base, client: "toolwright", label: "manager.callTool (live registry)", values: manager }),
    makeRow({ ...base, client: "raw", label: "direct caller (createStdioCaller)", values: direct }),
  ];
}
