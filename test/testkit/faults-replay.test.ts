/**
 * The fault plans on a cassette replay: a session recorded from the real tool server, then served
 * by `createReplayHost` with `withFaults` on top (no process, no network), through the generated
 * client and through the manager. A call the plan faults never reaches the replay.
 */
import { createHostedCaller } from "@toolwright/runtime/caller";
import { createRecordingCaller, createReplayHost, type FaultPlan, parseCassette, withFaults } from "@toolwright/testkit";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEverythingClient } from "../../examples/everything/src/gen/everything/index.js";
import { everythingServer, managerOn } from "./fault-world.js";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

let cassette: string;
beforeAll(async () => {
  const recording = createRecordingCaller({ hosted: { name: "everything", host: everythingServer({ calls: [] }) } });
  await recording.caller.listTools?.();
  const client = createEverythingClient(recording.caller);
  for (const message of ["a", "b", "c", "d"]) await client.echo({ message });
  await client.getStructuredContent({ location: "Chicago" });
  await client.getSum({ a: 2, b: 3 });
  cassette = recording.cassette();
  await recording.close();
});

function replayed(plan: FaultPlan) {
  // Matching mode: a call the fault layer answers itself is not in the replay's way.
  return withFaults(createReplayHost(parseCassette(cassette), { mode: "matching" }), plan);
}

describe("faults on a replay, through the generated client", () => {
  it("each fault ends in its documented failure; the calls let through get their recorded answers", async () => {
    const host = replayed([
      { tool: "echo", call: 1, fault: { kind: "rpc-error", code: -32603 } },
      { tool: "echo", call: 2, fault: { kind: "hang" } },
      { tool: "echo", call: 3, fault: { kind: "crash" } },
      { tool: "get-structured-content", fault: { kind: "bad-output" } },
      { tool: "get-sum", fault: { kind: "is-error", text: "replayed refusal" } },
    ]);
    const caller = createHostedCaller({ name: "everything", host });
    closers.push(() => caller.close());
    const client = createEverythingClient(caller);
    expect(await client.echo({ message: "a" })).toMatchObject({
      ok: false,
      failure: { kind: "internal", rpc: { code: -32603 }, recovery: { action: "retry" } },
    });
    expect(await client.echo({ message: "b" }, { timeoutMs: 50 })).toMatchObject({
      ok: false,
      failure: { kind: "timeout", recovery: { action: "retry" } },
    });
    expect(await client.echo({ message: "c" })).toMatchObject({
      ok: false,
      failure: { kind: "unavailable", recovery: { action: "retry" } },
    });
    expect(await client.echo({ message: "d" })).toMatchObject({ ok: true, value: "Echo: d" });
    expect(await client.getStructuredContent({ location: "Chicago" })).toMatchObject({ ok: false, failure: { kind: "malformed_result" } });
    expect(await client.getSum({ a: 2, b: 3 })).toMatchObject({
      ok: false,
      failure: { kind: "domain_rejection", recovery: { action: "replan" } },
    });
    expect(host.faults.injected.map((f) => f.kind)).toEqual(["rpc-error", "hang", "crash", "bad-output", "is-error"]);
  });
});

describe("faults on a replay, through the manager", () => {
  it("input_required and a changed description: invalid_call / replan, and the manager sees the drift", async () => {
    const host = replayed([
      { tool: "echo", call: 1, fault: { kind: "input-required" } },
      { tool: "echo", call: 2, fault: { kind: "list-changed", description: "Echoes, and keeps a copy." } },
    ]);
    const changed: string[] = [];
    const manager = managerOn(host, { listChangedDebounceMs: 0, onChange: (_s, diff) => changed.push(...diff.changed) });
    closers.push(() => manager.stop());
    await manager.start();
    expect(await manager.callTool("everything.echo", { message: "a" })).toMatchObject({
      ok: false,
      failure: { kind: "invalid_call", recovery: { action: "replan" } },
    });
    expect(await manager.callTool("everything.echo", { message: "b" })).toMatchObject({ ok: true });
    await expect.poll(() => changed).toEqual(["echo"]);
    expect(manager.tools().find((t) => t.name === "echo")?.descriptor.description).toBe("Echoes, and keeps a copy.");
  });
});
