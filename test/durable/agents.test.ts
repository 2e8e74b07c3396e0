/**
 * Two agents on one worker, each with its own caller (its own credentials) for the same server
 * name, on real DBOS and PostgreSQL: every call reaches the server through the caller of the agent
 * whose run made it, whether it runs in the run's workflow or as a child workflow on the server's
 * queue (possibly on the other worker), and after a worker is SIGKILLed and another takes over; a
 * worker that lacks the agent fails the call, naming agent and server, rather than use another caller.
 */
import { describe, expect, it } from "vitest";
import { useDurableCluster } from "./support/cluster.js";
import { type LedgerEntry, readLedger, tally, waitFor } from "./support/harness.js";

const { scenario } = useDurableCluster();

const AGENTS = ["agent-a", "agent-b"] as const;
/** Both workers define both agents in this order: a lookup by server name alone finds agent-a's caller first. */
const env = { TW_AGENTS: AGENTS.join(",") };
/** Per-server limits: each call becomes a child workflow on the `ledger` queue, dequeued by either worker. */
const queued = { ...env, TW_LIMITS: JSON.stringify({ ledger: { concurrency: 2 } }) };

/** Calls that reached a server other than their run's agent's: `<key> via <cred>, expected <cred>`. */
function crossed(entries: readonly LedgerEntry[], agentOf: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.kind !== "call" || !e.key) continue;
    const agent = agentOf.get(e.key.slice(0, e.key.lastIndexOf("/")));
    if (e.cred !== `cred:${agent}`) out.push(`${e.key} via ${e.cred}, expected cred:${agent}`);
  }
  return out;
}

describe("durable agents keep their own callers", () => {
  it.each([
    { path: "in the run's workflow", name: "direct", env },
    { path: "on the server's queue", name: "queued", env: queued },
  ])(
    "interleaved runs of two agents for one server name: every call goes through its agent's caller ($path)",
    async ({ name, env }) => {
      await scenario(name, { env }, async ({ client, ledger }) => {
        const agentOf = new Map<string, string>();
        const steps = [
          { tool: "append", text: "x" },
          { tool: "read", text: "y" },
          { tool: "put", text: "z" },
        ];
        for (let i = 0; i < 8; i++) {
          const agent = AGENTS[i % 2] as string;
          const runId = `${name}-${agent}-${i}`;
          agentOf.set(runId, agent);
          await client.enqueue(agent, { steps }, { runId });
        }
        for (const runId of agentOf.keys())
          expect(await client.result(runId, 90_000), runId).toEqual([
            { tool: "append", ok: true, value: "append:x" },
            { tool: "read", ok: true, value: "read:y" },
            { tool: "put", ok: true, value: "put:z" },
          ]);
        const entries = readLedger(ledger);
        const calls = entries.filter((e) => e.kind === "call");
        expect(calls).toHaveLength(8 * steps.length);
        for (const agent of AGENTS)
          expect(
            calls.filter((e) => e.cred === `cred:${agent}`),
            agent,
          ).toHaveLength(4 * steps.length);
        expect(crossed(entries, agentOf)).toEqual([]);
      });
    },
    180_000,
  );

  it("runs made for principals: every call goes through that principal's own caller, on the server's queue too", async () => {
    await scenario("principals", { env: { ...queued, TW_PRINCIPALS: "1" } }, async ({ client, ledger }) => {
      const steps = [
        { tool: "append", text: "x" },
        { tool: "read", text: "y" },
      ];
      const principals = ["user-1", "user-2", "user-3"];
      const credOf = new Map<string, string>();
      for (const [i, id] of principals.entries()) {
        const runId = `principal-${id}`;
        credOf.set(runId, `cred:agent-a:${id}`);
        await client.enqueue("agent-a", { steps }, { runId, principal: { id } });
        if (i === 0) credOf.set("principal-none", "cred:agent-a");
      }
      await client.enqueue("agent-a", { steps }, { runId: "principal-none" });
      for (const runId of credOf.keys())
        expect(
          (await client.result<{ ok: boolean }[]>(runId, 90_000))?.every((s) => s.ok),
          runId,
        ).toBe(true);
      const calls = readLedger(ledger).filter((e) => e.kind === "call" && e.key);
      expect(calls).toHaveLength(credOf.size * steps.length);
      for (const e of calls) expect(e.cred, e.key).toBe(credOf.get((e.key as string).slice(0, (e.key as string).lastIndexOf("/"))));
    });
  }, 180_000);

  it("a worker SIGKILLed mid-call: the takeover re-sends through the same agent's caller, never the other agent's", async () => {
    await scenario("agents-crash", { env: queued }, async ({ client, workers, ledger }) => {
      const agentOf = new Map([
        ["crash-b", "agent-b"],
        ["crash-a", "agent-a"],
      ]);
      // put is idempotent: the call in flight when its worker dies is sent again by the survivor.
      const steps = [
        { tool: "put", text: "p" },
        { tool: "put", text: "q", hold_ms: 30_000 },
        { tool: "read", text: "r" },
      ];
      await client.enqueue("agent-b", { steps }, { runId: "crash-b" });
      const held = await waitFor("agent-b's held call to reach its server", 30_000, () =>
        readLedger(ledger).find((e) => e.kind === "call" && e.key === "crash-b/1"),
      );
      expect(held.cred).toBe("cred:agent-b");
      const victim = workers.find((w) => w.executorId === held.owner);
      const survivor = workers.find((w) => w !== victim);
      if (!victim || !survivor) throw new Error(`the held call is on no known worker (${held.owner})`);
      victim.kill("SIGKILL");
      await client.enqueue("agent-a", { steps: [{ tool: "put", text: "s" }] }, { runId: "crash-a" });
      expect(await client.result("crash-b", 90_000)).toEqual([
        { tool: "put", ok: true, value: "put:p" },
        { tool: "put", ok: true, value: "put:q" },
        { tool: "read", ok: true, value: "read:r" },
      ]);
      expect(await client.result("crash-a", 60_000)).toEqual([{ tool: "put", ok: true, value: "put:s" }]);
      expect(survivor.takeovers).toEqual([victim.executorId]);
      const entries = readLedger(ledger);
      const resent = entries.filter((e) => e.kind === "call" && e.key === "crash-b/1");
      expect(resent.map((e) => e.owner)).toEqual([victim.executorId, survivor.executorId]); // sent again, by the survivor
      expect(crossed(entries, agentOf)).toEqual([]);
      expect(tally(entries).duplicated).toEqual([]);
    });
  }, 180_000);

  it("a takeover by a worker that lacks the agent: the recovered call fails naming agent and server, never sent through another agent's caller", async () => {
    await scenario("agents-missing", { workers: 1, env: queued }, async ({ client, workers, ledger, spawn }) => {
      const full = workers[0];
      if (!full) throw new Error("no first worker");
      await client.enqueue("agent-b", { steps: [{ tool: "put", text: "p", hold_ms: 30_000 }] }, { runId: "missing-b" });
      await waitFor("agent-b's call to reach its server", 30_000, () =>
        readLedger(ledger).find((e) => e.kind === "call" && e.key === "missing-b/0"),
      );
      // The only live worker defines agent-a alone: the idempotent put would be re-sent if any caller were taken.
      const partial = spawn("agents-missing-partial", { TW_AGENTS: "agent-a" });
      await partial.ready;
      full.kill("SIGKILL");
      await waitFor("the takeover", 30_000, () => partial.takeovers.length > 0);
      // The call's child workflow ends in ERROR with the refusal (DBOS rethrows it to whoever reads its result).
      await expect(client.result("missing-b/call/0.0", 60_000)).rejects.toThrow(
        /agent "agent-b" is not defined on this worker, so its caller for server "ledger" \(tool "ledger\.put"/,
      );
      const calls = readLedger(ledger).filter((e) => e.kind === "call");
      expect(calls.map((e) => `${e.key} ${e.cred}`)).toEqual(["missing-b/0 cred:agent-b"]); // sent once, by its own agent
    });
  }, 180_000);
});
