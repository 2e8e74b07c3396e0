/**
 * mcp.json `limits` → the per-server queue settings: loaded, validated with a pointer to the bad
 * field, and only for enabled servers, in a prototype-free map.
 */
import { McpConfigError, parseMcpConfig } from "@toolwright/runtime/manager";
import { describe, expect, it } from "vitest";
import { serverLimitsFromMcpConfig, serverQueueName } from "./queues.js";

describe("per-server limits from mcp.json", () => {
  it("keeps the limits of enabled servers only", () => {
    const config = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          memory: { command: "node", limits: { concurrency: 1 } },
          search: { url: "http://127.0.0.1:1/mcp", limits: { workerConcurrency: 4, rateLimit: { calls: 10, periodMs: 1000 } } },
          off: { command: "node", enabled: false, limits: { concurrency: 3 } },
          free: { command: "node" },
        },
      }),
    );
    const limits = serverLimitsFromMcpConfig(config);
    expect(Object.getPrototypeOf(limits)).toBeNull();
    expect({ ...limits }).toEqual({
      memory: { concurrency: 1 },
      search: { workerConcurrency: 4, rateLimit: { calls: 10, periodMs: 1000 } },
    });
    expect(serverQueueName("memory")).toBe("toolwright-server-memory");
  });

  it("points at a bad limit and warns about an unknown one", () => {
    const bad = () =>
      parseMcpConfig(JSON.stringify({ mcpServers: { memory: { command: "node", limits: { rateLimit: { calls: 0, periodMs: 1000 } } } } }));
    expect(bad).toThrow(McpConfigError);
    expect(bad).toThrow(/\/mcpServers\/memory\/limits\/rateLimit\/calls/);
    const warned = parseMcpConfig(JSON.stringify({ mcpServers: { memory: { command: "node", limits: { concurrency: 1, burst: 3 } } } }));
    expect(warned.warnings?.join("\n")).toContain("/mcpServers/memory/limits/burst: unknown field ignored");
  });
});
