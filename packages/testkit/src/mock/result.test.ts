import type { ToolSpec } from "@toolwright/runtime/codegen";
import { createDecoder } from "@toolwright/runtime/server";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { startMock } from "../serve/start-mock.js";
import { checkAnswer } from "./mock-server.js";
import { blockProblem, isMockResult, MOCK_RESULT, result } from "./result.js";
import type { MockDefinition, MockToolDefinition } from "./types.js";

const ajv = new Ajv2020({ strict: false, allErrors: true });
const output = { type: "object", properties: { total: { type: "integer" } }, required: ["total"], additionalProperties: false };
const input = { type: "object", properties: { q: { type: "string" } } };

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
const count: MockToolDefinition = { spec: spec("count", true), answer: { from: "schema", value: { total: 0 } } };
const note: MockToolDefinition = { spec: spec("note", false), answer: { from: "text", value: "noted" } };
const message = (r: ReturnType<typeof checkAnswer>) => (r.ok ? "" : r.message);

describe("result(): a handler's full result", () => {
  it("is branded, and a plain answer is not", () => {
    expect(isMockResult(result({ content: [] }))).toBe(true);
    expect(isMockResult({ content: [{ type: "text", text: "x" }] })).toBe(false);
    expect(result({ isError: true })[MOCK_RESULT]).toBe(true);
  });

  it("sends its own blocks, isError and _meta, with the structured answer checked", () => {
    const content = [
      { type: "text", text: "2 items" },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "resource_link", uri: "file:///a", name: "a" },
      { type: "resource", resource: { uri: "file:///b", text: "b" } },
    ] as const;
    const r = checkAnswer("shop", count, result({ content, structuredContent: { total: 2 }, _meta: { "x/y": 1 } }), "handler");
    expect(r).toEqual({ ok: true, result: { content, structuredContent: { total: 2 }, _meta: { "x/y": 1 } } });
    // Without blocks the text is the JSON of the structured answer, as for a plain answer.
    expect(checkAnswer("shop", count, result({ structuredContent: { total: 3 } }), "handler")).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: '{"total":3}' }], structuredContent: { total: 3 } },
    });
    // An error result needs no structured answer.
    const e = checkAnswer("shop", count, result({ content: [{ type: "text", text: "boom" }], isError: true }), "handler");
    expect(e).toEqual({ ok: true, result: { content: [{ type: "text", text: "boom" }], isError: true } });
  });

  it("names toolset, tool and field of a structured answer that breaks the schema, or is missing", () => {
    const bad = checkAnswer("shop", count, result({ content: [], structuredContent: { total: "x" } as never }), "handler");
    expect(message(bad)).toMatch(/^mock shop\.count: the handler's result: breaks the output schema: structuredContent\.total: /);
    const missing = checkAnswer("shop", count, result({ content: [{ type: "text", text: "2" }] }), "handler");
    expect(message(missing)).toBe("mock shop.count: the handler's result: needs structuredContent: the tool declares an output schema");
    const text = checkAnswer("shop", note, result({ structuredContent: { total: 1 } as never }), "handler");
    expect(message(text)).toMatch(/^mock shop\.note: the handler's result: has structuredContent, but the tool declares no output schema/);
  });

  it("names the block and field that break the protocol's block shapes", () => {
    const r = checkAnswer(
      "shop",
      note,
      result({ content: [{ type: "text", text: "ok" }, { type: "image", data: "x" } as never] }),
      "handler",
    );
    expect(message(r)).toBe("mock shop.note: the handler's result: content[1].mimeType must be a string");
    expect(blockProblem({ type: "video" }, 0)).toBe(
      'content[0].type must be one of "text", "image", "audio", "resource_link", "resource", got "video"',
    );
    expect(blockProblem({ type: "resource_link", uri: "u" }, 2)).toBe("content[2].name must be a string");
    expect(blockProblem({ type: "resource", resource: { uri: "u" } }, 0)).toMatch(
      /content\[0\]\.resource needs a string "text" or a string "blob"/,
    );
    expect(blockProblem("text", 3)).toBe("content[3] must be an object");
    const notArray = checkAnswer("shop", note, result({ content: "hi" as never }), "handler");
    expect(message(notArray)).toMatch(/content must be an array/);
    const meta = checkAnswer("shop", note, result({ content: [], _meta: [] as never }), "handler");
    expect(message(meta)).toMatch(/_meta must be an object/);
  });

  it("reaches the client as sent, and a broken one is an isError answer kept in failures", async () => {
    const definition: MockDefinition = {
      toolset: "shop",
      server: "shop",
      tools: [
        {
          ...count,
          handler: () => result({ content: [{ type: "text", text: "two" }], structuredContent: { total: 2 }, _meta: { k: "v" } }),
        },
        { ...note, handler: () => result({ content: [{ type: "audio", mimeType: "audio/wav" } as never] }) },
      ],
    };
    await using mock = await startMock(definition);
    const good = await mock.caller.callTool({ name: "count", arguments: {} });
    expect(good.ok && good.value).toEqual({ content: [{ type: "text", text: "two" }], structuredContent: { total: 2 }, _meta: { k: "v" } });
    const bad = await mock.caller.callTool({ name: "note", arguments: {} });
    expect(bad.ok && bad.value.isError).toBe(true);
    expect(mock.failures).toEqual([
      { tool: "note", call: 1, message: "mock shop.note: the handler's result: content[0].data must be a string" },
    ]);
  });
});

describe("a call's _meta", () => {
  it("is recorded on the call and told to the handler, {} when the client sent none", async () => {
    const told: unknown[] = [];
    const definition: MockDefinition = {
      toolset: "shop",
      server: "shop",
      tools: [
        {
          ...note,
          handler: (_payload: never, call) => {
            told.push(call._meta);
            return "ok";
          },
        },
      ],
    };
    for (const transport of ["memory", "http"] as const) {
      told.length = 0;
      await using mock = await startMock(definition, { transport });
      await mock.caller.callTool({ name: "note", arguments: { q: "a" }, meta: { "io.example/key": "k-1", progressToken: 7 } });
      await mock.caller.callTool({ name: "note", arguments: { q: "b" } });
      const [first, second] = mock.calls;
      expect(first?._meta).toMatchObject({ "io.example/key": "k-1", progressToken: 7 });
      expect(second?._meta["io.example/key"]).toBeUndefined();
      expect(told).toEqual([first?._meta, second?._meta]);
    }
  });
});
