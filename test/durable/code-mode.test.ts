/**
 * Code mode is durable by construction (issue 27, item 5): on real DBOS and a throwaway PostgreSQL,
 * a program's host calls are checkpointed steps. Worker processes are killed with SIGKILL during a
 * call and while the program waits for an approval; the program re-runs on the surviving worker,
 * completed calls are answered from the journal, and the ledger server (the real side of the
 * story) saw each call once. A program that makes different calls on its re-run is stopped.
 */
import { describe, expect, it } from "vitest";
import { useDurableCluster } from "./support/cluster.js";
import type { CodeAgentResult } from "./support/code-agent.js";
import { readLedger, tally, type WorkerProcess, waitFor } from "./support/harness.js";

const { scenario } = useDurableCluster();
const env = { TW_CODE_AGENT: "1" };
const ownerOf = (workers: readonly WorkerProcess[], owner: string | undefined) => workers.find((w) => w.executorId === owner);

describe("code mode on DBOS survives SIGKILL", () => {
  it("crash during a call: the re-run answers completed calls from the journal and sends each call once", async () => {
    await scenario("code_crash", { env }, async ({ client, workers, ledger }) => {
      const program = `
        const out = [];
        out.push(await ledger.append({ text: "a" }));
        out.push(await ledger.put({ text: "b" }));
        try { out.push(await ledger.append({ text: "c", hold_ms: 60000 })); } catch (e) { out.push(e.reason); }
        out.push(await ledger.append({ text: "d" }));
        return out;`;
      await client.enqueue("code-agent", { program }, { runId: "code-crash-1" });
      const held = await waitFor("call c to reach the server", 60_000, () =>
        readLedger(ledger).find((e) => e.kind === "call" && e.text === "c"),
      );
      const victim = ownerOf(workers, held.owner);
      expect(victim).toBeDefined();
      victim?.kill("SIGKILL");
      const result = await client.result<CodeAgentResult>("code-crash-1", 90_000);
      // c was sent and its worker died before recording the answer: not sent again (append is not
      // idempotent), and the program saw it as a catchable ToolError with reason outcome_unknown.
      expect(result).toEqual({ ok: true, value: ["append:a", "put:b", "outcome_unknown", "append:d"], calls: 4 });
      const entries = readLedger(ledger);
      const { perKey, duplicated } = tally(entries);
      expect(duplicated).toEqual([]);
      for (const key of ["code-crash-1/0", "code-crash-1/1", "code-crash-1/2", "code-crash-1/3"])
        expect(perKey.get(key)?.count, key).toBe(1);
      const survivor = workers.find((w) => w !== victim);
      // a and b were sent by the victim only; the re-run on the survivor read them from the journal.
      const senders = (text: string) => entries.filter((e) => e.kind === "call" && e.text === text).map((e) => e.owner);
      expect(senders("a")).toEqual([victim?.executorId]);
      expect(senders("b")).toEqual([victim?.executorId]);
      expect(senders("d")).toEqual([survivor?.executorId]);
    });
  }, 240_000);

  it("crash while a call waits for its approval: the approval is asked once, the destructive call runs once after it", async () => {
    await scenario("code_approval", { env }, async ({ client, workers, ledger }) => {
      const program = `
        const a = await ledger.append({ text: "a" });
        const w = await ledger.wipe({ text: "everything" });
        const b = await ledger.append({ text: "b" });
        return [a, w, b];`;
      await client.enqueue("code-agent", { program }, { runId: "code-approval-1" });
      const request = await waitFor("the approval request", 60_000, () => client.pendingApproval("code-approval-1"));
      expect(request).toMatchObject({ tool: "ledger.wipe", call: 1, arguments: { text: "everything" } });
      const victim = ownerOf(workers, readLedger(ledger).find((e) => e.kind === "call" && e.text === "a")?.owner);
      victim?.kill("SIGKILL");
      const survivor = workers.find((w) => w !== victim);
      await waitFor("the takeover", 60_000, () => (survivor?.takeovers.length ?? 0) > 0);
      await waitFor("the survivor to resume the run", 60_000, async () => {
        const [status, executor] = await Promise.all([client.status("code-approval-1"), client.executorOf("code-approval-1")]);
        return status === "PENDING" && executor === survivor?.executorId;
      });
      await client.decide(request, { approved: true, by: "test" });
      const result = await client.result<CodeAgentResult>("code-approval-1", 90_000);
      expect(result).toEqual({ ok: true, value: ["append:a", "wipe:everything", "append:b"], calls: 3 });
      const entries = readLedger(ledger);
      expect(entries.filter((e) => e.kind === "approval-requested")).toHaveLength(1);
      const { perKey, duplicated } = tally(entries);
      expect(duplicated).toEqual([]);
      expect(perKey.get("code-approval-1/0")).toEqual({ tool: "append", count: 1 });
      expect(perKey.get("code-approval-1/1")).toEqual({ tool: "wipe", count: 1 });
      expect(entries.filter((e) => e.kind === "call" && e.tool === "wipe").map((e) => e.owner)).toEqual([survivor?.executorId]);
    });
  }, 240_000);

  it("a program that diverges from its journal on the re-run is stopped with a clear failure, nothing re-sent", async () => {
    await scenario("code_diverge", { env }, async ({ client, workers, ledger }) => {
      // The second call's argument depends on the clock: the re-run asks for a different call.
      const program = `
        await ledger.append({ text: "a" });
        await ledger.append({ text: "t" + Date.now(), hold_ms: 60000 });
        await ledger.append({ text: "z" });
        return "unreached";`;
      await client.enqueue("code-agent", { program }, { runId: "code-diverge-1" });
      const held = await waitFor("the clock call to reach the server", 60_000, () =>
        readLedger(ledger).find((e) => e.kind === "call" && e.text?.startsWith("t")),
      );
      ownerOf(workers, held.owner)?.kill("SIGKILL");
      const result = await client.result<CodeAgentResult>("code-diverge-1", 90_000);
      expect(result).toMatchObject({ ok: false, kind: "invalid_call", calls: 2 });
      expect(result.ok ? "" : result.message).toMatch(/diverged from its journal at call 1: the journal has ledger\.append/);
      const entries = readLedger(ledger);
      expect(entries.filter((e) => e.kind === "call").map((e) => e.text?.[0])).toEqual(["a", "t"]);
    });
  }, 240_000);
});
