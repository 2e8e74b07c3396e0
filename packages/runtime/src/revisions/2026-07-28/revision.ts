/**
 * The stateless 2026-07-28 revision: `server/discover` instead of `initialize`, the protocol fields
 * in every request's `_meta`, routing headers over HTTP, server-decided tasks (the
 * `io.modelcontextprotocol/tasks` extension), `subscriptions/listen`, `server/discover` for liveness,
 * and results tagged `resultType: "complete"`.
 */
import { protocolMeta } from "../../protocol/modern.js";
import { shapedCallResult } from "../../protocol/result-shape.js";
import type { Revision } from "../revision.js";
import { STATELESS_REVISION_NAME, STATELESS_VERSIONS } from "./versions.js";

/** The stateless 2026-07-28 revision. */
export const statelessRevision: Revision = Object.freeze({
  name: STATELESS_REVISION_NAME,
  versions: STATELESS_VERSIONS,
  handshake: "discover",
  requestMeta: (version, identity) => protocolMeta(version, identity.capabilities, identity.clientInfo),
  routingHeaders: true,
  // Tasks are the server's decision here; only the HTTP header plans need the list.
  needsToolList: (_capabilities, plansFromToolList) => plansFromToolList,
  tasks: "server-decided",
  subscriptions: "listen",
  // 2026-07-28 has no ping; server/discover is the cheapest liveness request there.
  liveness: "server/discover",
  decodeToolResult: shapedCallResult,
  // Results say whether they are complete (MRTR); a handler's result that does not say, is.
  encodeResult: (_method, result) =>
    typeof result === "object" && result !== null && !("resultType" in result) ? { ...result, resultType: "complete" } : result,
  taskStatus: (task) => ({
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  }),
} satisfies Revision);
