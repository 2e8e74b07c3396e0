/**
 * Section 9: the manager path (`manager.callTool` over a live registry) against a direct caller
 * on the same raw stdio echo server; sequential p50 per call, in one worker per repetition. Each
 * worker measures two windows: the first calls after a short warm-up (V8 still optimising both
 * paths) and, after `settle` more calls each, the steady state, in 100-call blocks whose order
 * alternates (ABBA), so the path that goes first is not always measured earlier as both speed up. Workers are pinned to one CPU
 * (client and both servers), as the stdio latency ratios are: unpinned, a sequential p50 follows
 * where the scheduler puts each server child (a wake-up on the other, idle CPU costs 50-90 µs), and
 * the steady window once read 0.32x because the direct caller's server had landed on the idle CPU.
 */
import { makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";
import { worker } from "./transport.ts";

/** Runs `config.managerReps` workers; the floor row is the direct caller, so `×floor` is the overhead. */
export async function measureManager(config: BenchConfig, log: (line: string) => void): Promise<Row[]> {
  const manager: number[] = [];
  const direct: number[] = [];
  const earlyManager: number[] = [];
  const earlyDirect: number[] = [];
  for (let rep = 0; rep < config.managerReps; rep++) {
    const r = await worker<{ managerP50Us: number; directP50Us: number; earlyManagerP50Us: number; earlyDirectP50Us: number }>(
      {
        mode: "manager",
        client: "toolwright",
        transport: "stdio",
        server: "raw-stdio",
        calls: config.managerCalls,
        warmup: Math.min(200, config.managerCalls),
        settle: config.managerCalls,
      },
      { pinned: true },
    );
    manager.push(r.managerP50Us);
    direct.push(r.directP50Us);
    earlyManager.push(r.earlyManagerP50Us);
    earlyDirect.push(r.earlyDirectP50Us);
  }
  log(`  manager: ${config.managerReps} repetitions done`);
  const base = { section: "manager", measure: "manager.callTool p50", server: "raw-stdio", unit: "µs", better: "lower" as const };
  const first = { ...base, measure: "manager.callTool p50, first calls" };
  return [
    makeRow({ ...base, client: "toolwright", label: "manager.callTool (live registry), steady", values: manager }),
    makeRow({ ...base, client: "raw", label: "direct caller (createStdioCaller), steady", values: direct }),
    makeRow({ ...first, client: "toolwright", label: "manager.callTool (live registry), first calls", values: earlyManager }),
    makeRow({ ...first, client: "raw", label: "direct caller (createStdioCaller), first calls", values: earlyDirect }),
  ];
}
