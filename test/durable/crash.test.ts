/**
 * Durable runs on real DBOS and a throwaway PostgreSQL, with worker processes killed by SIGKILL:
 * during a call, between calls, and while a run waits for an approval. The run always finishes on
 * the surviving worker, every side effect reaches the server once, and no process is left.
 */
import { describe, expect, it } from "vitest";
import { useDurableCluster } from "./support/cluster.js";
import { readLedger, tally, type WorkerProcess, waitFor } from "./support/harness.js";

const { scenario } = useDurableCluster();

/** The worker that owns the server a ledger entry came from. */
const ownerOf = (workers: readonly WorkerProcess[], owner: string | undefined) => workers.find((w) => w.executorId === owner);

describe("durable runs survive SIGKILL", () => {
  it("crash during a non-idempotent call: the run finishes elsewhere, the call is not re-sent and surfaces as outcome_unknown", async () => {
    await scenario("during", {}, async ({ client, workers, ledger }) => {
      const steps = [
        { tool: "append", text: "a" },
        { tool: "append", text: "b", hold_ms: 60_000 },
        { tool: "read", text: "c" },
        { tool: "append", text: "d" },
      ];
      await client.enqueue("script-agent", { steps }, { runId: "during-1" });
      const held = await waitFor("call b to reach the server", 30_000, () =>
        readLedger(ledger).find((e) => e.kind === "call" && e.text === "b"),
      );
      const victim = ownerOf(workers, held.owner);
      expect(victim).toBeDefined();
      victim?.kill("SIGKILL");
      const result = await client.result<{ tool: string; ok: boolean; reason?: string; value?: unknown }[]>("during-1", 60_000);
      expect(result).toEqual([
        { tool: "append", ok: true, value: "append:a" },
        { tool: "append", ok: false, kind: "internal", reason: "outcome_unknown" },
        { tool: "read", ok: true, value: "read:c" },
        { tool: "append", ok: true, value: "append:d" },
      ]);
      const { perKey, duplicated } = tally(readLedger(ledger));
      expect(duplicated).toEqual([]);
      expect(perKey.get("during-1/1")).toEqual({ tool: "append", count: 1 });
      expect([...perKey.keys()].sort()).toEqual(["during-1/0", "during-1/1", "during-1/2", "during-1/3"]);
      const survivor = workers.find((w) => w !== victim);
      expect(survivor?.takeovers).toEqual([victim?.executorId]);
    });
  }, 120_000);

  it("crash between calls (in a planner step): recorded calls are replayed, the rest sent once, nothing unknown", async () => {
    await scenario("between", {}, async ({ client, workers, ledger }) => {
      const steps = [
        { tool: "append", text: "a" },
        { tool: "put", text: "b" },
        { pause: 3000 },
        { tool: "append", text: "c" },
        { tool: "read", text: "d" },
      ];
      await client.enqueue("script-agent", { steps }, { runId: "between-1" });
      const paused = await waitFor("the planner step to start", 30_000, () => readLedger(ledger).find((e) => e.kind === "paused"));
      const victim = ownerOf(workers, paused.owner);
      victim?.kill("SIGKILL");
      const result = await client.result<unknown[]>("between-1", 120_000);
      expect(result).toEqual([
        { tool: "append", ok: true, value: "append:a" },
        { tool: "put", ok: true, value: "put:b" },
        { tool: "append", ok: true, value: "append:c" },
        { tool: "read", ok: true, value: "read:d" },
      ]);
      const entries = readLedger(ledger);
      const { perKey, duplicated } = tally(entries);
      expect(duplicated).toEqual([]);
      expect([...perKey.values()].map((v) => v.count)).toEqual([1, 1, 1, 1]); // recorded calls were not sent again
      expect(entries.filter((e) => e.kind === "paused")).toHaveLength(2); // the unfinished planner step ran again
      expect(workers.find((w) => w !== victim)?.takeovers).toEqual([victim?.executorId]);
    });
  }, 180_000);

  it("crash while waiting for an approval: another worker resumes the wait, the approval arrives later, the tool runs once", async () => {
    await scenario("approval", {}, async ({ client, workers, ledger }) => {
      const steps = [
        { tool: "append", text: "a" },
        { tool: "wipe", text: "everything" },
        { tool: "append", text: "b" },
      ];
      await client.enqueue("script-agent", { steps }, { runId: "approval-1" });
      const request = await waitFor("the approval request", 30_000, () => client.pendingApproval("approval-1"));
      expect(request).toMatchObject({ runId: "approval-1", tool: "ledger.wipe", call: 1, arguments: { text: "everything" } });
      const asked = readLedger(ledger).find((e) => e.kind === "approval-requested");
      const victim = ownerOf(workers, readLedger(ledger).find((e) => e.kind === "call" && e.text === "a")?.owner);
      victim?.kill("SIGKILL");
      const survivor = workers.find((w) => w !== victim);
      await waitFor("the takeover", 30_000, () => (survivor?.takeovers.length ?? 0) > 0);
      // The survivor replays the run up to the wait and waits there: the approval is sent only then.
      await waitFor("the survivor to resume the run", 30_000, async () => {
        const [status, executor] = await Promise.all([client.status("approval-1"), client.executorOf("approval-1")]);
        return status === "PENDING" && executor === survivor?.executorId;
      });
      await client.decide(request, { approved: true, by: "test" });
      const result = await client.result<unknown[]>("approval-1", 60_000);
      expect(result).toEqual([
        { tool: "append", ok: true, value: "append:a" },
        { tool: "wipe", ok: true, value: "wipe:everything" },
        { tool: "append", ok: true, value: "append:b" },
      ]);
      const entries = readLedger(ledger);
      expect(asked).toBeDefined();
      expect(entries.filter((e) => e.kind === "approval-requested")).toHaveLength(1); // the request step is not repeated
      const { duplicated, perKey } = tally(entries);
      expect(duplicated).toEqual([]);
      expect(perKey.get("approval-1/1")).toEqual({ tool: "wipe", count: 1 });
      expect(entries.filter((e) => e.kind === "call" && e.tool === "wipe").map((e) => e.owner)).toEqual([survivor?.executorId]);
    });
  }, 180_000);

  it("crash while waiting for an answer (elicitation with run.ask): the question survives, the answer reaches the new worker", async () => {
    await scenario("ask", {}, async ({ client, workers, ledger }) => {
      const steps = [{ tool: "append", text: "a" }, { ask: "Which colour?" }, { tool: "append", text: "b" }];
      await client.enqueue("script-agent", { steps }, { runId: "ask-1" });
      const question = await waitFor("the question", 30_000, () => client.pendingQuestion("ask-1"));
      expect(question).toEqual({ topic: "question.1", prompt: { question: "Which colour?" } });
      const victim = ownerOf(workers, readLedger(ledger).find((e) => e.kind === "call" && e.text === "a")?.owner);
      victim?.kill("SIGKILL");
      const survivor = workers.find((w) => w !== victim);
      await waitFor("the survivor to resume the run", 30_000, async () => {
        const [status, executor] = await Promise.all([client.status("ask-1"), client.executorOf("ask-1")]);
        return status === "PENDING" && executor === survivor?.executorId;
      });
      await client.answer("ask-1", question.topic, "blue");
      expect(await client.result<unknown[]>("ask-1", 60_000)).toEqual([
        { tool: "append", ok: true, value: "append:a" },
        { tool: "ask", ok: true, value: "blue" },
        { tool: "append", ok: true, value: "append:b" },
      ]);
      expect(tally(readLedger(ledger)).duplicated).toEqual([]);
      expect(await client.pendingQuestion("ask-1")).toBeUndefined(); // cleared once answered
    });
  }, 180_000);
});
