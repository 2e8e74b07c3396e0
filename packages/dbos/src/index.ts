/**
 * `@toolwright/dbos`: durable Toolwright agent runs on DBOS Transact and PostgreSQL. Every tool call
 * is a checkpointed step, waits are durable, per-server limits are queues, dead workers are taken over.
 */
export { AgentCallerMissingError, type RuntimeFor } from "./agent-callers.js";
export type { DurableClient, DurableClientOptions } from "./client.js";
export { createDurableClient } from "./client.js";
export type { MigrateOptions } from "./migrate.js";
export { migrateSystemDatabase } from "./migrate.js";
export type { ServerLimits } from "./queues.js";
export { serverLimitsFromMcpConfig, serverQueueName } from "./queues.js";
export type { Takeover } from "./takeover.js";
export type { DurableAgent, DurableAgentOptions, DurableWorker, DurableWorkerOptions } from "./worker.js";
export { defineDurableAgent, launchDurableWorker, RUN_QUEUE } from "./worker.js";
