/**
 * Hostile tool schemas reaching the runtime from a server (`tools/list`): the runtime walks input
 * schemas to plan `Mcp-Param-*` headers (2026-07-28 era). Deep nesting, `$ref` cycles, huge enums
 * and network `$ref`s must give a plan or a clear reason, never a throw, and never a fetch.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { planToolHeaders } from "@toolwright/runtime/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A schema nested `depth` object levels deep, parsed from text as a server's answer would be. */
function nested(depth: number, leaf = '{"type":"string","x-mcp-header":"Deep"}'): unknown {
  return JSON.parse(`${'{"type":"object","properties":{"a":'.repeat(depth)}${leaf}${"}}".repeat(depth)}`);
}

let hits = 0;
const refServer = createServer((_req, res) => {
  hits++;
  res.end('{"type":"string","x-mcp-header":"Fetched"}');
});
let refUrl = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => refServer.listen(0, "127.0.0.1", resolve));
  refUrl = `http://127.0.0.1:${(refServer.address() as AddressInfo).port}/schema.json`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => refServer.close(() => resolve()));
});

describe("hostile input schemas in the runtime", () => {
  it("a schema nested 1,000 levels deep gives a plan or a reason, never a throw", () => {
    const plan = planToolHeaders(nested(1_000));
    expect(typeof plan.ok).toBe("boolean");
    if (!plan.ok) expect(plan.reason).toMatch(/deep|nest|level/i);
  });

  it("a schema nested 100,000 levels deep gives a clear reason, never a stack overflow", () => {
    const schema = nested(100_000);
    let plan: ReturnType<typeof planToolHeaders> | undefined;
    expect(() => {
      plan = planToolHeaders(schema);
    }).not.toThrow();
    expect(plan?.ok).toBe(false);
    if (plan && !plan.ok) expect(plan.reason).toMatch(/deep|nest|level/i);
  });

  it("$ref cycles are not followed", () => {
    const schema = {
      type: "object",
      $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" }, self: { $ref: "#" } } } },
      properties: { head: { $ref: "#/$defs/node" }, id: { type: "string", "x-mcp-header": "Id" } },
    };
    const plan = planToolHeaders(schema);
    expect(plan).toEqual({ ok: true, params: [{ path: ["id"], header: "Mcp-Param-Id" }] });
  });

  it("a 100,000-value enum is data, not schema: planned without walking it", () => {
    const values = Array.from({ length: 100_000 }, (_, i) => ({ "x-mcp-header": `v${i}` }));
    const plan = planToolHeaders({ type: "object", properties: { e: { type: "string", enum: values, "x-mcp-header": "E" } } });
    expect(plan).toEqual({ ok: true, params: [{ path: ["e"], header: "Mcp-Param-E" }] });
  });

  it("a network $ref is never fetched", async () => {
    const plan = planToolHeaders({ type: "object", properties: { r: { $ref: refUrl }, s: { $ref: `${refUrl}#/x` } } });
    expect(plan).toEqual({ ok: true, params: [] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hits).toBe(0);
  });
});
