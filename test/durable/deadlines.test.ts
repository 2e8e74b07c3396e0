/**
 * A durable run keeps its own deadlines on real DBOS and PostgreSQL when its caller ignores
 * `timeoutMs` and its signal (fault injected with TW_DEAF: the worker's ledger caller drops both):
 * the tool timeout and the time budget end the call with runtime.execute's failure, and the late
 * answer, when the server finally sends it, writes nothing into the finished run.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { useDurableCluster } from "./support/cluster.js";
import { readLedger, waitFor } from "./support/harness.js";

const { scenario } = useDurableCluster();

/** The run's recorded steps (DBOS's own table), to see that nothing is added after it finished. */
async function steps(databaseUrl: string, runId: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT workflow_uuid, function_id, function_name, output, error FROM dbos.operation_outputs WHERE workflow_uuid LIKE $1 ORDER BY workflow_uuid, function_id",
      [`${runId}%`],
    );
    return JSON.stringify(rows);
  } finally {
    await client.end();
  }
}

describe("durable deadlines with a caller that ignores timeoutMs", () => {
  it("the tool timeout ends a call the caller would hold: timeout/tool_timeout, the run goes on, the late answer is not recorded", async () => {
    const env = { TW_DEAF: "1", TW_TOOL_TIMEOUT_MS: "1000" };
    await scenario("tooltimeout", { workers: 1, env }, async ({ client, ledger, databaseUrl }) => {
      // The server holds the answer 20 times the tool timeout; the caller would wait for it.
      const input = {
        steps: [
          { tool: "append", text: "a", hold_ms: 20_000 },
          { tool: "read", text: "b" },
        ],
      };
      await client.enqueue("script-agent", input, { runId: "tt-1" });
      const result = await client.result("tt-1", 120_000);
      expect(result).toEqual([
        { tool: "append", ok: false, kind: "timeout", reason: "tool_timeout" },
        { tool: "read", ok: true, value: "read:b" },
      ]);
      const recorded = await steps(databaseUrl, "tt-1");
      // The held call reached the server and its answer was not in the run when the run finished.
      expect(readLedger(ledger).filter((e) => e.kind === "call" && e.key === "tt-1/0")).toHaveLength(1);
      expect(recorded).not.toContain("append:a");
      await waitFor("the server to send its late answer", 60_000, () =>
        readLedger(ledger).find((e) => e.kind === "answered" && e.key === "tt-1/0"),
      );
      await new Promise((resolve) => setTimeout(resolve, 500)); // let the answer reach the worker
      expect(await steps(databaseUrl, "tt-1")).toBe(recorded);
      expect(await client.status("tt-1")).toBe("SUCCESS");
      expect(await client.result("tt-1", 1000)).toEqual(result);
    });
  }, 180_000);

  it("the time budget ends a held call on the server's queue: timeout/time_budget, and no later call is sent", async () => {
    const env = { TW_DEAF: "1", TW_TIME_BUDGET_MS: "2000", TW_LIMITS: JSON.stringify({ ledger: { concurrency: 1 } }) };
    await scenario("budget", { workers: 2, env }, async ({ client, ledger }) => {
      const input = {
        steps: [
          { tool: "put", text: "a", hold_ms: 600_000 },
          { tool: "read", text: "b" },
        ],
      };
      await client.enqueue("script-agent", input, { runId: "tb-1" });
      expect(await client.result("tb-1", 120_000)).toEqual([
        { tool: "put", ok: false, kind: "timeout", reason: "time_budget" },
        { tool: "read", ok: false, kind: "timeout", reason: "time_budget" },
      ]);
      expect(await client.status("tb-1")).toBe("SUCCESS");
      const calls = readLedger(ledger).filter((e) => e.kind === "call");
      expect(calls.map((e) => e.key)).toEqual(["tb-1/0"]); // the held put was sent once, not retried; the read never
    });
  }, 180_000);
});
