/**
 * `npm run demo:durable`: a throwaway PostgreSQL, two DBOS worker processes, three librarian runs
 * against server-memory through the generated typed client; the busy worker is SIGKILLed mid-call
 * and the other finishes its runs. Prints each step with how many times the server executed it
 * (counted by the proxy in front of server-memory), then tears everything down.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDurableClient, type DurableClient } from "@toolwright/dbos";
import { findPostgresBinDir, PostgresMissingError, startThrowawayPostgres, type ThrowawayPostgres } from "@toolwright/dbos/postgres";
import type { EpisodeReport, StepReport, Topic } from "./librarian.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = fileURLToPath(new URL("../../", import.meta.url));
const HOLD_TOOL = "add_observations";

const TOPICS: readonly Topic[] = [
  { person: "Ada Lovelace", work: "Analytical Engine notes", relation: "wrote", facts: ["born in 1815", "wrote the first program"] },
  { person: "Grace Hopper", work: "COBOL", relation: "co-designed", facts: ["built the first compiler", "found a moth in the Mark II"] },
  { person: "Alan Turing", work: "ACE", relation: "designed", facts: ["proposed the imitation game", "broke Enigma at Bletchley Park"] },
];

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

type CountEntry = { kind: string; tool?: string; arguments?: unknown; key?: string | null; owner?: string; pid?: number; server?: number };

function readCounts(file: string): CountEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as CountEntry];
      } catch {
        return [];
      }
    });
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

async function main(): Promise<number> {
  const binDir = process.env.TOOLWRIGHT_PG_BINDIR || undefined; // where initdb and pg_ctl are, if not the usual place
  try {
    findPostgresBinDir(binDir);
  } catch (error) {
    if (!(error instanceof PostgresMissingError)) throw error;
    console.error(`demo:durable needs PostgreSQL: ${error.message}`);
    return 1;
  }
  let pg: ThrowawayPostgres | undefined;
  let client: DurableClient | undefined;
  const workers: Worker[] = [];
  const dir = mkdtempSync(join(tmpdir(), "toolwright-durable-demo-"));
  const countFile = join(dir, "calls.jsonl");
  const stopAll = async () => {
    await client?.close().catch(() => undefined);
    for (const w of workers) w.child.stdin?.end();
    const force = setTimeout(() => {
      for (const w of workers) w.child.kill("SIGKILL");
    }, 8000);
    await Promise.all(workers.map((w) => (w.child.exitCode === null && w.child.signalCode === null ? w.exited : undefined)));
    clearTimeout(force);
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = () => void stopAll().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  try {
    const started = Date.now();
    pg = await startThrowawayPostgres(binDir ? { binDir } : {});
    console.log(`postgres: throwaway cluster on 127.0.0.1:${pg.port} (fsync off) in ${Date.now() - started} ms`);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...(process.env.TOOLWRIGHT_PG_BINDIR ? { TOOLWRIGHT_PG_BINDIR: process.env.TOOLWRIGHT_PG_BINDIR } : {}),
      DEMO_DATABASE_URL: pg.url("toolwright_demo"),
      DEMO_EXAMPLE_DIR: here.replace(/\/$/, ""),
      DEMO_MEMORY_FILE: join(dir, "memory.jsonl"),
      DEMO_COUNT_FILE: countFile,
      DEMO_HOLD_TOOL: HOLD_TOOL, // the proxy holds these answers 3 s: a slow server, so the kill lands mid-call
      DEMO_HOLD_MS: "3000",
    };
    for (const id of ["worker-1", "worker-2"]) {
      const w = startWorker(id, env);
      workers.push(w);
      await w.ready; // the first one migrates the system database
    }
    console.log(
      `workers: ${workers.map((w) => `${w.id} (pid ${w.child.pid})`).join(", ")}; memory limited to 1 call in flight (mcp.json limits)`,
    );
    client = await createDurableClient({ databaseUrl: env.DEMO_DATABASE_URL as string, appName: "toolwright-demo" });
    const runIds = TOPICS.map((_, i) => `librarian-${i + 1}`);
    for (const [i, topic] of TOPICS.entries()) await client.enqueue("librarian", { topic, thinkMs: 150 }, { runId: runIds[i] as string });

    const held = await until("a worker to be busy in add_observations", 60_000, () =>
      readCounts(countFile).find((e) => e.kind === "call" && e.tool === HOLD_TOOL),
    );
    const victim = workers.find((w) => w.id === held.owner);
    if (!victim) throw new Error(`no worker named ${held.owner}`);
    const busy: string[] = [];
    for (const id of runIds) if ((await client.executorOf(id)) === victim.id && (await client.status(id)) === "PENDING") busy.push(id);
    victim.child.kill("SIGKILL");
    const runs = busy.length > 0 ? `; it was running ${busy.join(", ")}` : "";
    console.log(`SIGKILL ${victim.id} while it waits for ${HOLD_TOOL} (key ${held.key}), which the server already ran${runs}`);

    const reports: EpisodeReport[] = [];
    const lostRuns: string[] = [];
    for (const id of runIds) {
      const report = await client.result<EpisodeReport>(id, 90_000);
      if (report && (await client.status(id)) === "SUCCESS") reports.push(report);
      else lostRuns.push(id);
    }
    const calls = readCounts(countFile).filter((e) => e.kind === "call");
    let steps = 0;
    let duplicated = 0;
    let lostSteps = 0;
    for (const report of reports) {
      const executor = await client.executorOf(report.runId);
      console.log(`\n${report.runId}: planned on ${report.plannedOn}, finished on ${executor}`);
      for (const step of report.steps) {
        steps++;
        const same = JSON.stringify(step.arguments);
        const executed = calls.filter(
          (c) => c.tool === step.tool && JSON.stringify(c.arguments) === same && c.key?.startsWith(`${report.runId}/`),
        ).length;
        if (!step.idempotent && executed > 1) duplicated++;
        if (!step.idempotent && executed === 0) lostSteps++;
        console.log(
          `  ${`${step.step}.`.padEnd(4)} ${step.tool.padEnd(17)} ${describe(step).padEnd(44)} ${step.outcome.padEnd(40)} executed ${executed}×`,
        );
      }
      console.log(`     observations now: ${report.observations.join("; ")}`);
    }
    const survivor = workers.find((w) => w !== victim);
    const takeovers = survivor ? [...survivor.log.matchAll(/"takeover":"([^"]+)","recovered":\[([^\]]*)\]/g)] : [];
    for (const t of takeovers)
      console.log(`\n${survivor?.id} took over ${t[1]}: re-enqueued ${t[2] ? t[2].split(",").length : 0} pending workflows`);
    console.log(`durable: ${reports.length} runs, ${steps} steps, ${duplicated} duplicated, ${lostRuns.length + lostSteps} lost`);
    return lostRuns.length + lostSteps + duplicated === 0 ? 0 : 1;
  } finally {
    await stopAll();
    process.off("SIGINT", onSignal);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo:durable failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
