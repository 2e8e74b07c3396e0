/**
 * Model-facing rendering of failures and results.
 */

import { renderFailure, renderResult, type ToolResult } from "@toolwright/runtime";
import {
  failureFromFault,
  failureFromInvalidInput,
  failureFromInvalidOutput,
  failureFromLocal,
  failureFromToolError,
} from "@toolwright/runtime/caller";
import { capText } from "@toolwright/runtime/providers";
import { describe, expect, it } from "vitest";

const at = { tool: "files.read_text_file", server: "fs" };

describe("renderFailure", () => {
  it("correct_call: what failed, issues, field guidance, example, rejected input, next step", () => {
    const f = failureFromInvalidInput(
      [
        { field: "head", constraint: "invalid_field_type", expected: "integer", actual: "ten" },
        { field: "mode", constraint: "invalid_enum_value", allowed: ["r", "w"], actual: "x" },
        { field: "path", constraint: "missing_field" },
      ],
      { head: "ten", mode: "x", password: "hunter2" },
      '{"path":"/tmp/a.txt","head":10}',
      at,
    );
    const text = renderFailure(f, {
      spec: { fieldDescriptions: { head: "Number of lines from the start", path: "Absolute path inside an allowed directory" } },
    });
    expect(text).toBe(
      [
        "Tool call failed: files.read_text_file on fs (invalid_call).",
        "Error: invalid arguments for files.read_text_file: head: invalid_field_type; mode: invalid_enum_value; path: missing_field",
        "Input issues:",
        '- head is invalid (invalid field type); expected integer; got "ten"',
        '- mode has a value that is not allowed; allowed: "r", "w"; got "x"',
        "- path is required but missing",
        "Field guidance:",
        "- head: Number of lines from the start",
        "- path: Absolute path inside an allowed directory",
        'Example input: {"path":"/tmp/a.txt","head":10}',
        'Rejected input: {"head":"ten","mode":"x","password":"[redacted]"}',
        "Next: Fix the arguments as described and call files.read_text_file again.",
      ].join("\n"),
    );
  });

  it("names the tool by its provider-safe name when the spec is given", () => {
    const f = failureFromToolError([{ type: "text", text: "nope" }], at);
    const text = renderFailure(f, { spec: { providerName: "files_read_text_file" } });
    expect(text).toMatch(/^Tool call failed: files_read_text_file on fs/);
    expect(text).toMatch(/Do not repeat this call to files_read_text_file;/);
  });

  it("each action says what to do next", () => {
    expect(renderFailure(failureFromToolError([{ type: "text", text: "Access denied" }], at))).toMatch(
      /Next: Do not repeat this call to files.read_text_file/,
    );
    expect(renderFailure(failureFromFault({ type: "http", status: 429, message: "slow down", retryAfterMs: 3000 }, at))).toMatch(
      /after 3 s/,
    );
    expect(renderFailure(failureFromLocal("max_tool_calls", "limit reached", at))).toMatch(/Next: Do not call more tools/);
    const unknown = failureFromLocal(
      "tool_unavailable",
      "no such tool",
      { tool: "files_read", server: "" },
      { suggestions: ["files_read_text_file"] },
    );
    const text = renderFailure(unknown);
    expect(text).toMatch(/^Tool call failed: files_read \(invalid_call, tool_unavailable\)\./);
    expect(text).toContain("Closest tools: files_read_text_file");
  });

  it("shows non-text content of a rejection and the content of a malformed result", () => {
    const rejected = failureFromToolError(
      [
        { type: "text", text: "chart failed" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      at,
    );
    expect(renderFailure(rejected)).toContain("Error: chart failed\nOther content:\n[image image/png, 3 bytes]");
    const malformed = failureFromInvalidOutput(
      [{ field: "count", constraint: "missing_field" }],
      [{ type: "text", text: '{"total":3}' }],
      at,
    );
    const text = renderFailure(malformed);
    expect(text).toContain("Result issues:\n- count is required but missing");
    expect(text).toContain('Result content:\n{"total":3}');
  });

  it("never shows secrets from rpc data or the message", () => {
    const f = failureFromFault(
      { type: "rpc", code: -32603, message: "upstream said token=abc123", data: { authorization: "Bearer zzz", hint: "retry" } },
      at,
    );
    const text = renderFailure(f);
    expect(text).not.toMatch(/abc123|zzz/);
    expect(text).toContain('Error data: {"authorization":"[redacted]","hint":"retry"}');
  });

  it("respects maxChars", () => {
    const f = failureFromToolError([{ type: "text", text: "x".repeat(5000) }], at);
    expect(renderFailure(f, { maxChars: 300 }).length).toBeLessThanOrEqual(300);
  });
});

describe("renderResult", () => {
  const png = Buffer.from("0123456789").toString("base64");

  it("text, JSON and media placeholders with MIME types", () => {
    const result: ToolResult<unknown> = {
      ok: true,
      value: null,
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: png, mimeType: "image/png" },
        { type: "audio", data: png, mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "mem://n", mimeType: "text/markdown", text: "# note" } },
        { type: "resource", resource: { uri: "mem://b", blob: png } },
      ],
      structured: { count: 2 },
    };
    expect(renderResult(result)).toBe(
      [
        "hello",
        "[image image/png, 10 bytes]",
        "[audio audio/wav, 10 bytes]",
        "[resource link file:///a.txt (text/plain): a]",
        "[resource mem://n (text/markdown)]",
        "# note",
        "[resource mem://b application/octet-stream, 10 bytes]",
        'JSON: {"count":2}',
      ].join("\n"),
    );
  });

  it("does not repeat structured content that the text already is", () => {
    const structured = { entities: [{ name: "a" }] };
    const result: ToolResult<unknown> = {
      ok: true,
      value: structured,
      content: [{ type: "text", text: JSON.stringify(structured, null, 2) }],
      structured,
    };
    expect(renderResult(result)).toBe(JSON.stringify(structured, null, 2));
  });

  it("caps long output keeping head and tail", () => {
    const text = `HEAD-${"m".repeat(10_000)}-TAIL`;
    const out = renderResult({ ok: true, value: text, content: [{ type: "text", text }], structured: undefined }, { maxChars: 200 });
    expect(out.length).toBeLessThanOrEqual(200);
    expect(out.startsWith("HEAD-")).toBe(true);
    expect(out.endsWith("-TAIL")).toBe(true);
    expect(out).toMatch(/characters omitted/);
    expect(capText("short", 200)).toBe("short");
  });

  it("failures render through renderFailure; empty results say so", () => {
    const failure = failureFromToolError([{ type: "text", text: "nope" }], at);
    expect(renderResult({ ok: false, failure })).toBe(renderFailure(failure));
    expect(renderResult({ ok: true, value: "", content: [], structured: undefined })).toBe("(no content)");
  });
});
