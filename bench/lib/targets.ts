/**
 * The targets from issue 7, checked against rows measured in the same run. Each target gives the
 * ratio it quotes, the limit, and whether the run meets it (undefined when not measured).
 */
import { findRow, ratioOf as pairedRatio, type Row } from "./stats.ts";

/** One checked target. */
export interface TargetCheck {
  readonly name: string;
  /** What the ratio means, e.g. "Toolwright / floor". */
  readonly ratioOf: string;
  readonly ratio: number | undefined;
  readonly op: ">=" | "<=" | "==";
  readonly limit: number;
  readonly met: boolean | undefined;
}

function check(name: string, ratioOf: string, ratio: number | undefined, op: TargetCheck["op"], limit: number): TargetCheck {
  const ok =
    ratio === undefined || !Number.isFinite(ratio)
      ? undefined
      : op === ">="
        ? ratio >= limit
        : op === "<="
          ? ratio <= limit
          : ratio === limit;
  return { name, ratioOf, ratio: ratio !== undefined && Number.isFinite(ratio) ? ratio : undefined, op, limit, met: ok };
}

/** Checks every target the run has data for. */
export function checkTargets(rows: readonly Row[], inFlight: { stdio: number; http: number }, codegenTools = 1000): TargetCheck[] {
  const tw = (section: string, measure: string, server: string) => findRow(rows, section, measure, server, "toolwright");
  const sdk = (section: string, measure: string, server: string) => findRow(rows, section, measure, server, "sdk");
  const stdioConc = tw("stdio", `concurrent x${inFlight.stdio} calls/s`, "raw-stdio");
  const stdioSeq = tw("stdio", "sequential pinned p50", "raw-stdio");
  const httpSeq = tw("http", "sequential p50", "raw-http");
  const httpConc = tw("http", `concurrent x${inFlight.http} calls/s`, "raw-http");
  const warnings = ["raw-http", "sdk-http-json", "sdk-http-sse"].flatMap((server) =>
    ["sequential", `concurrent x${inFlight.http}`].map((m) => tw("http", `${m} MaxListeners warnings`, server)),
  );
  const importTime = rows.find((r) => r.section === "import" && r.measure.startsWith("time over bare") && r.client === "toolwright");
  const importRss = rows.find((r) => r.section === "import" && r.measure.startsWith("RSS over bare") && r.client === "toolwright");
  const heap = tw("memory", "heap per extra connection", "raw-stdio");
  const gen = tw("codegen", "first run", "-");
  const rerun = tw("codegen", "unchanged re-run", "-");
  const sdkHeap = sdk("memory", "heap per extra connection", "raw-stdio");
  const maxWarnings = warnings.every((w) => w) && warnings.length ? Math.max(...warnings.map((w) => w?.max ?? 0)) : undefined;
  return [
    check("stdio concurrent calls/s, raw server", "Toolwright / floor", stdioConc?.vsFloor, ">=", 0.75),
    check("stdio concurrent calls/s, raw server", "Toolwright / SDK", stdioConc?.vsSdk, ">=", 2),
    check("stdio sequential p50, raw server, pinned", "Toolwright / floor", stdioSeq?.vsFloor, "<=", 1.25),
    check("HTTP sequential p50, raw server", "Toolwright / floor", httpSeq?.vsFloor, "<=", 1.4),
    check("HTTP concurrent calls/s, raw server", "Toolwright / floor", httpConc?.vsFloor, ">=", 0.7),
    check("HTTP concurrent calls/s, raw server", "Toolwright / SDK", httpConc?.vsSdk, ">=", 5),
    check("HTTP MaxListenersExceeded warnings per session (max over all HTTP runs)", "Toolwright count", maxWarnings, "==", 0),
    check("Import time over bare node", "Toolwright / SDK", importTime?.vsSdk, "<=", 0.2),
    check("Import RSS over bare node", "Toolwright / SDK", importRss?.vsSdk, "<=", 0.25),
    check("Heap per extra connection", "Toolwright / SDK", heap && sdkHeap ? pairedRatio(heap, sdkHeap) : undefined, "<=", 0.5),
    check(
      `Codegen, ${codegenTools.toLocaleString("en-US")} tools`,
      "toolwright gen / json-schema-to-typescript alone",
      gen?.vsFloor,
      "<=",
      1.5,
    ),
    check("Codegen unchanged re-run", "re-run / first run", rerun && gen ? pairedRatio(rerun, gen) : undefined, "<=", 0.2),
  ];
}
