/**
 * The legacy family (2024-11-05 … 2025-11-25): one `initialize` handshake per session, protocol
 * fields negotiated once, client-augmented experimental tasks (2025-11-25), subscriptions and list
 * changes on the session's notification stream, `ping` for liveness.
 */
import { shapedCallResult } from "../../protocol/result-shape.js";
import { LEGACY_NAME, type Revision } from "../revision.js";
import { serverRunsToolTasks } from "./tasks.js";
import { LEGACY_PROTOCOL_VERSIONS } from "./versions.js";

/** The legacy `initialize` family. */
export const legacyRevision: Revision = Object.freeze({
  name: LEGACY_NAME,
  versions: LEGACY_PROTOCOL_VERSIONS,
  handshake: "initialize",
  requestMeta: () => undefined,
  routingHeaders: false,
  // Header plans do not exist here; a server that runs tool calls as tasks needs each tool's support.
  needsToolList: (capabilities) => serverRunsToolTasks(capabilities),
  tasks: "client-augmented",
  subscriptions: "notification-stream",
  liveness: "ping",
  decodeToolResult: shapedCallResult,
  // A legacy result is what the handler returned.
  encodeResult: (_method, result) => result,
  // 2025-11-25 names the ttl and the poll interval without a unit.
  taskStatus: (task) => ({
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttl: task.ttlMs,
    pollInterval: task.pollIntervalMs,
  }),
} satisfies Revision);
