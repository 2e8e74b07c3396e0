/**
 * Token attribution per run: what tool definitions and tool results put in the model's context,
 * and what progressive discovery and result budgets kept out of it. `createDiscoveryTools` and
 * `createResultBudget` record into an account when given one (`account` option); code mode can
 * record its own savings with `recordDefinitions` / `recordResult` (sent vs. what plain tool use
 * would have sent).
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
}

/** A per-run account. */
export interface TokenAccount {
  /** One turn's definitions: the tokens sent and what the whole catalogue would have cost. */
  recordDefinitions(sent: number, full: number): void;
  /** One result: the tokens returned to the model and what the whole result would have cost. */
  recordResult(returned: number, full: number): void;
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
    attribution: () => ({
      turns,
      definitionTokensSent: defSent,
      definitionTokensFull: defFull,
      savedBySearch: defFull - defSent,
      resultTokensReturned: resReturned,
      resultTokensFull: resFull,
      savedByBudgets: resFull - resReturned,
    }),
    reset() {
      turns = defSent = defFull = resReturned = resFull = 0;
    },
  };
}
