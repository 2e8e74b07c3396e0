/**
 * The targets from issues 7 and 17, checked against rows measured in the same run. Each target gives the
 * ratio it quotes, the limit, and whether the run meets it (undefined when not measured).
 */
import { SERVER_MEASURES } from "../sections/server-measures.ts";
import { findRow, ratioOf as pairedRatio, type Row } from "./stats.ts";

/** One checked target. */
export interface TargetCheck {
  readonly name: string;
  /** What the ratio means, e.g. "Toolwright / floor". */
  readonly ratioOf: string;
  readonly ratio: number | undefined;
  readonly op: ">=" | "<=" | "<" | "==";
  readonly limit: number;
  readonly met: boolean | undefined;
  /** The same ratio with SDK v2 in Toolwright's place, where that means something. */
  readonly sdk2?: number | undefined;
}

function check(name: string, ratioOf: string, ratio: number | undefined, op: TargetCheck["op"], limit: number, sdk2?: number): TargetCheck {
  const ok =
    ratio === undefined || !Number.isFinite(ratio)
      ? undefined
      : op === ">="
        ? ratio >= limit
        : op === "<="
          ? ratio <= limit
          : op === "<"
            ? ratio < limit
            : ratio === limit;
  const finite = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? v : undefined);
  return { name, ratioOf, ratio: finite(ratio), op, limit, met: ok, ...(finite(sdk2) === undefined ? {} : { sdk2: finite(sdk2) }) };
}

/** Baseline for the validators target: server-memory's validators.gen.ts at ac47f7f, 59,494 bytes for 9 tools. */
export const VALIDATORS_BYTES_PER_TOOL_BEFORE = 59_494 / 9;

/** Checks every target the run has data for. */
export function checkTargets(
  rows: readonly Row[],
  inFlight: { stdio: number; http: number },
  codegenTools = 1000,
  scale: readonly number[] = [100, 1000, 10_000],
): TargetCheck[] {
  const find = (client: Row["client"]) => (section: string, measure: string, server: string) =>
    findRow(rows, section, measure, server, client);
  const tw = find("toolwright");
  const sdk = find("sdk");
  const sdk2 = find("sdk2");
  const starts = (section: string, prefix: string, client: Row["client"]) =>
    rows.find((r) => r.section === section && r.measure.startsWith(prefix) && r.client === client);
  const pair = (a: Row | undefined, b: Row | undefined) => (a && b ? pairedRatio(a, b) : undefined);
  const stdioConcM = `concurrent x${inFlight.stdio} calls/s`;
  const httpConcM = `concurrent x${inFlight.http} calls/s`;
  const stdioConc = tw("stdio", stdioConcM, "raw-stdio");
  const stdioConc2 = sdk2("stdio", stdioConcM, "raw-stdio");
  const stdioSeq = tw("stdio", "sequential pinned p50", "raw-stdio");
  const httpSeq = tw("http", "sequential p50", "raw-http");
  const httpConc = tw("http", httpConcM, "raw-http");
  const warnings = ["raw-http", "sdk-http-json", "sdk-http-sse"].flatMap((server) =>
    ["sequential", `concurrent x${inFlight.http}`].map((m) => tw("http", `${m} MaxListeners warnings`, server)),
  );
  const importTime = starts("import", "time over bare", "toolwright");
  const importRss = starts("import", "RSS over bare", "toolwright");
  const importTime2 = starts("import", "time over bare", "sdk2");
  const importRss2 = starts("import", "RSS over bare", "sdk2");
  const heap = tw("memory", "heap per extra connection", "raw-stdio");
  const sdkHeap = sdk("memory", "heap per extra connection", "raw-stdio");
  const sdk2Heap = sdk2("memory", "heap per extra connection", "raw-stdio");
  const gen = tw("codegen", "first run", "-");
  const rerun = tw("codegen", "unchanged re-run", "-");
  const [, mid, big] = scale;
  const genMid = tw("codegen", `gen ${mid?.toLocaleString("en-US")} tools`, "-");
  const genBig = tw("codegen", `gen ${big?.toLocaleString("en-US")} tools`, "-");
  // The manager measure is the first calls after a short warm-up, as before; the steady one is added below.
  const manager = tw("manager", "manager.callTool p50, first calls", "raw-stdio");
  const managerSteady = tw("manager", "manager.callTool p50", "raw-stdio");
  const stdioSteady = tw("stdio", "sequential pinned, steady p50", "raw-stdio");
  const tmcp = find("tmcp");
  const server = (measure: string, transport: string) => ({
    tw: tw("server", measure, transport),
    tmcp: tmcp("server", measure, transport),
    sdk: sdk("server", measure, transport),
    sdk2: sdk2("server", measure, transport),
  });
  const x64 = SERVER_MEASURES.calls(64);
  const stdio64 = server(x64, "stdio");
  const http64 = server(x64, "http");
  const mixed = server(SERVER_MEASURES.mixed, "http");
  const coldStdio = server(SERVER_MEASURES.cold, "stdio");
  const coldHttp = server(SERVER_MEASURES.cold, "http");
  const session = server(SERVER_MEASURES.session, "http");
  const orderStdio = server(SERVER_MEASURES.orderOverEcho, "stdio");
  const orderHttp = server(SERVER_MEASURES.orderOverEcho, "http");
  const cliVersion = tw("cli", "toolwright --version", "-");
  const validatorsBytes = tw("code size", "validators.gen.ts bytes per tool, server-memory", "-");
  const maxWarnings = warnings.every((w) => w) && warnings.length ? Math.max(...warnings.map((w) => w?.max ?? 0)) : undefined;
  return [
    check("stdio concurrent calls/s, raw server", "Toolwright / floor", stdioConc?.vsFloor, ">=", 0.85, stdioConc2?.vsFloor),
    check("stdio concurrent calls/s, raw server", "Toolwright / SDK 1.32.2", stdioConc?.vsSdk, ">=", 2, stdioConc2?.vsSdk),
    check("stdio concurrent calls/s, raw server", "Toolwright / SDK v2", stdioConc?.vsSdk2, ">=", 1.5),
    check(
      "stdio sequential p50, raw server, pinned",
      "Toolwright / floor",
      stdioSeq?.vsFloor,
      "<=",
      1.2,
      sdk2("stdio", "sequential pinned p50", "raw-stdio")?.vsFloor,
    ),
    check(
      "HTTP sequential p50, raw server",
      "Toolwright / floor",
      httpSeq?.vsFloor,
      "<=",
      1.25,
      sdk2("http", "sequential p50", "raw-http")?.vsFloor,
    ),
    check(
      "HTTP concurrent calls/s, raw server",
      "Toolwright / floor",
      httpConc?.vsFloor,
      ">=",
      0.85,
      sdk2("http", httpConcM, "raw-http")?.vsFloor,
    ),
    check(
      "HTTP concurrent calls/s, raw server",
      "Toolwright / SDK 1.32.2 (issue 7)",
      httpConc?.vsSdk,
      ">=",
      5,
      sdk2("http", httpConcM, "raw-http")?.vsSdk,
    ),
    check("HTTP MaxListenersExceeded warnings per session (max over all HTTP runs)", "Toolwright count", maxWarnings, "==", 0),
    check("Import time over bare node (root + stdio + http)", "Toolwright / SDK 1.32.2", importTime?.vsSdk, "<=", 0.2, importTime2?.vsSdk),
    check("Import time over bare node (root + stdio + http)", "Toolwright / SDK v2", importTime?.vsSdk2, "<", 1),
    check("Import RSS over bare node (root + stdio + http)", "Toolwright / SDK 1.32.2", importRss?.vsSdk, "<=", 0.2, importRss2?.vsSdk),
    check("Import RSS over bare node (root + stdio + http)", "Toolwright / SDK v2", importRss?.vsSdk2, "<", 1),
    check("Heap per extra connection", "Toolwright / SDK 1.32.2", pair(heap, sdkHeap), "<=", 0.5, pair(sdk2Heap, sdkHeap)),
    check("Manager-path call overhead (sequential p50)", "manager.callTool / direct caller", manager?.vsFloor, "<=", 1.1),
    // Issue 28: definition tokens per turn at 500 tools, discovery over all tools loaded.
    ...(["anthropic", "openai-responses", "openai-chat"] as const).map((server) =>
      check(
        `Definition tokens per turn at 500 tools, ${server === "openai-chat" ? "local search" : "provider-native deferred"} (${server})`,
        "discovery / all tools loaded",
        tw("tokens", "definition tokens per turn, 500 tools", server)?.vsFloor,
        "<=",
        0.15,
      ),
    ),
    // Issue 32: the generated server against tmcp, SDK v2 and itself; `SDK v2 same ratio` puts SDK v2 in the scaffold's place.
    check(
      "Server throughput, stdio, 64 in flight",
      "scaffold / tmcp",
      pair(stdio64.tw, stdio64.tmcp),
      ">=",
      1.2,
      pair(stdio64.sdk2, stdio64.tmcp),
    ),
    check(
      "Server throughput, HTTP, 64 in flight",
      "scaffold / tmcp",
      pair(http64.tw, http64.tmcp),
      ">=",
      1.2,
      pair(http64.sdk2, http64.tmcp),
    ),
    check("Server mixed load, HTTP, 50 sessions", "scaffold / tmcp", pair(mixed.tw, mixed.tmcp), ">=", 1.2, pair(mixed.sdk2, mixed.tmcp)),
    check("Server cold launch, stdio", "scaffold / SDK v2", pair(coldStdio.tw, coldStdio.sdk2), "<=", 0.8),
    check("Server cold launch, HTTP", "scaffold / SDK v2", pair(coldHttp.tw, coldHttp.sdk2), "<=", 0.8),
    check("Server RSS per open HTTP session", "scaffold / SDK v2", pair(session.tw, session.sdk2), "<=", 0.5),
    check(
      "Server non-trivial validation, stdio, 64 in flight",
      "order / own echo",
      orderStdio.tw?.median,
      ">=",
      0.9,
      orderStdio.sdk2?.median,
    ),
    check("Server non-trivial validation, HTTP, 64 in flight", "order / own echo", orderHttp.tw?.median, ">=", 0.9, orderHttp.sdk2?.median),
    check(
      "Server throughput, stdio, 64 in flight",
      "scaffold / SDK McpServer",
      pair(stdio64.tw, stdio64.sdk),
      ">=",
      1.5,
      pair(stdio64.sdk2, stdio64.sdk),
    ),
    check(
      "Server throughput, HTTP, 64 in flight",
      "scaffold / SDK McpServer",
      pair(http64.tw, http64.sdk),
      ">=",
      1.5,
      pair(http64.sdk2, http64.sdk),
    ),
    check(
      `Codegen, ${codegenTools.toLocaleString("en-US")} tools`,
      "toolwright gen / json-schema-to-typescript alone",
      gen?.vsFloor,
      "<=",
      1.5,
    ),
    check("Codegen unchanged re-run", "re-run / first run", pair(rerun, gen), "<=", 0.2),
    check(
      `Codegen growth, ${big?.toLocaleString("en-US")} tools`,
      `time / time at ${mid?.toLocaleString("en-US")} tools`,
      genBig && genMid && genMid.median > 0 ? genBig.median / genMid.median : undefined,
      "<=",
      11,
    ),
    check("toolwright --version start-up (issue 25)", "toolwright --version / node -e 0", cliVersion?.vsFloor, "<=", 1.5),
    check(
      "Generated validators, server-memory",
      "bytes per tool / before sharing (ac47f7f)",
      validatorsBytes ? validatorsBytes.median / VALIDATORS_BYTES_PER_TOOL_BEFORE : undefined,
      "<=",
      0.5,
    ),
    // The same two limits once both sides are warm, printed beside the short-run measures
    // (added after the runs of 2026-12-01 14:57, so older results files lack them).
    check(
      "stdio sequential p50, raw server, pinned, steady state",
      "Toolwright / floor",
      stdioSteady?.vsFloor,
      "<=",
      1.2,
      sdk2("stdio", "sequential pinned, steady p50", "raw-stdio")?.vsFloor,
    ),
    check(
      "Manager-path call overhead (sequential p50, steady state)",
      "manager.callTool / direct caller",
      managerSteady?.vsFloor,
      "<=",
      1.1,
    ),
  ];
}
