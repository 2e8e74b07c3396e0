/**
 * Token attribution per run: what tool definitions and tool results put in the model's context,
 * and what progressive discovery and result budgets kept out of it. `createDiscoveryTools` and
 * `createResultBudget` record into an account when given one (`account` option); code mode's
 * `run_code` records each program with `recordCodeModeRun`: its calls' results stayed in the
 * sandbox, and only its answer reached the context.
 */

/** The totals of one run, in the account's token counter's units. */
export interface TokenAttribution {
  /** Turns whose tool definitions were recorded. */
  readonly turns: number;
  /** Definition tokens actually sent, all turns. */
  readonly definitionTokensSent: number;
  /** What sending every definition every turn would have cost. */
  readonly definitionTokensFull: number;
  /** `definitionTokensFull - definitionTokensSent`: saved by tool search or deferred loading. */
  readonly savedBySearch: number;
  /** Result tokens put in the context. */
  readonly resultTokensReturned: number;
  /** What the results would have cost whole. */
  readonly resultTokensFull: number;
  /** `resultTokensFull - resultTokensReturned`: saved by result budgets (the rest is held under handles). */
  readonly savedByBudgets: number;
  /** Code-mode programs recorded. */
  readonly codeModeRuns: number;
  /**
   * Tokens of the tool results the programs' calls got inside the sandbox: what direct tool calling
   * would have put in the context, one result per round trip.
   */
  readonly codeModeIntermediateTokens: number;
  /** `codeModeIntermediateTokens` minus the programs' answers (never below 0 per run): kept out by code mode. */
  readonly savedByCodeMode: number;
}

/** A per-run account. */
export interface TokenAccount {
  /** One turn's definitions: the tokens sent and what the whole catalogue would have cost. */
  recordDefinitions(sent: number, full: number): void;
  /** One result: the tokens returned to the model and what the whole result would have cost. */
  recordResult(returned: number, full: number): void;
  /**
   * One code-mode program: the tokens of its calls' results (kept in the sandbox) and of its answer
   * (the one result the model sees; record that one with `recordResult` too, as for any result).
   */
  recordCodeModeRun(intermediateTokens: number, answerTokens: number): void;
  attribution(): TokenAttribution;
  /** Starts a new run. */
  reset(): void;
}

/** Creates an empty account. */
export function createTokenAccount(): TokenAccount {
  let turns = 0;
  let defSent = 0;
  let defFull = 0;
  let resReturned = 0;
  let resFull = 0;
  let programs = 0;
  let intermediate = 0;
  let savedByCode = 0;
  return {
    recordDefinitions(sent, full) {
      turns++;
      defSent += sent;
      defFull += Math.max(sent, full);
    },
    recordResult(returned, full) {
      resReturned += returned;
      resFull += Math.max(returned, full);
    },
    recordCodeModeRun(intermediateTokens, answerTokens) {
      programs++;
      intermediate += intermediateTokens;
      savedByCode += Math.max(0, intermediateTokens - answerTokens);
    },
    attribution: () => ({
      turns,
      definitionTokensSent: defSent,
      definitionTokensFull: defFull,
      savedBySearch: defFull - defSent,
      resultTokensReturned: resReturned,
      resultTokensFull: resFull,
      savedByBudgets: resFull - resReturned,
      codeModeRuns: programs,
      codeModeIntermediateTokens: intermediate,
      savedByCodeMode: savedByCode,
    }),
    reset() {
      turns = defSent = defFull = resReturned = resFull = programs = intermediate = savedByCode = 0;
    },
  };
}
