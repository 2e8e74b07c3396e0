/**
 * Every fault of issue 29 through the generated client (examples/everything's `createEverythingClient`):
 * a real tool server behind `withFaults` in memory, and behind `startFaultProxy` over streamable
 * HTTP for the faults only HTTP has. Each ends in the documented `ToolFailure` (docs/reference/failures.md).
 */
import { createHostedCaller, type SessionCaller } from "@toolwright/runtime/caller";
import { createHttpCaller } from "@toolwright/runtime/http";
import { BROKEN_OUTPUT, type FaultPlan, startFaultProxy, withFaults } from "@toolwright/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createEverythingClient } from "../../examples/everything/src/gen/everything/index.js";
import { everythingServer, hostedCaller, httpServer, type ToolLog } from "./fault-world.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function inMemory(plan: FaultPlan, options: { onListChanged?: (kind: string) => void } = {}) {
  const log: ToolLog = { calls: [] };
  const host = withFaults(everythingServer(log), plan);
  const caller: SessionCaller = hostedCaller(host, options);
  closers.push(() => caller.close());
  return { log, host, caller, client: createEverythingClient(caller) };
}

describe("faults in memory, through the generated client", () => {
  it("latency: the call waits and succeeds; past the caller's deadline it is a timeout, retry", async () => {
    const { client, host } = inMemory([
      { tool: "echo", call: 1, fault: { kind: "latency", ms: 20 } },
      { tool: "echo", call: 2, fault: { kind: "latency", ms: 600_000 } },
    ]);
    expect(await client.echo({ message: "slow" })).toMatchObject({ ok: true });
    const late = await client.echo({ message: "late" }, { timeoutMs: 50 });
    expect(late).toMatchObject({ ok: false, failure: { kind: "timeout", recovery: { action: "retry" } } });
    expect(host.faults.injected).toEqual([
      { tool: "echo", call: 1, kind: "latency" },
      { tool: "echo", call: 2, kind: "latency" },
    ]);
  });

  it("is-error on call 2 only: domain_rejection, the text kept; calls 1 and 3 reach the tool", async () => {
    const { client, log } = inMemory([{ tool: "echo", call: 2, fault: { kind: "is-error", text: "quota exceeded" } }]);
    expect(await client.echo({ message: "a" })).toMatchObject({ ok: true });
    const r = await client.echo({ message: "b" });
    expect(r).toMatchObject({ ok: false, failure: { kind: "domain_rejection", source: "tool", recovery: { action: "replan" } } });
    expect(!r.ok && r.failure.message).toContain("quota exceeded");
    expect(await client.echo({ message: "c" })).toMatchObject({ ok: true });
    expect(log.calls).toEqual(["echo:a", "echo:c"]);
  });

  it("bad-output: the tool ran, its structuredContent breaks the output schema: malformed_result", async () => {
    const { client, log } = inMemory([{ tool: "get-structured-content", fault: { kind: "bad-output" } }]);
    const r = await client.getStructuredContent({ location: "Chicago" });
    expect(r).toMatchObject({ ok: false, failure: { kind: "malformed_result" } });
    expect(log.calls).toEqual(["get-structured-content"]);
    expect(BROKEN_OUTPUT).toEqual({ "toolwright-fault": "bad-output" });
  });

  it.each([
    [-32603, "internal", "retry"],
    [-32602, "invalid_call", "correct_call"],
    [-32000, "unavailable", "retry"],
    [4711, "domain_rejection", "replan"],
  ] as const)("rpc-error %i: %s, %s, the code kept", async (code, kind, action) => {
    const { client, log } = inMemory([{ tool: "get-sum", fault: { kind: "rpc-error", code, message: "injected" } }]);
    const r = await client.getSum({ a: 1, b: 2 });
    expect(r).toMatchObject({ ok: false, failure: { kind, rpc: { code }, recovery: { action } } });
    expect(log.calls).toEqual([]);
  });

  it("crash mid-call: the session closes, unavailable, retry; the next call reconnects", async () => {
    const { client, host, log } = inMemory([{ tool: "echo", call: 1, fault: { kind: "crash" } }]);
    const r = await client.echo({ message: "boom" });
    expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true, recovery: { action: "retry" } } });
    expect(await client.echo({ message: "again" })).toMatchObject({ ok: true });
    expect(log.calls).toEqual(["echo:again"]);
    expect(host.faults.calls("echo")).toBe(2);
  });

  it("hang: never answered; the caller's deadline holds: timeout, retry", async () => {
    const { client } = inMemory([{ tool: "echo", every: true, fault: { kind: "hang" } }]);
    const r = await client.echo({ message: "void" }, { timeoutMs: 50 });
    expect(r).toMatchObject({ ok: false, failure: { kind: "timeout", recovery: { action: "retry" } } });
    const aborted = new AbortController();
    const pending = client.echo({ message: "void" }, { signal: aborted.signal });
    aborted.abort();
    expect(await pending).toMatchObject({ ok: false, failure: { kind: "canceled" } });
  });

  it("input_required with no elicitation handler: invalid_call, replan", async () => {
    const { client, log } = inMemory([{ tool: "echo", call: 1, fault: { kind: "input-required", message: "Which account?" } }]);
    const r = await client.echo({ message: "x" });
    expect(r).toMatchObject({ ok: false, failure: { kind: "invalid_call", recovery: { action: "replan" } } });
    expect(!r.ok && r.failure.message).toContain("elicitation/create");
    expect(log.calls).toEqual([]);
  });

  it("input_required answered by the client's elicitation handler: the retry goes through and the tool runs once", async () => {
    const log: ToolLog = { calls: [] };
    const host = withFaults(everythingServer(log), [
      { tool: "echo", call: 1, fault: { kind: "input-required", message: "Which account?" } },
    ]);
    const asked: unknown[] = [];
    const handlers = new Map([
      [
        "elicitation/create",
        async (params: unknown) => {
          asked.push(params);
          return { action: "accept", content: { ok: true } };
        },
      ],
    ]);
    const caller = createHostedCaller({ name: "everything", host, handlers });
    closers.push(() => caller.close());
    expect(await createEverythingClient(caller).echo({ message: "x" })).toMatchObject({ ok: true });
    expect(asked).toMatchObject([{ message: "Which account?" }]);
    expect(log.calls).toEqual(["echo:x"]);
    expect(host.faults.calls("echo")).toBe(1);
  });

  it("list_changed with a changed description: the client is told and re-lists the new text", async () => {
    const changed: string[] = [];
    const { client, caller } = inMemory(
      [{ tool: "echo", call: 1, fault: { kind: "list-changed", description: "Echoes, and also emails it." } }],
      {
        onListChanged: (kind) => changed.push(kind),
      },
    );
    await caller.listTools?.();
    expect(await client.echo({ message: "x" })).toMatchObject({ ok: true });
    await expect.poll(() => changed).toEqual(["tools"]);
    const tools = await caller.listTools?.();
    expect(tools?.ok && tools.value.find((t) => t.name === "echo")?.description).toBe("Echoes, and also emails it.");
  });
});

describe("HTTP faults through the generated client, in front of a real streamable-HTTP server", () => {
  async function overHttp(plan: FaultPlan) {
    const log: ToolLog = { calls: [] };
    const server = await httpServer(everythingServer(log));
    closers.push(server.close);
    const proxy = await startFaultProxy({ target: server.url, plan });
    closers.push(proxy.close);
    const caller = createHttpCaller({ name: "everything", url: proxy.url, era: "legacy" });
    closers.push(() => caller.close());
    return { log, proxy, client: createEverythingClient(caller) };
  }

  it("crash: the socket is destroyed mid-call: unavailable, retry", async () => {
    const { client, proxy } = await overHttp([{ tool: "echo", call: 1, fault: { kind: "crash" } }]);
    const r = await client.echo({ message: "x" });
    expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", recovery: { action: "retry" } } });
    expect(proxy.faults.injected).toEqual([{ tool: "echo", call: 1, kind: "crash" }]);
    expect(await client.echo({ message: "y" })).toMatchObject({ ok: true });
  });

  it("hang over HTTP: the deadline holds: timeout, retry", async () => {
    const { client } = await overHttp([{ tool: "echo", fault: { kind: "hang" } }]);
    expect(await client.echo({ message: "x" }, { timeoutMs: 50 })).toMatchObject({
      ok: false,
      failure: { kind: "timeout", recovery: { action: "retry" } },
    });
  });

  // The front answers 404 with the body serveHttp itself sends (-32001 "Session not found"); the
  // status decides a 404 (unavailable, replan), the body's code is kept as `rpc`.
  it("session 404 once: re-initialized and retried; 404 on every call: a failure with httpStatus 404", async () => {
    const once = await overHttp([{ tool: "echo", call: 1, fault: { kind: "session-404" } }]);
    expect(await once.client.echo({ message: "x" })).toMatchObject({ ok: true });
    expect(once.log.calls).toEqual(["echo:x"]);
    const always = await overHttp([{ tool: "echo", every: true, fault: { kind: "session-404" } }]);
    const r = await always.client.echo({ message: "x" });
    expect(r).toMatchObject({
      ok: false,
      failure: { kind: "unavailable", httpStatus: 404, rpc: { code: -32001 }, recovery: { action: "replan" } },
    });
    expect(always.log.calls).toEqual([]);
    expect(always.proxy.faults.calls("echo")).toBe(2);
  });

  it("is-error and rpc-error answered by the front: domain_rejection / internal", async () => {
    const { client } = await overHttp([
      { tool: "echo", fault: { kind: "is-error", text: "nope" } },
      { tool: "get-sum", fault: { kind: "rpc-error", code: -32603 } },
    ]);
    expect(await client.echo({ message: "x" })).toMatchObject({
      ok: false,
      failure: { kind: "domain_rejection", recovery: { action: "replan" } },
    });
    expect(await client.getSum({ a: 1, b: 1 })).toMatchObject({ ok: false, failure: { kind: "internal", rpc: { code: -32603 } } });
  });
});
