/**
 * Sections 5-6: client memory per held connection (a slope over 1 to 30 connections), and the cost of importing each client
 * in a fresh process compared with bare node.
 */
import { fileURLToPath } from "node:url";
import { parseResult, run } from "../lib/spawn.ts";
import { type ClientKind, makeRow, median, type Row } from "../lib/stats.ts";
import { type BenchConfig, CLIENTS } from "./config.ts";
import { worker } from "./transport.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MiB = 1024 * 1024;
const KiB = 1024;

interface MemorySample {
  readonly connections: number;
  readonly rss: number;
  readonly heapUsed: number;
}

interface MemoryResult {
  readonly samples: readonly MemorySample[];
}

/** Connections held at each step of a memory process; the rows "holding N" read two of them. */
const STEPS = [1, 5, 10, 15, 20, 25, 30] as const;
const HOLDING = [1, 20] as const;

/** The least-squares slope of `y` over `x`. */
export function slope(points: readonly { readonly x: number; readonly y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den > 0 ? num / den : Number.NaN;
}

/**
 * Section 5: per repetition, one process per client holding 1, 5, 10, ... 30 stdio connections to
 * the raw echo server (after 30 throwaway ones), the heap settled after each step. Heap per extra
 * connection is the least-squares slope of heapUsed over the held counts (1 to 30, so the first
 * connection's one-time costs are not in it).
 */
export async function measureMemory(config: BenchConfig, log: (line: string) => void): Promise<Row[]> {
  const got = new Map<string, MemoryResult[]>();
  for (let rep = 0; rep < config.memoryReps; rep++) {
    for (const client of CLIENTS) {
      const r = await worker<MemoryResult>(
        { mode: "memory", client, transport: "stdio", server: "raw-stdio", steps: STEPS, timeoutMs: 180_000 },
        { gc: true },
      );
      got.set(client, [...(got.get(client) ?? []), r]);
    }
  }
  log(`  memory: ${config.memoryReps} repetitions done`);
  const rows: Row[] = [];
  const base = { section: "memory", server: "raw-stdio" };
  for (const client of CLIENTS) {
    const rs = got.get(client) ?? [];
    const at = (r: MemoryResult, n: number) => r.samples.find((s) => s.connections === n);
    for (const n of HOLDING) {
      const held = rs.map((r) => at(r, n)).filter((s): s is MemorySample => s !== undefined);
      rows.push(
        makeRow({ ...base, client, measure: `RSS holding ${n}`, unit: "MiB", better: "lower", values: held.map((s) => s.rss / MiB) }),
      );
      rows.push(
        makeRow({ ...base, client, measure: `heap holding ${n}`, unit: "MiB", better: "lower", values: held.map((s) => s.heapUsed / MiB) }),
      );
    }
    const perConnection = (r: MemoryResult, y: (s: MemorySample) => number) =>
      slope(r.samples.filter((s) => s.connections >= 1).map((s) => ({ x: s.connections, y: y(s) }))) / KiB;
    rows.push(
      makeRow({
        ...base,
        client,
        measure: "heap per extra connection",
        unit: "KiB",
        better: "lower",
        values: rs.map((r) => perConnection(r, (s) => s.heapUsed)),
      }),
    );
    rows.push(
      makeRow({
        ...base,
        client,
        measure: "RSS per extra connection",
        unit: "KiB",
        better: "lower",
        values: rs.map((r) => perConnection(r, (s) => s.rss)),
      }),
    );
  }
  return rows;
}

/** The modules each client needs for the stdio and HTTP transports. */
export function importSets(withToolwrightHttp: boolean): Record<ClientKind | "bare", readonly string[]> {
  return {
    bare: [],
    raw: ["node:child_process", "node:http"],
    toolwright: ["@toolwright/runtime", "@toolwright/runtime/stdio", ...(withToolwrightHttp ? ["@toolwright/runtime/http"] : [])],
    sdk: [
      "@modelcontextprotocol/sdk/client/index.js",
      "@modelcontextprotocol/sdk/client/stdio.js",
      ...(withToolwrightHttp ? ["@modelcontextprotocol/sdk/client/streamableHttp.js"] : []),
    ],
    // v2's root entry holds the Client and the HTTP transports; stdio is its own entry.
    sdk2: ["@modelcontextprotocol/client", "@modelcontextprotocol/client/stdio"],
  };
}

/** Section 6: a fresh `node` importing each client's modules; time and RSS over bare node. */
export async function measureImport(config: BenchConfig, withToolwrightHttp: boolean, log: (line: string) => void): Promise<Row[]> {
  const sets = importSets(withToolwrightHttp);
  const kinds = ["bare", ...CLIENTS] as const;
  const time = new Map<string, number[]>();
  const rss = new Map<string, number[]>();
  for (let rep = 0; rep < config.importReps + 1; rep++) {
    for (const kind of kinds) {
      const code = `${sets[kind].map((m) => `await import(${JSON.stringify(m)});`).join("")}process.stdout.write("RESULT "+JSON.stringify({rss:process.memoryUsage().rss})+"\\n");`;
      const finished = await run(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT, timeoutMs: 30_000 });
      const r = parseResult<{ rss: number }>(finished, `import ${kind}`);
      if (rep === 0) continue; // the first round warms the file-system cache
      time.set(kind, [...(time.get(kind) ?? []), finished.wallMs]);
      rss.set(kind, [...(rss.get(kind) ?? []), r.rss / MiB]);
    }
  }
  log(`  import: ${config.importReps} repetitions done`);
  const bareTime = median(time.get("bare") ?? [0]);
  const bareRss = median(rss.get("bare") ?? [0]);
  const what = withToolwrightHttp ? "stdio + HTTP client modules" : "stdio client modules";
  const rows: Row[] = [];
  for (const client of CLIENTS) {
    rows.push(
      makeRow({
        section: "import",
        measure: `time over bare node (${what})`,
        server: "-",
        client,
        unit: "ms",
        better: "lower",
        values: (time.get(client) ?? []).map((t) => t - bareTime),
      }),
    );
    rows.push(
      makeRow({
        section: "import",
        measure: `RSS over bare node (${what})`,
        server: "-",
        client,
        unit: "MiB",
        better: "lower",
        values: (rss.get(client) ?? []).map((v) => v - bareRss),
      }),
    );
  }
  rows.push(
    makeRow({
      section: "import",
      measure: "bare node start",
      server: "-",
      client: "raw",
      label: "bare node",
      unit: "ms",
      better: "lower",
      values: time.get("bare") ?? [],
    }),
  );
  return rows;
}
