/**
 * Parsing for the conformance runner: the harness's suite summary (stdout) and baseline.txt.
 */

/** One scenario of one harness run. */
export interface ScenarioResult {
  readonly run: string;
  readonly scenario: string;
  readonly ok: boolean;
  readonly checksPassed: number;
  readonly checksFailed: number;
  readonly warnings: number;
  /** "scored", or why the requirement set does not score it (extension, added-after-release...). */
  readonly scoring: string;
  /** Failed in the parallel run, passed when re-run alone. */
  readonly soloRerun?: boolean;
}

const SCENARIO_LINE = /^([✓✗]) (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$/;
const UNSCORED_LINE = /^\s+[✓✗] (\S+) \(([^)]+)\)$/;

/** Parses the harness's suite summary: `✓ name: N passed, M failed[, W warnings]` plus the "Not scored" list. */
export function parseSummary(run: string, stdout: string): ScenarioResult[] {
  const unscored = new Map<string, string>();
  for (const line of stdout.split("\n")) {
    const m = UNSCORED_LINE.exec(line);
    if (m?.[1] && m[2]) unscored.set(m[1], m[2]);
  }
  const out: ScenarioResult[] = [];
  for (const line of stdout.split("\n")) {
    const m = SCENARIO_LINE.exec(line.trim());
    if (!m) continue;
    const [, mark, scenario, passed, failed, warnings] = m as unknown as [string, string, string, string, string, string | undefined];
    out.push({
      run,
      scenario,
      ok: mark === "✓",
      checksPassed: Number(passed),
      checksFailed: Number(failed),
      warnings: Number(warnings ?? 0),
      scoring: unscored.get(scenario) ?? "scored",
    });
  }
  return out;
}

/** baseline.txt: `<run-id> <scenario> <one-line reason>` per line; `#` starts a comment. Keyed by "run scenario". */
export function parseBaseline(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const [run, scenario, ...reason] = line.split(/\s+/);
    if (!run || !scenario || reason.length === 0)
      throw new Error(`baseline.txt line ${i + 1}: "${line}" needs <run-id> <scenario> <reason>`);
    map.set(`${run} ${scenario}`, reason.join(" "));
  }
  return map;
}
