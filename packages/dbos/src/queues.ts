/**
 * Per-server call limits from mcp.json (`"limits": { "concurrency", "workerConcurrency", "rateLimit" }`)
 * → DBOS queues. A call to a limited server runs as a child workflow on that server's queue, so the
 * limits hold across every worker sharing the system database.
 */
import type { McpConfig, ServerLimits } from "@toolwright/runtime/manager";

export type { ServerLimits };

/** The DBOS queue name of a server's calls. */
export function serverQueueName(server: string): string {
  return `toolwright-server-${server}`;
}

/** The servers of an mcp.json that declare limits, by name (a prototype-free map). */
export function serverLimitsFromMcpConfig(config: McpConfig): { readonly [server: string]: ServerLimits } {
  const out: { [server: string]: ServerLimits } = Object.create(null);
  for (const [name, server] of Object.entries(config.mcpServers)) {
    if (server.limits && server.enabled !== false) out[name] = server.limits;
  }
  return out;
}
