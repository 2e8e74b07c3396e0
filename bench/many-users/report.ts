/**
 * The many-users report: one table of what was measured, each "want" checked. The driver exits
 * non-zero when a want fails, so the script is a check and not only a printout.
 */
import type { AuthServerStats } from "./auth-server.js";
import type { PhaseResult } from "./drive.js";
import type { GuardStats } from "./guarded-server.js";

/** One row: what, the measured value, and the want (undefined for information only). */
export interface ReportRow {
  readonly measure: string;
  readonly value: string;
  readonly want?: string;
  readonly pass?: boolean;
}

/** The p-th percentile (nearest rank) of a list, 0 when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Everything the report is built from. */
export interface ReportInput {
  readonly mode: string;
  readonly auth: PhaseResult;
  readonly baseline: PhaseResult;
  readonly as: AuthServerStats;
  /** The servers' counts for the OAuth phase only. */
  readonly guards: readonly GuardStats[];
  /** Failed calls on a grant the AS revoked (their users must consent again: expected to fail). */
  readonly failedOnRevoked?: number;
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

/** Builds the rows; `pass` is set on every row with a want. */
export function buildReport(input: ReportInput): ReportRow[] {
  const { auth, baseline, as, guards } = input;
  const foreign = guards.reduce((n, g) => n + g.foreign, 0);
  const perExpiry = as.expiries === 0 ? 0 : as.refreshes / as.expiries;
  const [a50, a99, b50, b99] = [
    percentile(auth.latencies, 50),
    percentile(auth.latencies, 99),
    percentile(baseline.latencies, 50),
    percentile(baseline.latencies, 99),
  ];
  return [
    {
      measure: "refreshes sent per expiry (raw)",
      value: `${perExpiry.toFixed(3)} (${as.refreshes} refreshes / ${as.expiries} expiries: ${as.extra} extra; ${as.duplicated} expiries refreshed twice+, max ${as.maxPerExpiry})`,
      want: "1 + the extras a kill explains",
      // No refresh at all proves nothing: the want is not met.
      pass: as.expiries > 0 && as.refreshes === as.expiries + as.extraAfterKill,
    },
    {
      measure: "  extra refreshes explained by a kill -9 in the refresh window",
      value: `${as.extraAfterKill} of ${as.extra} (${auth.kills} kills${as.killAfterRotationMaxMs === undefined ? "" : `; each killed worker had sent the expiry's first refresh, killed at most ${as.killAfterRotationMaxMs} ms after the AS rotated it, the rotated tokens never used`})`,
    },
    {
      measure: "  extra refreshes unexplained (a race, or a stored token lost without a kill)",
      value: `${as.extraUnexplained}`,
      want: "0",
      pass: as.extraUnexplained === 0,
    },
    {
      measure: "calls that used another principal's token",
      value: `${foreign} of ${guards.reduce((n, g) => n + g.calls, 0)}${foreign ? ` (e.g. ${guards.flatMap((g) => g.examples)[0]})` : ""}`,
      want: "0",
      pass: foreign === 0,
    },
    {
      measure: "calls lost",
      value: `${auth.lost} of ${auth.issued} (${auth.redriven} re-driven after ${auth.kills} kill -9)`,
      want: "0",
      pass: auth.lost === 0,
    },
    {
      measure: "calls answered with a failure",
      value: `${auth.failed} (${input.failedOnRevoked ?? 0} of them on a grant the AS revoked)`,
      want: "0",
      pass: auth.failed === 0 && baseline.failed === 0,
    },
    { measure: "grants revoked (refresh token reused) / re-consents", value: `${as.revokedGrants} / ${as.reauthorizations}` },
    { measure: "401 challenges at the servers", value: `${guards.reduce((n, g) => n + g.unauthorized, 0)}` },
    {
      measure: `p50 call latency, ${input.mode} vs one static token`,
      value: `${ms(a50)} vs ${ms(b50)} (x${(a50 / Math.max(b50, 0.001)).toFixed(2)})`,
    },
    {
      measure: `p99 call latency, ${input.mode} vs one static token`,
      value: `${ms(a99)} vs ${ms(b99)} (x${(a99 / Math.max(b99, 0.001)).toFixed(2)})`,
    },
    {
      measure: "throughput, OAuth phase vs static phase",
      value: `${(auth.ok / auth.wallSeconds).toFixed(0)} vs ${(baseline.ok / baseline.wallSeconds).toFixed(0)} calls/s (${auth.ok} vs ${baseline.ok} calls)`,
    },
  ];
}

/** The rows as a Markdown table (it goes into the guide as is). */
export function formatReport(rows: readonly ReportRow[]): string {
  const lines = ["| measure | value | want | |", "|---|---|---|---|"];
  for (const r of rows)
    lines.push(`| ${r.measure} | ${r.value} | ${r.want ?? ""} | ${r.pass === undefined ? "" : r.pass ? "ok" : "FAIL"} |`);
  return lines.join("\n");
}
