/**
 * Sections 5-6: client memory holding 1 and 20 connections, and the cost of importing each client
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

interface MemoryResult {
  readonly heapDelta: number;
  readonly rssDelta: number;
  readonly after: { readonly rss: number; readonly heapUsed: number };
}

/** Section 5: separate processes holding 1 and 20 stdio connections to the raw echo server. */
export async function measureMemory(config: BenchConfig, log: (line: string) => void): Promise<Row[]> {
  const counts = [1, 20] as const;
  const got = new Map<string, MemoryResult[]>();
  for (let rep = 0; rep < config.memoryReps; rep++) {
    for (const connections of counts) {
      for (const client of CLIENTS) {
        const r = await worker<MemoryResult>(
          { mode: "memory", client, transport: "stdio", server: "raw-stdio", connections, warmConnections: counts[1], timeoutMs: 120_000 },
          { gc: true },
        );
        const key = `${connections}|${client}`;
        got.set(key, [...(got.get(key) ?? []), r]);
      }
    }
  }
  log(`  memory: ${config.memoryReps} repetitions done`);
  const rows: Row[] = [];
  const base = { section: "memory", server: "raw-stdio" };
  for (const client of CLIENTS) {
    for (const n of counts) {
      const rs = got.get(`${n}|${client}`) ?? [];
      rows.push(
        makeRow({ ...base, client, measure: `RSS holding ${n}`, unit: "MiB", better: "lower", values: rs.map((r) => r.after.rss / MiB) }),
      );
      rows.push(
        makeRow({
          ...base,
          client,
          measure: `heap holding ${n}`,
          unit: "MiB",
          better: "lower",
          values: rs.map((r) => r.after.heapUsed / MiB),
        }),
      );
    }
    // Per extra connection: (delta with 20 - delta with 1) / 19, pairing repetitions in order.
    const one = got.get(`1|${client}`) ?? [];
    const twenty = got.get(`20|${client}`) ?? [];
    const pairs = twenty.map((t, i) => [t, one[i] ?? one[0]] as const).filter((p): p is readonly [MemoryResult, MemoryResult] => !!p[1]);
    rows.push(
      makeRow({
        ...base,
        client,
        measure: "heap per extra connection",
        unit: "KiB",
        better: "lower",
        values: pairs.map(([t, o]) => (t.heapDelta - o.heapDelta) / 19 / KiB),
      }),
    );
    rows.push(
      makeRow({
        ...base,
        client,
        measure: "RSS per extra connection",
        unit: "KiB",
        better: "lower",
        values: pairs.map(([t, o]) => (t.rssDelta - o.rssDelta) / 19 / KiB),
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
