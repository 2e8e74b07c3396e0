/**
 * The many-users driver's load phase: forks the workers, keeps a fixed number of "turns" in flight
 * (a turn = one random principal calling each server twice at once, the two calls on different
 * workers, so that both workers meet the same expiry at the same moment), kills a random worker
 * with SIGKILL at random moments, re-drives the calls it owned on the surviving workers, restarts
 * it, and drains. A call is lost when it was issued and never answered, even after re-driving.
 * Every wait is bounded.
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CallMessage, DoneMessage, WorkerConfig } from "./protocol.js";

const workerScript = fileURLToPath(new URL("./worker.ts", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** One load phase. */
export interface PhaseOptions {
  readonly config: WorkerConfig;
  readonly workers: number;
  readonly principals: number;
  readonly seconds: number;
  /** Turns in flight at once (each turn is 2 calls per server). */
  readonly concurrency: number;
  /** SIGKILLs of a random worker during the phase. */
  readonly kills: number;
  readonly log: (line: string) => void;
}

/** What a phase measured. */
export interface PhaseResult {
  readonly issued: number;
  readonly ok: number;
  /** Calls answered with a failure (not lost: the driver got an answer). */
  readonly failed: number;
  /** Calls never answered, after re-driving. */
  readonly lost: number;
  /** Calls re-sent because their worker was killed. */
  readonly redriven: number;
  readonly kills: number;
  /** Pid of each worker killed, and when (epoch ms). */
  readonly killedPids: ReadonlyMap<string, number>;
  /** Worker-side latency of each successful call, ms. */
  readonly latencies: number[];
  readonly failures: Map<string, number>;
  /** The (principal, server name) of each call answered with a failure. */
  readonly failedCalls: { readonly principal: string; readonly server: string }[];
  readonly wallSeconds: number;
}

interface Worker {
  readonly index: number;
  readonly child: ChildProcess;
  ready: boolean;
  readonly pending: Map<number, CallMessage>;
}

interface Tracked {
  readonly message: CallMessage;
  settle(done: DoneMessage): void;
}

const principalName = (i: number) => `user-${String(i).padStart(4, "0")}`;

/** Runs one phase to the end and drains it. */
export async function runPhase(options: PhaseOptions): Promise<PhaseResult> {
  const { config, log } = options;
  const workers: (Worker | undefined)[] = [];
  const calls = new Map<number, Tracked>();
  const waiting: CallMessage[] = [];
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const failedCalls: { principal: string; server: string }[] = [];
  const counts = { issued: 0, ok: 0, failed: 0, redriven: 0, kills: 0 };
  let nextId = 0;
  let stopping = false;
  let restarts = 0;
  const killedPids = new Map<string, number>();

  const live = () => workers.filter((w): w is Worker => w?.ready === true);

  function dispatch(message: CallMessage, prefer: number): void {
    const ready = live();
    if (ready.length === 0) {
      waiting.push(message); // sent when a worker is ready again
      return;
    }
    const worker = ready[prefer % ready.length] as Worker;
    worker.pending.set(message.id, message);
    worker.child.send(message);
  }

  function spawnWorker(index: number): Promise<void> {
    const child = fork(workerScript, [], {
      cwd: repoRoot,
      execArgv: ["--import", "tsx"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", TW_MANY_USERS: JSON.stringify(config) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const worker: Worker = { index, child, ready: false, pending: new Map() };
    workers[index] = worker;
    child.on("message", (m: DoneMessage | { ready: true }) => {
      if ("ready" in m) {
        worker.ready = true;
        for (const message of waiting.splice(0)) dispatch(message, message.id);
        return;
      }
      worker.pending.delete(m.done);
      calls.get(m.done)?.settle(m);
    });
    child.on("exit", (code, signal) => {
      worker.ready = false;
      if (workers[index] === worker) workers[index] = undefined;
      if (stopping) return;
      log(`worker ${index} (pid ${child.pid}) exited (${signal ?? code}); re-driving ${worker.pending.size} calls and restarting it`);
      for (const message of worker.pending.values()) {
        counts.redriven++;
        dispatch(message, message.id + 1);
      }
      worker.pending.clear();
      // Bounded: a worker that keeps dying at start is not restarted forever.
      if (++restarts > options.kills + 3) return log(`worker ${index} not restarted: too many exits`);
      spawnWorker(index).catch((error: Error) => log(`worker ${index} did not restart: ${error.message}`));
    });
    return waitUntil(() => worker.ready || child.exitCode !== null, 90_000, `worker ${index} to start`);
  }

  function call(principal: string, server: string, prefer: number): Promise<void> {
    const message: CallMessage = { id: nextId++, principal, server };
    counts.issued++;
    return new Promise<void>((resolve) => {
      calls.set(message.id, {
        message,
        settle(done) {
          calls.delete(message.id);
          if (done.ok) {
            counts.ok++;
            latencies.push(done.ms);
          } else {
            counts.failed++;
            failedCalls.push({ principal, server });
            const key = done.failure ?? "unknown";
            failures.set(key, (failures.get(key) ?? 0) + 1);
          }
          resolve();
        },
      });
      dispatch(message, prefer);
    });
  }

  for (let i = 0; i < options.workers; i++) await spawnWorker(i);
  log(`${options.workers} workers ready (${config.mode}); running ${options.seconds} s`);
  const started = Date.now();
  const end = started + options.seconds * 1000;

  async function lane(): Promise<void> {
    // Bounded by the phase's end; each turn is bounded by the drain deadline below.
    while (Date.now() < end) {
      const principal = principalName(Math.floor(Math.random() * options.principals));
      const base = Math.floor(Math.random() * 1024);
      await Promise.all(config.servers.flatMap(({ name }) => [call(principal, name, base), call(principal, name, base + 1)]));
    }
  }

  const killer = (async () => {
    const moments = Array.from({ length: options.kills }, () => 0.15 + Math.random() * 0.6).sort((a, b) => a - b);
    for (const at of moments) {
      await waitUntil(() => Date.now() >= started + at * options.seconds * 1000, options.seconds * 1000 + 1000, "the kill moment");
      // Only when all are up: killing the last live worker would test nothing more.
      await waitUntil(() => live().length === options.workers, 90_000, "all workers to be up before a kill");
      const victim = live()[Math.floor(Math.random() * options.workers)] as Worker;
      log(`kill -9 worker ${victim.index} (pid ${victim.child.pid}) with ${victim.pending.size} calls in flight`);
      counts.kills++;
      // Out of rotation at once: its exit event comes later, and no new call may go to a dead worker.
      victim.ready = false;
      killedPids.set(String(victim.child.pid), Date.now());
      victim.child.kill("SIGKILL");
    }
  })();

  const lanes = Array.from({ length: options.concurrency }, () => lane());
  const drained = await Promise.race([
    Promise.all([...lanes, killer]).then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), (options.seconds + 120) * 1000).unref()),
  ]);
  if (!drained) log("drain deadline passed: calls still unanswered count as lost");
  const wallSeconds = (Date.now() - started) / 1000;
  stopping = true;
  await stopWorkers(workers.filter((w): w is Worker => w !== undefined));
  return { ...counts, killedPids, lost: calls.size, latencies, failures, failedCalls, wallSeconds };
}

async function stopWorkers(workers: readonly Worker[]): Promise<void> {
  await Promise.all(
    workers.map(async (w) => {
      if (w.child.exitCode !== null || w.child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => w.child.once("exit", () => resolve()));
      if (w.child.connected) w.child.send({ stop: true });
      const timer = setTimeout(() => w.child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** Polls `condition` every 25 ms until true; rejects after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
