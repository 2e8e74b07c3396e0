/**
 * Aggregation for the benchmark: medians with min-max over repetitions, and ratios between clients
 * measured in the same run.
 */

/** Which client a row measures; `raw` is the floor. */
export type ClientKind = "toolwright" | "sdk" | "sdk2" | "raw" | "tmcp";

/** One configuration: a metric for one client on one server, over several repetitions. */
export interface Row {
  readonly section: string;
  readonly measure: string;
  readonly server: string;
  readonly client: ClientKind;
  /** Display name of the client (defaults to the kind). */
  readonly label: string;
  readonly unit: string;
  readonly better: "lower" | "higher";
  readonly values: readonly number[];
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** This row's median over the floor's median in the same measure and server. */
  vsFloor?: number;
  /** This row's median over the SDK's median in the same measure and server. */
  vsSdk?: number;
  /** This row's median over SDK v2's (`@modelcontextprotocol/client` 2.x) in the same measure and server. */
  vsSdk2?: number;
  /** This row's median over tmcp's in the same measure and server (server section only). */
  vsTmcp?: number;
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Builds a row from repetitions. */
export function makeRow(
  base: Omit<Row, "median" | "min" | "max" | "label" | "vsFloor" | "vsSdk" | "vsSdk2" | "vsTmcp"> & { readonly label?: string },
): Row {
  const values = base.values.filter((v) => Number.isFinite(v));
  return {
    ...base,
    label: base.label ?? base.client,
    values,
    median: values.length ? median(values) : Number.NaN,
    min: values.length ? Math.min(...values) : Number.NaN,
    max: values.length ? Math.max(...values) : Number.NaN,
  };
}

/**
 * The ratio of `row` to `base`: the median of per-repetition ratios when both have one value per
 * repetition (repetitions are interleaved, so pairing cancels machine drift), else the ratio of medians.
 */
export function ratioOf(row: Row, base: Row): number | undefined {
  if (row.values.length > 0 && row.values.length === base.values.length && base.values.every((v) => v > 0)) {
    return median(row.values.map((v, i) => v / (base.values[i] as number)));
  }
  return base.median > 0 ? row.median / base.median : undefined;
}

/** Fills `vsFloor`, `vsSdk`, `vsSdk2` and `vsTmcp` for every row that has a floor or SDK sibling. */
export function addRatios(rows: Row[]): void {
  const key = (r: Row) => `${r.section}|${r.measure}|${r.server}`;
  const by = new Map<string, Row>();
  for (const r of rows) by.set(`${key(r)}|${r.client}`, r);
  for (const r of rows) {
    const floor = by.get(`${key(r)}|raw`);
    const sdk = by.get(`${key(r)}|sdk`);
    const sdk2 = by.get(`${key(r)}|sdk2`);
    const tmcp = by.get(`${key(r)}|tmcp`);
    if (tmcp) {
      const vsTmcp = ratioOf(r, tmcp);
      if (vsTmcp !== undefined) r.vsTmcp = vsTmcp;
    }
    const vsFloor = floor ? ratioOf(r, floor) : undefined;
    const vsSdk = sdk ? ratioOf(r, sdk) : undefined;
    const vsSdk2 = sdk2 ? ratioOf(r, sdk2) : undefined;
    if (vsFloor !== undefined) r.vsFloor = vsFloor;
    if (vsSdk !== undefined) r.vsSdk = vsSdk;
    if (vsSdk2 !== undefined) r.vsSdk2 = vsSdk2;
  }
}

/** Finds a row. */
export function findRow(rows: readonly Row[], section: string, measure: string, server: string, client: ClientKind): Row | undefined {
  return rows.find((r) => r.section === section && r.measure === measure && r.server === server && r.client === client);
}
