/**
 * `@toolwright/runtime/durable`: the engine-neutral seam for durable runs, the in-memory engine
 * (the embedded default) and the planner's run expressed once against the seam.
 */
export type { CallRecord, DurableCall, DurableContext } from "./durable/durable.js";
export { IDEMPOTENCY_KEY_META, runCallSteps, sendCall, unknownOutcomeFailure } from "./durable/durable.js";
export type { InMemoryDurableEngine, JournalEntry } from "./durable/durable-memory.js";
export { createInMemoryDurableEngine, DurableCrashError } from "./durable/durable-memory.js";
export type {
  ApprovalDecision,
  ApprovalRequest,
  AskRequest,
  DurableRetryPolicy,
  DurableRun,
  DurableRunOptions,
} from "./durable/durable-run.js";
export { APPROVAL_EVENT, ASK_EVENT, createDurableRun } from "./durable/durable-run.js";
