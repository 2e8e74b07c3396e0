/**
 * The durable demo, written once for any server-memory: a throwaway PostgreSQL, two DBOS worker
 * processes, three librarian runs; the busy worker is SIGKILLed mid-call and the other finishes
 * its runs. `main.ts` runs it against the real server-memory (behind the counting proxy); the
 * example's test runs it against the generated mock (mock-memory.ts). Only the memory server
 * differs: the workers, the kill and PostgreSQL are real both ways.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDurableClient, type DurableClient } from "@toolwright/dbos";
import { startThrowawayPostgres, type ThrowawayPostgres } from "@toolwright/dbos/postgres";
import type { EpisodeReport, StepReport, Topic } from "./librarian.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = fileURLToPath(new URL("../../", import.meta.url));

/** The three runs, one topic each (each topic names a different person, so calls tell their run). */
export const TOPICS: readonly Topic[] = [
  { person: "Ada Lovelace", work: "Analytical Engine notes", relation: "wrote", facts: ["born in 1815", "wrote the first program"] },
  { person: "Grace Hopper", work: "COBOL", relation: "co-designed", facts: ["built the first compiler", "found a moth in the Mark II"] },
  { person: "Alan Turing", work: "ACE", relation: "designed", facts: ["proposed the imitation game", "broke Enigma at Bletchley Park"] },
];

/** The server answers this tool late (it ran it, then waits), so the kill lands mid-call. */
export const HOLD = { tool: "add_observations", ms: 3000 } as const;

/** One `tools/call` the memory server received. */
export interface ServerCall {
  readonly tool: string;
  readonly arguments: unknown;
  /** The worker whose connection sent it (a run's calls may go out from another worker's queue). */
  readonly owner: string;
  /** The durable layer's idempotency key in the call's `_meta` (`<runId>/<n>`), or null when it sent none. */
  readonly key: string | null;
}

/** The run an idempotency key belongs to: keys are `<runId>/<call number>`. */
const runOf = (call: ServerCall) => (call.key === null ? undefined : call.key.slice(0, call.key.lastIndexOf("/")));

/** The memory server the workers use, whichever it is. */
export interface MemoryServer {
  /** The folder whose `.toolwright/mcp.json` names it for the workers. */
  readonly configDir: string;
  /** The variables that mcp.json refers to, added to one worker's environment. */
  env(worker: string): { readonly [name: string]: string } | Promise<{ readonly [name: string]: string }>;
  /** Every `tools/call` it received so far, in order (counted at the server, not by the workers). */
  calls(): readonly ServerCall[];
  close(): Promise<void>;
}

/** How to run the demo. */
export interface DemoOptions {
  /** Starts the memory server, given a scratch folder it may use. */
  readonly memory: (dir: string) => MemoryServer | Promise<MemoryServer>;
  /** Where initdb and pg_ctl are, if not the usual place. */
  readonly binDir?: string | undefined;
  /** Where each line of the report goes (default: stdout). */
  readonly log?: (line: string) => void;
}

type Worker = {
  readonly id: string;
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  log: string;
};

function startWorker(id: string, env: NodeJS.ProcessEnv): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", join(here, "worker.ts")], {
    cwd: repo,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...env, DEMO_EXECUTOR: id },
  });
  const worker: Worker = {
    id,
    child,
    log: "",
    exited: new Promise((resolve) => child.once("exit", () => resolve())),
    ready: new Promise((resolve, reject) => {
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        worker.log += chunk;
        if (worker.log.includes('"ready"')) resolve();
      });
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        worker.log += chunk;
      });
      child.once("exit", (code, signal) =>
        reject(new Error(`${id} exited (${code ?? signal}) before it was ready:\n${worker.log.slice(-3000)}`)),
      );
    }),
  };
  worker.ready.catch(() => undefined);
  return worker;
}

async function until<T>(what: string, timeoutMs: number, check: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A short human description of a step's arguments. */
function describe(step: StepReport): string {
  const a = step.arguments as {
    entities?: { name: string; entityType: string }[];
    relations?: { from: string; to: string; relationType: string }[];
    observations?: { entityName: string; contents: string[] }[];
    names?: string[];
  };
  if (a.entities) return a.entities.map((e) => `${e.name} (${e.entityType})`).join(", ");
  if (a.relations) return a.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).join(", ");
  if (a.observations) return a.observations.map((o) => `${o.entityName} +${o.contents.length} observations`).join(", ");
  return (a.names ?? []).join(", ");
}

/** The person a held add_observations call is about. */

/** Runs the demo; resolves 0 when every run finished with no write duplicated or lost, else 1. */
export async function runDurableDemo(options: DemoOptions): Promise<number> {
  const log = options.log ?? ((line: string) => console.log(line));
  let pg: ThrowawayPostgres | undefined;
  let client: DurableClient | undefined;
  let memory: MemoryServer | undefined;
  const workers: Worker[] = [];
  const dir = mkdtempSync(join(tmpdir(), "toolwright-durable-demo-"));
  const stopAll = async () => {
    await client?.close().catch(() => undefined);
    for (const w of workers) w.child.stdin?.end();
    const force = setTimeout(() => {
      for (const w of workers) w.child.kill("SIGKILL");
    }, 8000);
    await Promise.all(workers.map((w) => (w.child.exitCode === null && w.child.signalCode === null ? w.exited : undefined)));
    clearTimeout(force);
    await memory?.close();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = () => void stopAll().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  try {
    const started = Date.now();
    pg = await startThrowawayPostgres(options.binDir ? { binDir: options.binDir } : {});
    log(`postgres: throwaway cluster on 127.0.0.1:${pg.port} (fsync off) in ${Date.now() - started} ms`);
    memory = await options.memory(dir);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...(options.binDir ? { TOOLWRIGHT_PG_BINDIR: options.binDir } : {}),
      DEMO_DATABASE_URL: pg.url("toolwright_demo"),
      DEMO_CONFIG_DIR: memory.configDir,
    };
    for (const id of ["worker-1", "worker-2"]) {
      const w = startWorker(id, { ...env, ...(await memory.env(id)) });
      workers.push(w);
      await w.ready; // the first one migrates the system database
    }
    log(`workers: ${workers.map((w) => `${w.id} (pid ${w.child.pid})`).join(", ")}; memory limited to 1 call in flight (mcp.json limits)`);
    client = await createDurableClient({ databaseUrl: env.DEMO_DATABASE_URL as string, appName: "toolwright-demo" });
    const runIds = TOPICS.map((_, i) => `librarian-${i + 1}`);
    for (const [i, topic] of TOPICS.entries()) await client.enqueue("librarian", { topic, thinkMs: 150 }, { runId: runIds[i] as string });

    const server = memory;
    const held = await until(`a worker to be busy in ${HOLD.tool}`, 60_000, () => server.calls().find((c) => c.tool === HOLD.tool));
    const heldRun = runOf(held);
    const victim = workers.find((w) => w.id === held.owner);
    if (!victim) throw new Error(`no worker named ${held.owner}`);
    const busy: string[] = [];
    for (const id of runIds) if ((await client.executorOf(id)) === victim.id && (await client.status(id)) === "PENDING") busy.push(id);
    victim.child.kill("SIGKILL");
    const runs = busy.length > 0 ? `; it was running ${busy.join(", ")}` : "";
    log(`SIGKILL ${victim.id} while it waits for ${HOLD.tool} (run ${heldRun}, key ${held.key}), which the server already ran${runs}`);

    const reports: EpisodeReport[] = [];
    const lostRuns: string[] = [];
    for (const id of runIds) {
      const report = await client.result<EpisodeReport>(id, 90_000);
      if (report && (await client.status(id)) === "SUCCESS") reports.push(report);
      else lostRuns.push(id);
    }
    const calls = memory.calls();
    let steps = 0;
    let duplicated = 0;
    let lostSteps = 0;
    for (const report of reports) {
      log(`\n${report.runId}: planned on ${report.plannedOn}, finished on ${await client.executorOf(report.runId)}`);
      for (const step of report.steps) {
        steps++;
        // The run's own calls (its idempotency keys) with this step's tool and arguments: a send that
        // was repeated after the kill carries the same key, so it counts here twice.
        const same = JSON.stringify(step.arguments);
        const executed = calls.filter(
          (c) => runOf(c) === report.runId && c.tool === step.tool && JSON.stringify(c.arguments) === same,
        ).length;
        if (!step.idempotent && executed > 1) duplicated++;
        if (!step.idempotent && executed === 0) lostSteps++;
        log(
          `  ${`${step.step}.`.padEnd(4)} ${step.tool.padEnd(17)} ${describe(step).padEnd(44)} ${step.outcome.padEnd(40)} executed ${executed}×`,
        );
      }
      log(`     observations now: ${report.observations.join("; ")}`);
    }
    const survivor = workers.find((w) => w !== victim);
    const takeovers = survivor ? [...survivor.log.matchAll(/"takeover":"([^"]+)","recovered":\[([^\]]*)\]/g)] : [];
    for (const t of takeovers)
      log(`\n${survivor?.id} took over ${t[1]}: re-enqueued ${t[2] ? t[2].split(",").length : 0} pending workflows`);
    log(`durable: ${reports.length} runs, ${steps} steps, ${duplicated} duplicated, ${lostRuns.length + lostSteps} lost`);
    return lostRuns.length + lostSteps + duplicated === 0 ? 0 : 1;
  } finally {
    await stopAll();
    process.off("SIGINT", onSignal);
  }
}
