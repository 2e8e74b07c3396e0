/**
 * Unit tests for the pieces under the HTTP caller: the SSE parser, the Base64 sentinel encoding
 * and `x-mcp-header` planning (SEP-2243), `${VAR}` expansion, Retry-After parsing, traceparent.
 */
import { describe, expect, it } from "vitest";
import { retryAfterMsFromHeader } from "../../packages/runtime/src/failure/failure-mapping.js";
import { newTraceparent } from "../../packages/runtime/src/protocol/mcp-client.js";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  paramHeaders,
  planToolHeaders,
  standardHeaders,
} from "../../packages/runtime/src/protocol/modern.js";
import { expandEnv, prepareHeaders } from "../../packages/runtime/src/transport/http-headers.js";
import { createSseParser, type SseEvent } from "../../packages/runtime/src/transport/sse-parser.js";

describe("SSE parser", () => {
  it("joins data lines, keeps ids and retry, ignores comments, across any chunking and line endings", () => {
    const text = ': keep-alive\r\nid: 7\r\nretry: 500\r\ndata: \r\n\r\nevent: message\nid: 8\ndata: {"a":\ndata: 1}\n\n:x\rdata: tail\r\r';
    for (let size = 1; size <= text.length; size++) {
      const events: SseEvent[] = [];
      const parser = createSseParser((e) => events.push(e));
      for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size));
      expect(events).toEqual([
        { event: "message", data: '{"a":\n1}', id: "8" },
        { event: "message", data: "tail", id: "8" },
      ]);
      expect(parser.retryMs).toBe(500);
      expect(parser.lastEventId).toBe("8");
    }
  });

  it("reports the endpoint event type of the legacy transport", () => {
    const events: SseEvent[] = [];
    createSseParser((e) => events.push(e)).push("event: endpoint\ndata: /messages?sessionId=1\n\n");
    expect(events).toEqual([{ event: "endpoint", data: "/messages?sessionId=1", id: undefined }]);
  });
});

describe("header value encoding (spec examples)", () => {
  it.each([
    ["us-west1", "us-west1"],
    ["Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="],
    [" padded ", "=?base64?IHBhZGRlZCA=?="],
    ["line1\nline2", "=?base64?bGluZTEKbGluZTI=?="],
    ["=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="],
    ["us west 1", "us west 1"],
    ["\tindented", "=?base64?CWluZGVudGVk?="],
    ["", ""],
  ])("%j → %j", (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
    expect(decodeHeaderValue(encoded)).toBe(value);
  });
});

describe("x-mcp-header planning", () => {
  const prop = (extra: object) => ({ type: "object", properties: { p: { type: "string", ...extra } } });
  it("accepts primitives reachable through properties, nested too", () => {
    const plan = planToolHeaders({
      type: "object",
      properties: {
        a: { type: "integer", "x-mcp-header": "A" },
        o: { type: "object", properties: { b: { type: "boolean", "x-mcp-header": "B" } } },
      },
    });
    expect(plan).toEqual({
      ok: true,
      params: [
        { path: ["a"], header: "Mcp-Param-A" },
        { path: ["o", "b"], header: "Mcp-Param-B" },
      ],
    });
    if (plan.ok) expect(paramHeaders(plan.params, { a: 7, o: { b: false } })).toEqual({ "mcp-param-a": "7", "mcp-param-b": "false" });
    if (plan.ok) expect(paramHeaders(plan.params, { a: null })).toEqual({});
  });

  it.each([
    ["empty", prop({ "x-mcp-header": "" })],
    ["space", prop({ "x-mcp-header": "Bad Name" })],
    ["colon", prop({ "x-mcp-header": "Bad:Name" })],
    ["non-ascii", prop({ "x-mcp-header": "Régión" })],
    ["control", prop({ "x-mcp-header": "A\nB" })],
    ["object type", { type: "object", properties: { p: { type: "object", "x-mcp-header": "P" } } }],
    ["number type", { type: "object", properties: { p: { type: "number", "x-mcp-header": "P" } } }],
    ["null type", { type: "object", properties: { p: { type: "null", "x-mcp-header": "P" } } }],
    ["under items", { type: "object", properties: { l: { type: "array", items: { type: "string", "x-mcp-header": "L" } } } }],
    ["under anyOf", { type: "object", anyOf: [{ properties: { p: { type: "string", "x-mcp-header": "P" } } }] }],
    [
      "duplicate (case)",
      { type: "object", properties: { a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } } },
    ],
  ])("rejects %s", (_name, schema) => {
    expect(planToolHeaders(schema).ok).toBe(false);
  });

  it("does not mistake a property named x-mcp-header, or enum data, for a declaration", () => {
    expect(
      planToolHeaders({ type: "object", properties: { "x-mcp-header": { type: "string" }, e: { enum: [{ "x-mcp-header": 1 }] } } }),
    ).toEqual({
      ok: true,
      params: [],
    });
  });

  it("mirrors method and name, encoding unsafe names", () => {
    expect(standardHeaders("tools/call", { name: "get_weather" })).toEqual({ "mcp-method": "tools/call", "mcp-name": "get_weather" });
    expect(standardHeaders("resources/read", { uri: "file:///a b/ü" })).toEqual({
      "mcp-method": "resources/read",
      "mcp-name": encodeHeaderValue("file:///a b/ü"),
    });
    expect(standardHeaders("tools/list", {})).toEqual({ "mcp-method": "tools/list" });
  });
});

describe("environment expansion", () => {
  it("expands ${VAR} and ${VAR:-default}, and names an unset variable", () => {
    expect(expandEnv("Bearer ${TOKEN}", { TOKEN: "abc" }, "header Authorization")).toBe("Bearer abc");
    expect(expandEnv("${A:-x}-${B:-y}", { A: "", B: "b" }, "h")).toBe("x-b");
    expect(() => expandEnv("${NOPE}", {}, "header X-Api-Key")).toThrow("header X-Api-Key: environment variable NOPE is not set");
  });

  it("lower-cases names and refuses line breaks and bad names", () => {
    expect(prepareHeaders({ "X-A": "1" }, {})).toEqual({ "x-a": "1" });
    expect(() => prepareHeaders({ "X-A": "${V}" }, { V: "a\r\nInjected: 1" })).toThrow(/line break/);
    expect(() => prepareHeaders({ "Bad Name": "1" }, {})).toThrow(/not a valid header name/);
  });
});

describe("small parsers", () => {
  it("parses Retry-After seconds and dates", () => {
    expect(retryAfterMsFromHeader("3")).toBe(3000);
    expect(retryAfterMsFromHeader(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMsFromHeader("soon")).toBeUndefined();
    expect(retryAfterMsFromHeader(undefined)).toBeUndefined();
  });

  it("generates distinct W3C traceparents", () => {
    const a = newTraceparent();
    expect(a).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(newTraceparent()).not.toBe(a);
  });
});
