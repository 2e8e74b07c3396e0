/**
 * Sections 1-4: stdio and Streamable HTTP latency and throughput, and cold start. Each repetition
 * is a fresh worker process; clients are interleaved inside a repetition so drift hits all alike.
 */
import { fileURLToPath } from "node:url";
import { parseResult, run } from "../lib/spawn.ts";
import { type ClientKind, makeRow, type Row } from "../lib/stats.ts";
import { type BenchConfig, CLIENTS } from "./config.ts";

const WORKER = fileURLToPath(new URL("../worker.mjs", import.meta.url));
/** Tags this run's workers and servers (an ignored argument) so strays can be told from other runs. */
export const RUN_TAG = `${process.pid}-${Date.now().toString(36)}`;

interface LatencyResult {
  readonly calls: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly callsPerSec: number;
  readonly maxListenerWarnings: number;
}

/** Runs one worker task. */
export async function worker<T>(task: Record<string, unknown>, options: { pinned?: boolean; gc?: boolean } = {}): Promise<T> {
  const flags = ["--no-warnings", ...(options.gc ? ["--expose-gc"] : [])];
  const finished = await run(process.execPath, [...flags, WORKER, JSON.stringify({ ...task, runTag: RUN_TAG })], {
    timeoutMs: 180_000,
    ...(options.pinned ? { pinned: true } : {}),
  });
  return parseResult<T>(finished, `${task.mode} ${task.client} on ${task.server}`);
}

interface Scenario {
  readonly section: string;
  readonly measure: string;
  readonly transport: "stdio" | "http";
  readonly server: string;
  readonly calls: number;
  readonly concurrency: number;
  readonly pinned: boolean;
  /** Calls before the measured ones; the default is the section's rule (a fifth of the calls, at least 200). */
  readonly warmup?: number;
  /** Repetitions; the default is `config.reps`. */
  readonly reps?: number;
}

/** The scenarios the config asks for; HTTP only when the Toolwright HTTP caller is built. */
export function scenarios(config: BenchConfig, withHttp: boolean): Scenario[] {
  const out: Scenario[] = [];
  for (const server of ["raw-stdio", "sdk-stdio"]) {
    out.push({
      section: "stdio",
      measure: "sequential",
      transport: "stdio",
      server,
      calls: config.stdioSequential,
      concurrency: 1,
      pinned: false,
    });
    out.push({
      section: "stdio",
      measure: "sequential pinned",
      transport: "stdio",
      server,
      calls: config.stdioSequential,
      concurrency: 1,
      pinned: true,
      ...(server === "raw-stdio" ? { reps: config.stdioTargetReps } : {}),
    });
    // The same pinned measure once every client is warm (V8 has optimised its call path): the
    // short run above mostly measures tier-up of a client with more functions per call than the floor.
    if (server === "raw-stdio")
      out.push({
        section: "stdio",
        measure: "sequential pinned, steady",
        transport: "stdio",
        server,
        calls: config.stdioSequential,
        concurrency: 1,
        pinned: true,
        warmup: config.stdioSequential * 5,
      });
    out.push({
      section: "stdio",
      measure: `concurrent x${config.stdioInFlight}`,
      transport: "stdio",
      server,
      calls: config.stdioConcurrent,
      concurrency: config.stdioInFlight,
      pinned: false,
      ...(server === "raw-stdio" ? { reps: config.stdioTargetReps } : {}),
    });
  }
  if (withHttp) {
    for (const server of ["raw-http", "sdk-http-json", "sdk-http-sse"]) {
      out.push({
        section: "http",
        measure: "sequential",
        transport: "http",
        server,
        calls: config.httpSequential,
        concurrency: 1,
        pinned: false,
      });
      out.push({
        section: "http",
        measure: `concurrent x${config.httpInFlight}`,
        transport: "http",
        server,
        calls: config.httpConcurrent,
        concurrency: config.httpInFlight,
        pinned: false,
      });
    }
  }
  return out;
}

/**
 * Runs every scenario for every client, `config.reps` times (a scenario may ask for more), and
 * returns the rows. Odd repetitions run the clients in reverse order, so no client always runs
 * first or always next to the floor.
 */
export async function measureTransports(config: BenchConfig, withHttp: boolean, log: (line: string) => void): Promise<Row[]> {
  const list = scenarios(config, withHttp);
  const results = new Map<string, LatencyResult[]>();
  const reps = Math.max(config.reps, ...list.map((s) => s.reps ?? config.reps));
  for (let rep = 0; rep < reps; rep++) {
    const order = rep % 2 === 0 ? CLIENTS : [...CLIENTS].reverse();
    for (const s of list) {
      if (rep >= (s.reps ?? config.reps)) continue;
      for (const client of order) {
        const task = {
          mode: "latency",
          client,
          transport: s.transport,
          server: s.server,
          calls: s.calls,
          concurrency: s.concurrency,
          warmup: s.warmup ?? (config.quick ? Math.min(s.calls, 50) : Math.min(s.calls, Math.max(200, Math.floor(s.calls / 5)))),
        };
        const r = await worker<LatencyResult>(task, { pinned: s.pinned });
        const key = `${s.section}|${s.measure}|${s.server}|${client}`;
        results.set(key, [...(results.get(key) ?? []), r]);
      }
    }
    log(`  transports: repetition ${rep + 1}/${reps} done`);
  }
  const rows: Row[] = [];
  for (const s of list) {
    for (const client of CLIENTS) {
      const rs = results.get(`${s.section}|${s.measure}|${s.server}|${client}`) ?? [];
      const base = { section: s.section, measure: s.measure, server: s.server, client: client as ClientKind };
      const seq = s.concurrency === 1;
      if (seq) rows.push(makeRow({ ...base, measure: `${s.measure} p50`, unit: "µs", better: "lower", values: rs.map((r) => r.p50Us) }));
      rows.push(makeRow({ ...base, measure: `${s.measure} p99`, unit: "µs", better: "lower", values: rs.map((r) => r.p99Us) }));
      rows.push(
        makeRow({ ...base, measure: `${s.measure} calls/s`, unit: "calls/s", better: "higher", values: rs.map((r) => r.callsPerSec) }),
      );
      if (s.transport === "http") {
        rows.push(
          makeRow({
            ...base,
            measure: `${s.measure} MaxListeners warnings`,
            unit: "warnings",
            better: "lower",
            values: rs.map((r) => r.maxListenerWarnings),
          }),
        );
      }
    }
  }
  return rows;
}

/** Section 4: spawn -> initialize + tools/list, in a fresh worker whose client modules are loaded. */
export async function measureColdStart(config: BenchConfig, log: (line: string) => void): Promise<Row[]> {
  const servers = ["raw-stdio", "sdk-stdio"];
  const values = new Map<string, number[]>();
  for (let rep = 0; rep < config.coldReps; rep++) {
    for (const server of servers) {
      for (const client of CLIENTS) {
        const r = await worker<{ ms: number }>({ mode: "cold", client, transport: "stdio", server });
        const key = `${server}|${client}`;
        values.set(key, [...(values.get(key) ?? []), r.ms]);
      }
    }
  }
  log(`  cold start: ${config.coldReps} repetitions done`);
  return servers.flatMap((server) =>
    CLIENTS.map((client) =>
      makeRow({
        section: "cold start",
        measure: "spawn → initialize + tools/list",
        server,
        client,
        unit: "ms",
        better: "lower",
        values: values.get(`${server}|${client}`) ?? [],
      }),
    ),
  );
}
