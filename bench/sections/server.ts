/**
 * Section 10: the generated server scaffold against the SDK's `McpServer` (1.32.2) and a
 * hand-written server, all driven by the floor client. `toolwright gen` writes the scaffold of
 * bench/scaffold/design.ts; esbuild bundles its handler file (bench/scaffold/serve.ts) the way a
 * user's build would, with @toolwright/runtime left as an import of the built package.
 */
import { existsSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { run } from "../lib/spawn.ts";
import { type ClientKind, makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";
import { worker } from "./transport.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HERE = fileURLToPath(new URL("..", import.meta.url));
const CLI = `${ROOT}packages/codegen/dist/bin.js`;
const OUT = `${HERE}.cache/scaffold`;

/**
 * Which server plays which column: the scaffold is "toolwright", McpServer 1.32.2 "sdk", SDK v2's
 * McpServer (@modelcontextprotocol/server) "sdk2", the hand-written server the floor.
 */
const SERVERS: Record<"stdio" | "http", Record<"toolwright" | "sdk" | "sdk2" | "raw", string>> = {
  stdio: { toolwright: "scaffold-stdio", sdk: "sdk-stdio", sdk2: "sdk2-stdio", raw: "raw-stdio" },
  http: { toolwright: "scaffold-http", sdk: "sdk-http-json", sdk2: "sdk2-http-json", raw: "raw-http" },
};
const LABELS = {
  toolwright: "generated scaffold",
  sdk: "SDK McpServer 1.32.2",
  sdk2: "SDK v2 McpServer 2.4.0",
  raw: "hand-written server",
} as const;

/** Generates the scaffold and bundles its server script to bench/.cache/scaffold/serve.mjs. */
async function buildScaffold(): Promise<void> {
  rmSync(OUT, { recursive: true, force: true });
  const gen = await run(process.execPath, [CLI, "gen", `${HERE}scaffold/design.ts`, "--out", `${OUT}/gen`], {
    cwd: ROOT,
    timeoutMs: 120_000,
  });
  if (gen.code !== 0)
    throw new Error(`toolwright gen of the scaffold failed (exit ${gen.code}): ${(gen.stderr || gen.stdout).slice(-1500)}`);
  const { build } = await import("esbuild");
  await build({
    entryPoints: [`${HERE}scaffold/serve.ts`],
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outfile: `${OUT}/serve.mjs`,
    logLevel: "warning",
  });
}

interface LatencyResult {
  readonly p50Us: number;
  readonly callsPerSec: number;
}

/** Runs the floor client against the three servers, `config.reps` interleaved repetitions. */
export async function measureServer(config: BenchConfig, log: (line: string) => void): Promise<{ rows: Row[]; notes: string[] }> {
  if (!existsSync(CLI)) return { rows: [], notes: ["Server section skipped: packages/codegen/dist/bin.js is not built."] };
  await buildScaffold();
  const scenarios = [
    { transport: "stdio", measure: "sequential pinned", calls: config.stdioSequential, concurrency: 1, pinned: true },
    {
      transport: "stdio",
      measure: `concurrent x${config.stdioInFlight}`,
      calls: config.serverCalls,
      concurrency: config.stdioInFlight,
      pinned: false,
    },
    { transport: "http", measure: "sequential", calls: config.httpSequential, concurrency: 1, pinned: false },
    {
      transport: "http",
      measure: `concurrent x${config.httpInFlight}`,
      calls: config.httpConcurrent,
      concurrency: config.httpInFlight,
      pinned: false,
    },
  ] as const;
  const kinds = ["toolwright", "sdk", "sdk2", "raw"] as const;
  const results = new Map<string, LatencyResult[]>();
  for (let rep = 0; rep < config.reps; rep++) {
    for (const s of scenarios) {
      for (const kind of kinds) {
        const r = await worker<LatencyResult>(
          {
            mode: "latency",
            client: "raw",
            transport: s.transport,
            server: SERVERS[s.transport][kind],
            calls: s.calls,
            concurrency: s.concurrency,
            warmup: config.quick ? Math.min(s.calls, 50) : Math.min(s.calls, Math.max(200, Math.floor(s.calls / 5))),
          },
          { pinned: s.pinned },
        );
        const key = `${s.transport}|${s.measure}|${kind}`;
        results.set(key, [...(results.get(key) ?? []), r]);
      }
    }
    log(`  server: repetition ${rep + 1}/${config.reps} done`);
  }
  const rows: Row[] = [];
  for (const s of scenarios) {
    for (const kind of kinds) {
      const rs = results.get(`${s.transport}|${s.measure}|${kind}`) ?? [];
      const base = { section: "server", server: s.transport, client: kind as ClientKind, label: LABELS[kind] };
      if (s.concurrency === 1)
        rows.push(makeRow({ ...base, measure: `${s.measure} p50`, unit: "µs", better: "lower", values: rs.map((r) => r.p50Us) }));
      rows.push(
        makeRow({ ...base, measure: `${s.measure} calls/s`, unit: "calls/s", better: "higher", values: rs.map((r) => r.callsPerSec) }),
      );
    }
  }
  return {
    rows,
    notes: [
      "Server section: the floor client against the generated scaffold (`toolwright gen` of bench/scaffold/design.ts, bundled by esbuild), the SDK's McpServer 1.32.2, SDK v2's McpServer (@modelcontextprotocol/server 2.4.0, Streamable HTTP through @modelcontextprotocol/node) and the hand-written echo server; the `server` column is the transport. There `×floor` is the server's figure over the hand-written server's, `×SDK` over McpServer 1.32.2's, `×SDK v2` over v2's.",
    ],
  };
}
