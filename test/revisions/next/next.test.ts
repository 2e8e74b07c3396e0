// The test-only revision's own rule, checked without a server: a tool result must carry a receipt.
import { describe, expect, it } from "vitest";
import { nextRevision } from "./index.js";

describe("revision next", () => {
  it("refuses a tool result without its required field, and keeps one with it", () => {
    const bare = nextRevision.decodeToolResult({ content: [{ type: "text", text: "x" }] });
    expect(bare.ok).toBe(false);
    expect(!bare.ok && bare.fault.message).toMatch(/no receipt/);
    const withReceipt = nextRevision.decodeToolResult({ content: [{ type: "text", text: "x" }], receipt: "r-1" });
    expect(withReceipt).toMatchObject({ ok: true, value: { content: [{ type: "text", text: "x" }] } });
  });

  it("its server side adds the field to every finished tool result", () => {
    const encoded = nextRevision.encodeToolResult?.({ content: [] }) as { receipt?: unknown } | undefined;
    expect(encoded?.receipt).toMatch(/^receipt-\d+$/);
  });
});
