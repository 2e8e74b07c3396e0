import type { ToolSpec } from "@toolwright/runtime/codegen";
import { createDecoder } from "@toolwright/runtime/server";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { startMock } from "../serve/start-mock.js";
import { checkAnswer, createMockServer, describeIssue } from "./mock-server.js";
import type { MockDefinition, MockToolDefinition } from "./types.js";

const ajv = new Ajv2020({ strict: false, allErrors: true });
const output = {
  type: "object",
  properties: { total: { type: "integer", minimum: 0 }, items: { type: "array", items: { type: "string" } } },
  required: ["total", "items"],
  additionalProperties: false,
};
const input = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };

function spec(name: string, withOutput: boolean): ToolSpec {
  return {
    id: `shop.${name}`,
    toolset: "shop",
    name,
    providerName: `shop_${name}`,
    inputSchema: input,
    ...(withOutput ? { outputSchema: output, decodeResult: createDecoder(ajv.compile(output)) } : {}),
    decodePayload: createDecoder(ajv.compile(input)),
  };
}

const search: MockToolDefinition = { spec: spec("search", true), answer: { from: "schema", value: { total: 0, items: [] } } };
const note: MockToolDefinition = { spec: spec("note", false), answer: { from: "text", value: "noted" } };

describe("checkAnswer", () => {
  it("passes a structured answer that fits, with its JSON as text", () => {
    const r = checkAnswer("shop", search, { total: 2, items: ["a", "b"] }, "handler");
    expect(r).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: '{"total":2,"items":["a","b"]}' }], structuredContent: { total: 2, items: ["a", "b"] } },
    });
  });

  it("names toolset, tool and every offending field of a structured answer", () => {
    const r = checkAnswer("shop", search, { total: -1, items: [3], extra: true }, "handler");
    expect(r.ok).toBe(false);
    const message = r.ok ? "" : r.message;
    expect(message).toMatch(/^mock shop\.search: the handler's answer breaks the output schema: /);
    expect(message).toContain("total");
    expect(message).toContain("items[0]");
    expect(message).toContain("extra");
  });

  it("says a default answer is the generated one, and a text tool must answer a string", () => {
    const r = checkAnswer("shop", search, { total: "x", items: [] }, "default");
    expect(r.ok ? "" : r.message).toMatch(/the generated default answer breaks/);
    const t = checkAnswer("shop", note, { not: "text" }, "handler");
    expect(t.ok ? "" : t.message).toMatch(/mock shop\.note: the handler's answer must be a string .* got object/);
  });

  it("describes a root issue as the result", () => {
    expect(describeIssue({ field: "", constraint: "invalid_field_type", expected: "object" })).toBe(
      "(the result): invalid_field_type (expected object)",
    );
  });
});

describe("createMockServer", () => {
  const definition: MockDefinition = { toolset: "shop", server: "shop", tools: [search, note] };

  it("numbers calls per tool and overall, runs the interceptor, and forgets on reset", async () => {
    const seen: string[] = [];
    const mock = createMockServer(definition);
    await using running = await startMock(definition, {
      intercept: async (call, answer) => {
        seen.push(`${call.tool}#${call.call}`);
        return call.tool === "note" && call.call === 2 ? { content: [{ type: "text", text: "injected" }], isError: true } : answer();
      },
    });
    for (const name of ["search", "note", "note"]) await running.caller.callTool({ name, arguments: { q: name } });
    expect(seen).toEqual(["search#1", "note#1", "note#2"]);
    expect(running.calls.map((c) => [c.tool, c.call, c.seq])).toEqual([
      ["search", 1, 1],
      ["note", 1, 2],
      ["note", 2, 3],
    ]);
    expect(mock.calls).toEqual([]);
    mock.reset();
    expect(mock.failures).toEqual([]);
  });

  it("a tool whose default could not be made asks for a handler", async () => {
    const none: MockDefinition = {
      toolset: "shop",
      server: "shop",
      tools: [{ spec: spec("search", true), answer: { from: "none", value: null } }],
    };
    await using running = await startMock(none);
    const r = await running.caller.callTool({ name: "search", arguments: { q: "x" } });
    expect(r.ok && r.value.isError).toBe(true);
    expect(running.failures[0]?.message).toBe(
      'mock shop.search: no default answer could be made from the output schema; give the mock a handler for "search"',
    );
  });

  it("a handler's throw reaches the test as a JSON-RPC error with its message", async () => {
    const throwing: MockDefinition = {
      toolset: "shop",
      server: "shop",
      tools: [
        {
          ...note,
          handler: () => {
            throw new Error("boom in handler");
          },
        },
      ],
    };
    await using running = await startMock(throwing);
    const r = await running.caller.callTool({ name: "note", arguments: { q: "x" } });
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.failure.message).toContain("mock shop.note: the handler threw: boom in handler");
  });
});

describe("the mock's tools/list", () => {
  const locked = {
    name: "search",
    title: "Search",
    description: "Finds things",
    inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", ...input },
    outputSchema: { $schema: "http://json-schema.org/draft-07/schema#", ...output },
    annotations: { readOnlyHint: true, title: "Search things" },
    execution: { taskSupport: "forbidden" },
    _meta: { "example.com/tier": "gold" },
    icons: [{ src: "https://example.com/s.png", mimeType: "image/png" }],
  };

  it("lists a tool as the lock holds it, every field; a tool without a lock entry from its spec", async () => {
    const mock = await startMock(
      { toolset: "shop", server: "shop", tools: [{ ...search, listed: locked }, note] },
      { transport: "memory" },
    );
    try {
      const listed = await mock.caller.listTools?.();
      expect(listed?.ok).toBe(true);
      const raw = await mock.caller.request("tools/list", {});
      expect(raw).toMatchObject({ ok: true });
      const tools = raw.ok ? (raw.value as { tools: unknown[] }).tools : [];
      expect(tools[0]).toEqual(locked);
      expect(tools[1]).toEqual({ name: "note", inputSchema: input });
    } finally {
      await mock.close();
    }
  });

  it("an entry for another tool, or with no object inputSchema, is not listed: the spec is", async () => {
    for (const listed of [{ ...locked, name: "other" }, { ...locked, inputSchema: "x" }, "not an object"]) {
      const mock = await startMock({ toolset: "shop", server: "shop", tools: [{ ...search, listed }] }, { transport: "memory" });
      try {
        const raw = await mock.caller.request("tools/list", {});
        expect(raw.ok && (raw.value as { tools: unknown[] }).tools[0]).toEqual({
          name: "search",
          inputSchema: input,
          outputSchema: output,
        });
      } finally {
        await mock.close();
      }
    }
  });
});
