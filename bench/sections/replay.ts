/**
 * Section: a replayed call against a real stdio call (issue 29). Each repetition is a fresh worker
 * that times `calls` sequential calls to the raw echo stdio server (the cheapest real stdio round
 * trip, so the ratio is the least flattering for the replay), records the same session into a
 * cassette, and times the same calls replayed from it in strict mode.
 */
import { fileURLToPath } from "node:url";
import { parseResult, run } from "../lib/spawn.ts";
import { makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";

const HERE = fileURLToPath(new URL("..", import.meta.url));

interface Cost {
  readonly wall: number;
  readonly cpu: number;
}

interface ReplayResult {
  readonly stdio: Cost;
  readonly replay: Cost;
  readonly cassetteBytes: number;
}

/** Per-call µs over `config.reps` fresh workers; the note carries the replay/stdio ratio. */
export async function measureReplay(config: BenchConfig, log: (line: string) => void, note: (text: string) => void): Promise<Row[]> {
  const calls = config.quick ? 200 : 1000;
  const results: ReplayResult[] = [];
  for (let rep = 0; rep < config.reps; rep++) {
    const finished = await run(process.execPath, ["--import", "tsx", `${HERE}replay-worker.ts`, String(calls)], {
      cwd: `${HERE}..`,
      timeoutMs: 300_000,
    });
    const result = parseResult<ReplayResult>(finished, "replay worker");
    results.push(result);
    log(`  replay rep ${rep + 1}: stdio ${result.stdio.wall.toFixed(0)} µs/call, replay ${result.replay.wall.toFixed(0)} µs/call`);
  }
  const rows: Row[] = [];
  for (const [kind, unit] of [
    ["wall", "µs/call"],
    ["cpu", "worker CPU µs/call"],
  ] as const) {
    const row = (client: "raw" | "toolwright", label: string, pick: (r: ReplayResult) => Cost) =>
      makeRow({
        section: "replay",
        measure: `sequential call (${kind})`,
        server: "raw-echo-stdio",
        client,
        label,
        unit,
        better: "lower",
        values: results.map((r) => pick(r)[kind]),
      });
    rows.push(
      row("raw", "real stdio call", (r) => r.stdio),
      row("toolwright", "replayed from a cassette", (r) => r.replay),
    );
  }
  const ratio = (kind: "wall" | "cpu") => {
    const per = results.map((r) => r.replay[kind] / r.stdio[kind]).sort((a, b) => a - b);
    return per[Math.floor(per.length / 2)] ?? Number.NaN;
  };
  note(
    `replay: ${calls} sequential echo calls per repetition; a replayed call costs ${ratio("wall").toFixed(2)}x a real stdio call in wall time and ${ratio("cpu").toFixed(2)}x in this process's CPU (median of per-repetition ratios; cassette ${results[0]?.cassetteBytes ?? 0} bytes). In the table, "floor" is the real stdio call.`,
  );
  return rows;
}
