/**
 * Parsing and judging for the conformance runner: the harness's suite summary (stdout), the
 * client's reported exit codes, and baseline.txt.
 */

/** One scenario of one harness run. */
export interface ScenarioResult {
  readonly run: string;
  readonly scenario: string;
  /** The harness's own verdict and more: checks clean, at least one check, the client exited 0 (or may fail). */
  readonly ok: boolean;
  readonly checksPassed: number;
  readonly checksFailed: number;
  readonly warnings: number;
  /** "scored", or why the requirement set does not score it (extension, added-after-release...). */
  readonly scoring: string;
  /** Why a scenario whose checks are clean still failed (client exit code, no checks). */
  readonly problem?: string;
  /** Failed in the parallel run, passed when re-run alone. */
  readonly soloRerun?: boolean;
  /**
   * No checks ran because the harness's scenario never tests anything (its `run` returns only a
   * SKIPPED check, read from the bundle): counted apart, neither passed nor failed.
   */
  readonly withoutChecks?: string;
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
      ok: mark === "✓" && Number(warnings ?? 0) === 0,
      checksPassed: Number(passed),
      checksFailed: Number(failed),
      warnings: Number(warnings ?? 0),
      scoring: unscored.get(scenario) ?? "scored",
    });
  }
  return out;
}

/** What the runner knows about a scenario's client process (client runs only). */
export interface ClientExit {
  /** Exit codes the client reported, one per process (empty: it never reported, e.g. killed at the harness timeout). */
  readonly codes: readonly number[];
  /** The harness declares that this scenario's client is expected to fail (a negative auth scenario). */
  readonly allowError: boolean;
}

/**
 * Makes a harness verdict strict: a scenario with no checks is not a pass, and a client that
 * exited non-zero (or never reported an exit) fails its scenario unless the harness expects that.
 */
export function judge(result: ScenarioResult, exit: ClientExit | undefined, skips?: ReadonlyMap<string, string>): ScenarioResult {
  if (result.checksPassed + result.checksFailed === 0) {
    const skip = skips?.get(result.scenario);
    if (skip !== undefined) return { ...result, ok: false, withoutChecks: skip, problem: `no checks: ${skip}` };
    return { ...result, ok: false, problem: "no checks ran" };
  }
  if (!result.ok || exit === undefined || exit.allowError) return result;
  if (exit.codes.length === 0) return { ...result, ok: false, problem: "the client reported no exit (killed or never started)" };
  const bad = exit.codes.find((code) => code !== 0);
  if (bad !== undefined) return { ...result, ok: false, problem: `the client exited ${bad}` };
  return result;
}

/** The file name a client writes its exit code under: the scenario name, with `/` kept out of paths. */
export function exitFileName(scenario: string): string {
  return encodeURIComponent(scenario);
}

/** Parses an exit file: one integer per line (a scenario may start its client more than once). */
export function parseExitFile(text: string): number[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => Number.parseInt(line, 10))
    .map((code) => (Number.isFinite(code) ? code : -1));
}

/**
 * The scenarios whose client may exit non-zero, read from the harness bundle: each scenario class
 * sets `this.name` and, when a failing client is the expected outcome, `this.allowClientError=!0`.
 */
export function allowedClientErrors(bundle: string): Set<string> {
  const names: [number, string][] = [];
  for (const m of bundle.matchAll(/this\.name=`([^`]+)`/g)) names.push([m.index, m[1] as string]);
  const out = new Set<string>();
  for (const m of bundle.matchAll(/this\.allowClientError=!0/g)) {
    let owner: string | undefined;
    for (const [at, name] of names) if (at < m.index) owner = name;
    if (owner) out.add(owner);
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

/**
 * The scenarios whose `run` checks nothing whatever the implementation does, read from the harness
 * bundle, with the skip reason the harness gives: each scenario class sets `this.name`, and such a
 * scenario's `run` body is `return[<fn>(...)]` where `<fn>` builds a check with status SKIPPED.
 * Reading it from the bundle (not a list kept here) means a harness that starts testing the
 * scenario turns it back into an ordinary one, and nothing else can be counted as skipped.
 */
export function unconditionalSkips(bundle: string): Map<string, string> {
  const skipBuilders = new Set<string>();
  for (const m of bundle.matchAll(/function (\w+)\(e,t,n,r,i\)\{return\{id:e,name:t,description:n,status:`SKIPPED`,/g))
    skipBuilders.add(m[1] as string);
  const names = [...bundle.matchAll(/this\.name=`([^`]+)`/g)].map((m) => ({ at: m.index, name: m[1] as string }));
  const out = new Map<string, string>();
  for (const [i, { at, name }] of names.entries()) {
    const end = names[i + 1]?.at ?? bundle.length;
    const body = bundle.slice(at, end);
    const run = /async run\(\w*\)\{return\[(\w+)\(`[^`]*`,`[^`]*`,`[^`]*`,`([^`]*)`/.exec(body);
    if (run && skipBuilders.has(run[1] as string) && !/async run\(/.test(body.slice((run.index ?? 0) + 10)))
      out.set(name, run[2] as string);
  }
  return out;
}
