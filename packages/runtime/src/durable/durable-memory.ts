/**
 * The embedded durable engine: a journal per run kept in memory. A run that failed or was crashed
 * (`crash`) can be run again under the same id and replays its recorded steps; nothing survives
 * the process. Also the reference for what an engine adapter must do.
 */
import type { DurableContext } from "./durable.js";

/** Thrown into a run's pending steps by `crash()`: that execution is over and records nothing more. */
export class DurableCrashError extends Error {
  readonly code = "ERR_TOOLWRIGHT_DURABLE_CRASH";
  constructor(runId: string) {
    super(`run ${runId} was crashed`);
    this.name = "DurableCrashError";
  }
}

/** A recorded step. */
export interface JournalEntry {
  readonly name: string;
  readonly value: unknown;
}

/** The in-memory engine. */
export interface InMemoryDurableEngine {
  /** Runs (or resumes, replaying the journal) the run `runId`. A finished run returns its recorded result. */
  run<T>(runId: string, body: (ctx: DurableContext) => Promise<T>): Promise<T>;
  /** Sends a message to a run's `recv(topic)`; kept until received. */
  send(runId: string, topic: string, message: unknown): void;
  /** The last value a run published with `setEvent`. */
  getEvent(runId: string, key: string): unknown;
  /** Ends the current execution of a run as if its process died: pending steps reject, nothing more is recorded. */
  crash(runId: string): void;
  /** The recorded steps of a run, in order. */
  journal(runId: string): readonly JournalEntry[];
}

interface RunState {
  /** Indexed by step order; a slot stays empty while its step runs (parallel steps fill out of order). */
  readonly journal: (JournalEntry | undefined)[];
  /** Bumped by `crash()`: an execution started under an older epoch is dead and may record nothing. */
  epoch: number;
  done?: { readonly value: unknown };
  readonly crashers: Set<(error: Error) => void>;
}

/**
 * Values pass through JSON on the way in and out, as a real engine's database would pass them: a
 * step result that does not survive serialization fails in tests here, not in production there.
 */
const copy = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

/** Creates an in-memory durable engine. `executorId` names this process in evidence. */
export function createInMemoryDurableEngine(options: { readonly executorId?: string } = {}): InMemoryDurableEngine {
  const runs = new Map<string, RunState>();
  const mail = new Map<string, unknown[]>();
  const waiters = new Map<string, () => void>();
  const events = new Map<string, unknown>();
  const executorId = options.executorId ?? "in-memory";

  const stateOf = (runId: string): RunState => {
    let state = runs.get(runId);
    if (!state) {
      state = { journal: [], epoch: 0, crashers: new Set() };
      runs.set(runId, state);
    }
    return state;
  };

  function contextFor(runId: string, state: RunState): DurableContext {
    const epoch = state.epoch;
    let cursor = 0;
    /** Rejects with a crash when the execution is crashed while `work` is pending. */
    const guarded = <T>(work: Promise<T>): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        const onCrash = (error: Error) => reject(error);
        state.crashers.add(onCrash);
        work.then(resolve, reject).finally(() => state.crashers.delete(onCrash));
      });
    const live = () => {
      if (state.epoch !== epoch) throw new DurableCrashError(runId);
    };
    const ctx: DurableContext = {
      runId,
      executorId,
      async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
        live();
        const slot = cursor++; // taken synchronously, so parallel steps keep their order on replay
        const recorded = state.journal[slot];
        if (recorded) {
          // Replay must take the same path: a different step at this position means the run depends
          // on something not journaled (time, randomness) and its recorded results no longer apply.
          if (recorded.name !== name)
            throw new Error(`run ${runId}: step ${slot} was "${recorded.name}" when recorded and is "${name}" now (non-deterministic run)`);
          return copy(recorded.value) as T;
        }
        const value = await guarded(fn());
        // A step that finished after its execution was crashed must not be recorded: the successor
        // runs it again, as it would after a real process death.
        live();
        state.journal[slot] = { name, value: copy(value) };
        return copy(value);
      },
      async sleep(ms) {
        // The wake-up time is journaled, not the duration: a resumed run sleeps only what is left.
        const until = await ctx.step(`sleep ${ms}`, async () => Date.now() + ms);
        const left = until - Date.now();
        if (left > 0) await guarded(new Promise((resolve) => setTimeout(resolve, left)));
        live();
      },
      async recv<T>(topic: string, timeoutMs: number): Promise<T | undefined> {
        // A step: a received message is journaled, so a replay gets the same message and the queue
        // is not read twice. `null` stands for "none" (undefined does not survive JSON).
        const got = await ctx.step(`recv ${topic}`, async () => {
          const key = `${runId}\u0000${topic}`;
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            if (state.epoch !== epoch) return { message: null }; // a crashed execution must not take the message
            const queue = mail.get(key);
            if (queue && queue.length > 0) return { message: queue.shift() ?? null };
            const left = deadline - Date.now();
            if (left <= 0) return { message: null };
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, left);
              waiters.set(key, () => {
                clearTimeout(timer);
                resolve();
              });
            });
            waiters.delete(key);
          }
        });
        return (got.message ?? undefined) as T | undefined;
      },
      async setEvent(key, value) {
        live();
        events.set(`${runId}\u0000${key}`, copy(value));
      },
    };
    return ctx;
  }

  return {
    async run<T>(runId: string, body: (ctx: DurableContext) => Promise<T>): Promise<T> {
      const state = stateOf(runId);
      // Runs are idempotent by id: a finished run answers with its recorded result and runs nothing.
      if (state.done) return copy(state.done.value) as T;
      const value = await body(contextFor(runId, state));
      state.done = { value: copy(value) };
      return value;
    },
    send(runId, topic, message) {
      const key = `${runId}\u0000${topic}`;
      mail.set(key, [...(mail.get(key) ?? []), copy(message)]);
      waiters.get(key)?.();
    },
    getEvent: (runId, key) => copy(events.get(`${runId}\u0000${key}`)),
    crash(runId) {
      const state = stateOf(runId);
      state.epoch++;
      for (const crash of [...state.crashers]) crash(new DurableCrashError(runId));
      state.crashers.clear();
    },
    journal: (runId) => (runs.get(runId)?.journal ?? []).filter((e): e is JournalEntry => e !== undefined),
  };
}
