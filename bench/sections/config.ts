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
  readonly serverCalls: number;
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
        serverCalls: 1_000,
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
        serverCalls: 5_000,
      };
}

/** The four clients (SDK 1.32.2, SDK v2, floor). The transport measures run them in this order, then reversed, repetition by repetition. */
export const CLIENTS = ["toolwright", "sdk", "sdk2", "raw"] as const;
