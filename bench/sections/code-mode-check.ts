/**
 * Code mode, type check (issue 27, item 2): how long the check of a model's program takes against
 * the generated API of a synthetic catalogue of 30 and of 300 tools (the shape of
 * examples/providers/catalogue.ts, with typed results). Each repetition is a fresh process: the
 * code-mode API is built by the real generator, then the first check of a new checker (cold: the
 * ES2023 library is parsed) and the median of warm checks of a program that passes (and is turned
 * into JavaScript) and one that fails with three diagnostics. Target: warm ≤ 50 ms at 300 tools.
 */
import { fileURLToPath } from "node:url";
import { parseResult, run } from "../lib/spawn.ts";
import { makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";

const HERE = fileURLToPath(new URL("..", import.meta.url));
const WORKER = `${HERE}code-mode-check-worker.ts`;

/** Catalogue sizes measured (issue 27: "type-check latency at 30 and 300 tools"). */
export const CODE_MODE_CHECK_SIZES = [30, 300] as const;
/** The warm-check target at the largest size, in ms. */
export const CODE_MODE_WARM_TARGET_MS = 50;

interface CheckResult {
  readonly tools: number;
  readonly genMs: number;
  readonly importMs: number;
  readonly coldMs: number;
  readonly warmGoodMs: number;
  readonly warmBadMs: number;
  readonly declarationTokens: number;
  readonly indexTokens: number;
}

/** Runs the worker `config.reps` times per size, sizes interleaved. */
export async function measureCodeModeCheck(
  config: BenchConfig,
  log: (line: string) => void,
): Promise<{ readonly rows: Row[]; readonly notes: string[] }> {
  const results = new Map<number, CheckResult[]>(CODE_MODE_CHECK_SIZES.map((n) => [n, []]));
  const warm = config.quick ? 10 : 40;
  for (let rep = 0; rep < config.reps; rep++) {
    for (const tools of CODE_MODE_CHECK_SIZES) {
      const finished = await run(process.execPath, ["--import", "tsx", WORKER, String(tools), String(warm)], {
        cwd: `${HERE}..`,
        timeoutMs: 600_000,
      });
      const r = parseResult<CheckResult>(finished, `code-mode check worker (${tools} tools)`);
      results.get(tools)!.push(r);
      log(
        `  code-mode check, ${tools} tools: cold ${r.coldMs.toFixed(0)} ms, warm ${r.warmGoodMs.toFixed(1)} ms (pass) / ${r.warmBadMs.toFixed(1)} ms (fail)`,
      );
    }
  }
  const rows: Row[] = [];
  const row = (measure: string, server: string, unit: string, values: number[]) =>
    rows.push(makeRow({ section: "code-mode-check", measure, server, client: "toolwright", unit, better: "lower", values }));
  for (const [tools, list] of results) {
    const server = `${tools} tools`;
    row(
      "cold check (new checker, library parsed)",
      server,
      "ms",
      list.map((r) => r.coldMs),
    );
    row(
      "warm check, program passes (+ JS)",
      server,
      "ms",
      list.map((r) => r.warmGoodMs),
    );
    row(
      "warm check, program fails (3 diagnostics)",
      server,
      "ms",
      list.map((r) => r.warmBadMs),
    );
    row(
      "code-mode API build at gen time",
      server,
      "ms",
      list.map((r) => r.genMs),
    );
    row(
      "declarations, o200k tokens",
      server,
      "tokens",
      list.map((r) => r.declarationTokens),
    );
    row(
      "index (one line per tool), o200k tokens",
      server,
      "tokens",
      list.map((r) => r.indexTokens),
    );
  }
  const big = rows.find((r) => r.server === `${CODE_MODE_CHECK_SIZES.at(-1)} tools` && r.measure.startsWith("warm check, program passes"));
  const notes: string[] = [];
  if (big)
    notes.push(
      `Code mode: warm type check at ${big.server}: ${big.median.toFixed(1)} ms median (min ${big.min.toFixed(1)}), target ≤ ${CODE_MODE_WARM_TARGET_MS} ms: ${big.median <= CODE_MODE_WARM_TARGET_MS ? "met" : "not met"} under this run's load.`,
    );
  const small = rows.find((r) => r.server === `${CODE_MODE_CHECK_SIZES[0]} tools` && r.measure.startsWith("warm check, program passes"));
  if (big && small && small.median > 0)
    notes.push(
      `Code mode: a warm check at ${big.server} takes ${(big.median / small.median).toFixed(2)}× the time at ${small.server} (same run).`,
    );
  return { rows, notes };
}
