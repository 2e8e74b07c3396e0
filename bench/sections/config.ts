/** Run sizes for the full and the quick benchmark. */
export interface BenchConfig {
  readonly quick: boolean;
  /** Repetitions (fresh processes) per configuration. */
  readonly reps: number;
  /**
   * Repetitions of the two stdio measures with targets against the floor (pinned p50 and 64 in
   * flight, raw server): one worker's figure moves by ±25% between processes here, so five pairs
   * leave their median ±0.1 (docs/performance.md, "Session 6").
   */
  readonly stdioTargetReps: number;
  /** Repetitions of the manager measure (one pinned worker each), for the same reason. */
  readonly managerReps: number;
  readonly stdioSequential: number;
  readonly stdioConcurrent: number;
  readonly stdioInFlight: number;
  readonly httpSequential: number;
  readonly httpConcurrent: number;
  readonly httpInFlight: number;
  readonly coldReps: number;
  readonly importReps: number;
  /** Pairs of (`toolwright <flag>`, `node -e 0`) per flag in the CLI start-up section. */
  readonly cliReps: number;
  readonly memoryReps: number;
  readonly validationPayloads: number;
  readonly codegenTools: number;
  readonly codegenReps: number;
  /** Design sizes for the codegen growth series (the last over the middle one is the growth target). */
  readonly codegenScale: readonly number[];
  readonly managerCalls: number;
  /** The server section (issue 32): every server driven by the floor client. */
  readonly server: ServerConfig;
}

/** Sizes of the server section. */
export interface ServerConfig {
  /** Repetitions: fresh server processes per measure, the servers' order reversed every other one. */
  readonly reps: number;
  /** Calls per in-flight level (the last level's calls are split between echo and the order payload's halves). */
  readonly stdioCalls: { readonly x1: number; readonly x16: number; readonly x64: number };
  readonly httpCalls: { readonly x1: number; readonly x16: number; readonly x64: number };
  /** Calls of each tool before measuring, at 64 in flight (HTTP). */
  readonly warmup: number;
  /**
   * The same over stdio, larger: after 300 calls a tool's path (its generated validator above all)
   * is still being optimised by V8 on a busy machine, so its first measured calls cost ~2× the later ones.
   */
  readonly stdioWarmup: number;
  /** Mixed load: sessions and operations (1 tools/list : 9 tools/call), after `mixedWarmup` of the same. */
  readonly mixedSessions: number;
  readonly mixedOps: number;
  readonly mixedWarmup: number;
  /** Measured launches per cold-launch worker (after one unmeasured). */
  readonly coldLaunches: number;
  /** Sessions per step of the RSS-per-session measure. */
  readonly sessions: number;
}

/** Sizes from the issue (full) or a sanity-check run under a minute (quick). */
export function configFor(quick: boolean): BenchConfig {
  return quick
    ? {
        quick,
        reps: 1,
        stdioTargetReps: 1,
        managerReps: 1,
        stdioSequential: 500,
        stdioConcurrent: 3_000,
        stdioInFlight: 64,
        httpSequential: 100,
        httpConcurrent: 200,
        httpInFlight: 32,
        coldReps: 1,
        importReps: 2,
        cliReps: 3,
        memoryReps: 1,
        validationPayloads: 20_000,
        codegenTools: 50,
        codegenReps: 1,
        codegenScale: [10, 100, 1_000],
        managerCalls: 300,
        server: {
          reps: 1,
          stdioCalls: { x1: 300, x16: 1_000, x64: 2_000 },
          httpCalls: { x1: 200, x16: 500, x64: 1_000 },
          warmup: 300,
          stdioWarmup: 300,
          mixedSessions: 50,
          mixedOps: 1_000,
          mixedWarmup: 300,
          coldLaunches: 2,
          sessions: 100,
        },
      }
    : {
        quick,
        reps: 5,
        stdioTargetReps: 15,
        managerReps: 15,
        stdioSequential: 2_000,
        stdioConcurrent: 10_000,
        stdioInFlight: 64,
        httpSequential: 1_000,
        httpConcurrent: 3_000,
        httpInFlight: 32,
        coldReps: 7,
        importReps: 15,
        cliReps: 15,
        memoryReps: 5,
        validationPayloads: 100_000,
        codegenTools: 1_000,
        codegenReps: 3,
        codegenScale: [100, 1_000, 10_000],
        managerCalls: 2_000,
        server: {
          // Sized so that one full run of the section takes about 8 minutes at load average 15 on
          // 2 cores (the 3-repetition size of 2026-12-02 took 8.5 minutes per repetition there).
          reps: 2,
          // stdio at 64 in flight: four windows of 3,000 calls (echo, order, order, echo). Windows of
          // 1,000 lasted 0.1–0.5 s and moved the floor's own order/echo ratio between 0.72 and 1.98.
          stdioCalls: { x1: 300, x16: 1_000, x64: 6_000 },
          httpCalls: { x1: 150, x16: 500, x64: 1_000 },
          warmup: 300,
          stdioWarmup: 2_000,
          mixedSessions: 50,
          mixedOps: 1_000,
          mixedWarmup: 300,
          coldLaunches: 2,
          sessions: 60,
        },
      };
}

/** The four clients (SDK 1.32.2, SDK v2, floor). The transport measures run them in this order, then reversed, repetition by repetition. */
export const CLIENTS = ["toolwright", "sdk", "sdk2", "raw"] as const;
