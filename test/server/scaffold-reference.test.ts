// The reference scaffold (fixtures/calc-scaffold.gen.ts) works end to end over both transports'
// session layer: typed handlers, decoder issues, and an SDK-free HTTP round trip.
import { afterAll, describe, expect, it } from "vitest";
import { createHttpCaller } from "../../packages/runtime/src/http.js";
import { type CalcHandlers, serveCalc } from "./fixtures/calc-scaffold.gen.js";

const handlers: CalcHandlers = {
  async add({ a, b }) {
    return { structuredContent: { sum: a + b } };
  },
  async divide({ a, b }) {
    if (b === 0) return { content: [{ type: "text", text: "Cannot divide by zero" }], isError: true };
    return { content: [{ type: "text", text: String(a / b) }] };
  },
};

describe("reference scaffold", () => {
  const started = serveCalc(handlers, { transport: "http", port: 0 });
  afterAll(async () => {
    await (await started).close();
  });

  it("round-trips typed calls over HTTP through createHttpCaller", async () => {
    const handle = await started;
    const caller = createHttpCaller({ name: "calc", url: handle.url as string, era: "legacy" });
    try {
      const sum = await caller.callTool({ name: "add", arguments: { a: 1.5, b: 2 } });
      expect(sum.ok && sum.value.structuredContent).toEqual({ sum: 3.5 });
      const zero = await caller.callTool({ name: "divide", arguments: { a: 1, b: 0 } });
      expect(zero.ok && zero.value).toEqual({ content: [{ type: "text", text: "Cannot divide by zero" }], isError: true });
      const bad = await caller.callTool({ name: "divide", arguments: { a: 1 } });
      expect(bad.ok && bad.value._meta).toEqual({ "io.toolwright/issues": [{ field: "b", constraint: "missing_field" }] });
      const typed = await caller.callTool({ name: "add", arguments: { a: "1", b: 2 } });
      expect(typed.ok && typed.value._meta).toEqual({
        "io.toolwright/issues": [{ field: "a", constraint: "invalid_field_type", expected: "number", actual: "1" }],
      });
    } finally {
      await caller.close();
    }
  });
});
