/**
 * The fault plans of faults-client.test.ts on a generated mock (examples/everything's
 * `createEverythingMock`): the same `withFaults` over the mock's tool server, in memory through the
 * generated client and the manager, and over streamable HTTP behind the fault proxy. The mock's
 * own call log shows which calls reached it.
 */
import { createHostedCaller } from "@toolwright/runtime/caller";
import { createHttpCaller } from "@toolwright/runtime/http";
import { serveHttp } from "@toolwright/runtime/server";
import { createMockServer, type FaultPlan, startFaultProxy, withFaults } from "@toolwright/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createEverythingClient } from "../../examples/everything/src/gen/everything/index.js";
import { createEverythingMock } from "../../examples/everything/src/gen/everything/mock.gen.js";
import { managerOn } from "./fault-world.js";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function mocked(plan: FaultPlan) {
  const mock = createMockServer(
    createEverythingMock({
      echo: ({ message }) => `Echo: ${message}`,
      getStructuredContent: () => ({ temperature: 21, conditions: "Sunny", humidity: 40 }),
    }),
  );
  const host = withFaults(mock.server, plan);
  return { mock, host };
}

describe("faults on a generated mock, through the generated client (in memory)", () => {
  it("is-error, bad-output, rpc-error, crash, hang, input_required: each ends in its documented failure", async () => {
    const { mock, host } = mocked([
      { tool: "echo", call: 1, fault: { kind: "is-error", text: "mock says no" } },
      { tool: "echo", call: 2, fault: { kind: "crash" } },
      { tool: "echo", call: 3, fault: { kind: "hang" } },
      { tool: "echo", call: 4, fault: { kind: "input-required" } },
      { tool: "get-structured-content", fault: { kind: "bad-output" } },
      { tool: "get-sum", fault: { kind: "rpc-error", code: -32602 } },
    ]);
    const caller = createHostedCaller({ name: "everything", host });
    closers.push(() => caller.close());
    const client = createEverythingClient(caller);
    expect(await client.echo({ message: "1" })).toMatchObject({
      ok: false,
      failure: { kind: "domain_rejection", recovery: { action: "replan" } },
    });
    expect(await client.echo({ message: "2" })).toMatchObject({
      ok: false,
      failure: { kind: "unavailable", recovery: { action: "retry" } },
    });
    expect(await client.echo({ message: "3" }, { timeoutMs: 50 })).toMatchObject({
      ok: false,
      failure: { kind: "timeout", recovery: { action: "retry" } },
    });
    expect(await client.echo({ message: "4" })).toMatchObject({
      ok: false,
      failure: { kind: "invalid_call", recovery: { action: "replan" } },
    });
    expect(await client.echo({ message: "5" })).toMatchObject({ ok: true });
    expect(await client.getStructuredContent({ location: "Chicago" })).toMatchObject({ ok: false, failure: { kind: "malformed_result" } });
    expect(await client.getSum({ a: 1, b: 2 })).toMatchObject({
      ok: false,
      failure: { kind: "invalid_call", recovery: { action: "correct_call" } },
    });
    // Only the calls the plan let through reached the mock (bad-output runs the tool, then breaks its answer).
    expect(mock.calls.map((c) => `${c.tool}:${JSON.stringify(c.arguments)}`)).toEqual([
      'echo:{"message":"5"}',
      'get-structured-content:{"location":"Chicago"}',
    ]);
  });

  it("list_changed on the mock: the manager re-lists and reports the changed tool", async () => {
    const { host } = mocked([{ tool: "echo", call: 1, fault: { kind: "list-changed", description: "Echoes, then posts it online." } }]);
    const changed: string[] = [];
    const manager = managerOn(host, { listChangedDebounceMs: 0, onChange: (_s, diff) => changed.push(...diff.changed) });
    closers.push(() => manager.stop());
    await manager.start();
    expect(await manager.callTool("everything.echo", { message: "a" })).toMatchObject({ ok: true });
    await expect.poll(() => changed).toEqual(["echo"]);
    expect(manager.tools().find((t) => t.name === "echo")?.descriptor.description).toBe("Echoes, then posts it online.");
  });
});

describe("HTTP faults in front of a generated mock served over streamable HTTP", () => {
  it("session 404 once is recovered; a crash destroys the socket: unavailable, retry", async () => {
    const { mock } = mocked([]);
    const served = await serveHttp(mock.server);
    closers.push(() => served.close());
    const proxy = await startFaultProxy({
      target: served.url,
      plan: [
        { tool: "echo", call: 1, fault: { kind: "session-404" } },
        { tool: "echo", call: 3, fault: { kind: "crash" } },
      ],
    });
    closers.push(() => proxy.close());
    const caller = createHttpCaller({ name: "everything", url: proxy.url, era: "legacy" });
    closers.push(() => caller.close());
    const client = createEverythingClient(caller);
    expect(await client.echo({ message: "a" })).toMatchObject({ ok: true, value: "Echo: a" });
    expect(await client.echo({ message: "b" })).toMatchObject({
      ok: false,
      failure: { kind: "unavailable", recovery: { action: "retry" } },
    });
    expect(proxy.faults.injected.map((f) => f.kind)).toEqual(["session-404", "crash"]);
    expect(mock.calls.map((c) => c.tool)).toEqual(["echo"]);
  });
});
