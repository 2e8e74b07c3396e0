/**
 * Section 10: MCP servers side by side, all driven by the floor client (bench/server-worker.mjs):
 * the generated scaffold, tmcp, the SDK's `McpServer` 1.32.2, SDK v2's and a hand-written server,
 * over stdio and Streamable HTTP. `toolwright gen` writes the scaffold of bench/scaffold/design.ts;
 * esbuild bundles its handler file (bench/scaffold/serve.ts) the way a user's build would, with
 * @toolwright/runtime left as an import of the built package.
 */
import { existsSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseResult, run } from "../lib/spawn.ts";
import { type ClientKind, makeRow, type Row } from "../lib/stats.ts";
import type { BenchConfig } from "./config.ts";
import { SERVER_MEASURES } from "./server-measures.ts";
import { RUN_TAG } from "./transport.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HERE = fileURLToPath(new URL("..", import.meta.url));
const CLI = `${ROOT}packages/codegen/dist/bin.js`;
const OUT = `${HERE}.cache/scaffold`;
const WORKER = `${HERE}server-worker.mjs`;

/** The servers, as the `client` column of their rows: the scaffold is "toolwright", the floor "raw". */
const KINDS = ["toolwright", "tmcp", "sdk", "sdk2", "raw"] as const;
type Kind = (typeof KINDS)[number];
const WORKER_NAME: Record<Kind, string> = { toolwright: "scaffold", tmcp: "tmcp", sdk: "sdk", sdk2: "sdk2", raw: "raw" };
const LABELS: Record<Kind, string> = {
  toolwright: "generated scaffold",
  tmcp: "tmcp 1.20 (zod adapter)",
  sdk: "SDK McpServer 1.32.2",
  sdk2: "SDK v2 McpServer 2.4.0",
  raw: "hand-written server",
};
const IN_FLIGHT = [1, 16, 64] as const;
const TRANSPORTS = ["stdio", "http"] as const;

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

async function serverWorker<T>(task: Record<string, unknown>): Promise<T> {
  const finished = await run(process.execPath, ["--no-warnings", WORKER, JSON.stringify({ ...task, runTag: RUN_TAG })], {
    timeoutMs: 180_000,
  });
  return parseResult<T>(finished, `${task.mode} on ${task.server} ${task.transport}`);
}

interface Latency {
  readonly p50Us: number;
  readonly p99Us: number;
  readonly callsPerSec: number;
  readonly cpuUsPerCall?: number;
}
type Throughput = Record<string, Latency>;

/** Runs every server measure, `config.server.reps` repetitions with the servers' order reversed every other one. */
export async function measureServer(config: BenchConfig, log: (line: string) => void): Promise<{ rows: Row[]; notes: string[] }> {
  if (!existsSync(CLI)) return { rows: [], notes: ["Server section skipped: packages/codegen/dist/bin.js is not built."] };
  await buildScaffold();
  const c = config.server;
  const values = new Map<string, number[]>();
  const add = (transport: string, measure: string, kind: Kind, v: number) => {
    const key = `${transport}|${measure}|${kind}`;
    values.set(key, [...(values.get(key) ?? []), v]);
  };
  for (let rep = 0; rep < c.reps; rep++) {
    const order = rep % 2 === 0 ? KINDS : [...KINDS].reverse();
    for (const transport of TRANSPORTS) {
      for (const kind of order) {
        const r = await serverWorker<Throughput>({
          mode: "throughput",
          server: WORKER_NAME[kind],
          transport,
          inFlight: IN_FLIGHT,
          calls: transport === "stdio" ? c.stdioCalls : c.httpCalls,
          warmup: transport === "stdio" ? c.stdioWarmup : c.warmup,
        });
        for (const n of IN_FLIGHT) {
          const at = r[`x${n}`] as Latency;
          add(transport, SERVER_MEASURES.calls(n), kind, at.callsPerSec);
          add(transport, SERVER_MEASURES.p50(n), kind, at.p50Us);
          add(transport, SERVER_MEASURES.p99(n), kind, at.p99Us);
        }
        add(transport, SERVER_MEASURES.cpu, kind, (r.x64 as Latency).cpuUsPerCall ?? Number.NaN);
        add(transport, SERVER_MEASURES.orderCpu, kind, (r.order as Latency).cpuUsPerCall ?? Number.NaN);
        const own = (r.order as Latency).callsPerSec;
        add(transport, SERVER_MEASURES.order, kind, own);
        add(transport, SERVER_MEASURES.orderOverEcho, kind, own / (r.x64 as Latency).callsPerSec);
      }
    }
    for (const kind of order) {
      const m = await serverWorker<{ opsPerSec: number }>({
        mode: "mixed",
        server: WORKER_NAME[kind],
        transport: "http",
        sessions: c.mixedSessions,
        ops: c.mixedOps,
        warmup: c.mixedWarmup,
      });
      add("http", SERVER_MEASURES.mixed, kind, m.opsPerSec);
      const s = await serverWorker<{ bytesPerSession: number }>({
        mode: "sessions",
        server: WORKER_NAME[kind],
        transport: "http",
        sessions: c.sessions,
      });
      add("http", SERVER_MEASURES.session, kind, s.bytesPerSession / 1024);
      for (const transport of TRANSPORTS) {
        const cold = await serverWorker<{ ms: number }>({ mode: "cold", server: WORKER_NAME[kind], transport, launches: c.coldLaunches });
        add(transport, SERVER_MEASURES.cold, kind, cold.ms);
      }
    }
    log(`  server: repetition ${rep + 1}/${c.reps} done`);
  }
  const unitOf = (measure: string): { unit: string; better: "higher" | "lower" } =>
    measure.endsWith("calls/s") || measure.endsWith("ops/s")
      ? { unit: measure.endsWith("ops/s") ? "ops/s" : "calls/s", better: "higher" }
      : measure === SERVER_MEASURES.orderOverEcho
        ? { unit: "ratio", better: "higher" }
        : measure === SERVER_MEASURES.cold
          ? { unit: "ms", better: "lower" }
          : measure === SERVER_MEASURES.session
            ? { unit: "KiB", better: "lower" }
            : { unit: "µs", better: "lower" };
  const rows: Row[] = [];
  const measures = [...new Set([...values.keys()].map((k) => k.split("|").slice(0, 2).join("|")))];
  for (const tm of measures) {
    const [transport, measure] = tm.split("|") as [string, string];
    for (const kind of KINDS) {
      const vs = values.get(`${tm}|${kind}`);
      if (!vs) continue;
      rows.push(
        makeRow({
          section: "server",
          server: transport,
          client: kind as ClientKind,
          label: LABELS[kind],
          measure,
          ...unitOf(measure),
          values: vs,
        }),
      );
    }
  }
  return {
    rows,
    notes: [
      "Server section: the floor client (bench/lib/raw-client.mjs) against the generated scaffold (`toolwright gen` of bench/scaffold/design.ts, bundled by esbuild), tmcp 1.20 (zod adapter; HTTP through @remix-run/node-fetch-server), the SDK's McpServer 1.32.2, SDK v2's McpServer (@modelcontextprotocol/server 2.4.0, Streamable HTTP through @modelcontextprotocol/node) and the hand-written echo server, each serving `echo` and `order` (a nested object with enums and a union) with the same validation; the `server` column is the transport. There `×floor` is the server's figure over the hand-written server's, `×tmcp` over tmcp's, `×SDK` over McpServer 1.32.2's, `×SDK v2` over v2's.",
      "Server measures: echo at 1, 16 and 64 in flight on one connection (p50/p99 per call); the order payload at 64 in flight in halves alternating with echo's; server CPU per call is the server process's user + system time (/proc/<pid>/stat) over those halves, divided by their calls; the mixed load is 50 HTTP sessions on one keep-alive connection each sharing the operations, every tenth a tools/list; cold launch is spawn to the first answered tools/list (median of launches after an unmeasured one); RSS per session is the server's VmRSS growth over a second batch of sessions left open (connections dropped) over the first batch's, divided by the batch size.",
    ],
  };
}
