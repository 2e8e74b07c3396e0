import { describe, expect, it } from "vitest";
import { LazyAbortController } from "./lazy-abort.js";
import { type ContextParts, createToolContext } from "./tool-context.js";

/** Parts whose signal source counts its reads, and whose notifications are recorded. */
function parts(meta: { readonly [key: string]: unknown } = {}) {
  const controller = new LazyAbortController();
  let signalReads = 0;
  const sent: { method: string; params: unknown }[] = [];
  const asked: unknown[][] = [];
  const p: ContextParts = {
    abort: {
      get signal() {
        signalReads++;
        return controller.signal;
      },
    },
    requestId: 7,
    sessionId: "s1",
    protocolVersion: "2025-06-18",
    clientInfo: { name: "c", version: "1" },
    clientCapabilities: {},
    meta,
    logFloor: () => "info",
    notify: (method, params) => void sent.push({ method, params }),
    ask: async (...args) => {
      asked.push(args);
      return "answer";
    },
    closeSseStream: () => {},
  };
  return { p, controller, sent, asked, reads: () => signalReads };
}

describe("createToolContext", () => {
  it("reads the signal source only when the handler reads ctx.signal", () => {
    const { p, controller, reads } = parts();
    const ctx = createToolContext(p);
    expect([ctx.requestId, ctx.sessionId, ctx.protocolVersion]).toEqual([7, "s1", "2025-06-18"]);
    expect(reads()).toBe(0);
    controller.abort("gone");
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBe("gone");
    expect(reads()).toBe(2);
  });

  it("keeps its methods usable when destructured", async () => {
    const { p, sent, asked } = parts({ progressToken: "t" });
    const { progress, log, request, input } = createToolContext(p);
    await progress(1, 2);
    await progress(1); // not increasing: dropped
    await log("debug", "below the floor");
    await log("warning", "sent");
    expect(await request("sampling/createMessage", { x: 1 })).toBe("answer");
    await input("k", "elicitation/create", undefined);
    expect(sent).toEqual([
      { method: "notifications/progress", params: { progressToken: "t", progress: 1, total: 2 } },
      { method: "notifications/message", params: { level: "warning", data: "sent" } },
    ]);
    expect(asked.map((a) => a[0])).toEqual(["request-1", "k"]);
  });

  it("sends no progress without a progress token", async () => {
    const { p, sent } = parts();
    await createToolContext(p).progress(1);
    expect(sent).toEqual([]);
  });
});
