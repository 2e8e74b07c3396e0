/**
 * Faults inside a real tool server's handlers (`withToolFaults`), reached through the hosted
 * caller in both eras: the server's own paths answer each fault.
 */
import { createHostedCaller } from "@toolwright/runtime/caller";
import { createToolServer, type ServerTool } from "@toolwright/runtime/server";
import { afterEach, describe, expect, it } from "vitest";
import type { FaultPlan } from "./plan.js";
import { withToolFaults } from "./tools.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const ran: string[] = [];
const lookup: ServerTool = {
  name: "lookup",
  inputSchema: { type: "object" },
  outputSchema: { type: "object", properties: { hits: { type: "number" } }, required: ["hits"] },
  handler: () => {
    ran.push("lookup");
    return { content: [{ type: "text", text: "1 hit" }], structuredContent: { hits: 1 } };
  },
};

function serve(plan: FaultPlan, era: "legacy" | "2026-07-28", asked: string[] = []) {
  ran.length = 0;
  const { tools, faults } = withToolFaults([lookup], plan);
  const host = createToolServer({ name: "kb", version: "1", tools });
  const handlers = new Map([
    [
      "elicitation/create",
      async (params: unknown) => {
        asked.push(String((params as { message?: unknown }).message));
        return { action: "accept", content: { ok: true } };
      },
    ],
  ]);
  const caller = createHostedCaller({ name: "kb", host, era, handlers });
  closers.push(() => caller.close());
  return { caller, faults };
}

const call = (caller: ReturnType<typeof serve>["caller"], timeoutMs?: number) =>
  caller.callTool({ name: "lookup", arguments: {} }, timeoutMs === undefined ? {} : { timeoutMs });

describe.each(["legacy", "2026-07-28"] as const)("handler faults, %s era", (era) => {
  it("is-error and rpc-error come from the server's own answer paths", async () => {
    const { caller, faults } = serve(
      [
        { tool: "lookup", call: 1, fault: { kind: "is-error", text: "index offline" } },
        { tool: "lookup", call: 2, fault: { kind: "rpc-error", code: -32602, message: "bad query" } },
      ],
      era,
    );
    // A caller hands tool errors back as results; the typed path and the manager map them (faults-client.test.ts).
    const first = await call(caller);
    expect(first).toMatchObject({ ok: true, value: { isError: true, content: [{ type: "text", text: "index offline" }] } });
    expect(await call(caller)).toMatchObject({ ok: false, failure: { kind: "invalid_call", rpc: { code: -32602 } } });
    expect(await call(caller)).toMatchObject({ ok: true });
    expect(ran).toEqual(["lookup"]);
    expect(faults.injected.map((f) => f.kind)).toEqual(["is-error", "rpc-error"]);
  });

  it("hang waits on the call's signal: the caller's deadline holds (timeout, retry), and the server session lives on", async () => {
    const { caller } = serve([{ tool: "lookup", call: 1, fault: { kind: "hang" } }], era);
    expect(await call(caller, 50)).toMatchObject({ ok: false, failure: { kind: "timeout", recovery: { action: "retry" } } });
    expect(await call(caller)).toMatchObject({ ok: true });
  });

  it("input-required asks the client through the server's own input path; the handler's answer lets the call run", async () => {
    const asked: string[] = [];
    const { caller } = serve([{ tool: "lookup", call: 1, fault: { kind: "input-required", message: "Which index?" } }], era, asked);
    expect(await call(caller)).toMatchObject({ ok: true });
    expect(asked).toEqual(["Which index?"]);
    expect(ran).toEqual(["lookup"]);
  });
});

describe("refused plans", () => {
  it("HTTP faults, list-changed and a crash without onCrash are refused at set-up", () => {
    expect(() => withToolFaults([lookup], [{ tool: "lookup", fault: { kind: "session-404" } }])).toThrow(/startFaultProxy/);
    expect(() => withToolFaults([lookup], [{ tool: "lookup", fault: { kind: "list-changed", description: "x" } }])).toThrow(/withFaults/);
    expect(() => withToolFaults([lookup], [{ tool: "lookup", fault: { kind: "crash" } }])).toThrow(/crash/);
  });

  it("a crash runs onCrash (a stdio server's process.exit)", async () => {
    let crashed = 0;
    const { tools } = withToolFaults([lookup], [{ tool: "lookup", fault: { kind: "crash" } }], { onCrash: () => void crashed++ });
    const caller = createHostedCaller({ name: "kb", host: createToolServer({ name: "kb", version: "1", tools }) });
    closers.push(() => caller.close());
    expect(await call(caller, 50)).toMatchObject({ ok: false, failure: { kind: "timeout" } });
    expect(crashed).toBe(1);
  });
});
