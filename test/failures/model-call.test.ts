/**
 * `toolRequestFromModelCall`: argument parsing, name mapping and validation before anything is sent.
 */

import {
  createInMemoryCaller,
  createRuntime,
  modelToolDefinitions,
  renderFailure,
  type ToolFailure,
  toolRequestFromModelCall,
} from "@toolwright/runtime";
import { closestToolNames, editDistance, validateFailure } from "@toolwright/runtime/caller";
import { describe, expect, it } from "vitest";
import { spec } from "./fixtures.js";

const read = spec("files", "read_text_file", { path: "string", head: "integer" }, { exampleJson: '{"path":"/tmp/notes.txt"}' });
const write = spec("files", "write_file", { path: "string", content: "string" });
const create = spec("memory", "create_entities", { entities: "string" });
const dotted = { ...spec("a.b", "x.y", { q: "string" }), providerName: "a_b_x_y_3f2a" };

function setup() {
  const files = createInMemoryCaller("fs", {
    read_text_file: (args) => ({ content: [{ type: "text", text: `read ${String(args.path)}` }] }),
  });
  const runtime = createRuntime();
  runtime.registerToolset({ toolset: "files", specs: [read, write], caller: files });
  runtime.registerToolset({ toolset: "memory", specs: [create], caller: createInMemoryCaller("mem", {}) });
  runtime.registerToolset({ toolset: "a.b", specs: [dotted], caller: createInMemoryCaller("ab", {}) });
  return { runtime, files };
}

function rejection(r: { rejection?: ToolFailure }): ToolFailure {
  expect(r.rejection).toBeDefined();
  expect(validateFailure(r.rejection)).toEqual([]);
  return r.rejection as ToolFailure;
}

describe("toolRequestFromModelCall", () => {
  it.each([
    ["JSON text", '{"path":"/a"}'],
    ["an object", { path: "/a" }],
  ])("accepts arguments as %s and maps the provider-safe name to the tool id", async (_label, args) => {
    const { runtime, files } = setup();
    const request = toolRequestFromModelCall({ id: "call_1", name: "files_read_text_file", arguments: args }, runtime);
    expect(request).toEqual({
      tool: "files.read_text_file",
      arguments: { path: "/a" },
      callId: "call_1",
      modelName: "files_read_text_file",
    });
    expect(await runtime.execute(request)).toMatchObject({ ok: true, value: "read /a" });
    expect(files.calls).toEqual([{ name: "read_text_file", arguments: { path: "/a" } }]);
  });

  it("maps ids, wire names and hashed provider names back", () => {
    const { runtime } = setup();
    expect(toolRequestFromModelCall({ name: "files.read_text_file", arguments: "{}" }, runtime).tool).toBe("files.read_text_file");
    expect(toolRequestFromModelCall({ name: "write_file", arguments: "{}" }, runtime).tool).toBe("files.write_file");
    expect(toolRequestFromModelCall({ name: "a_b_x_y_3f2a", arguments: { q: "1" } }, runtime).tool).toBe("a.b.x.y");
  });

  it.each([
    ["malformed JSON", '{"path": "/a"', /malformed JSON/],
    ["a JSON array", "[1,2]", /got an array/],
    ["a JSON number", "42", /got number/],
    ["a JSON string", '"path"', /got string/],
    ["an array object", [{ path: "/a" }], /got an array/],
  ])("%s → invalid_call / correct_call with the raw input and the example; nothing sent", async (_label, args, problem) => {
    const { runtime, files } = setup();
    const request = toolRequestFromModelCall({ id: "c", name: "files_read_text_file", arguments: args }, runtime);
    const f = rejection(request);
    expect(f).toMatchObject({
      kind: "invalid_call",
      tool: "files.read_text_file",
      server: "fs",
      recovery: { action: "correct_call", priorInput: args, exampleJson: '{"path":"/tmp/notes.txt"}' },
    });
    expect(f.message).toMatch(problem);
    expect(await runtime.execute(request)).toEqual({ ok: false, failure: f });
    expect(files.calls).toHaveLength(0);
  });

  it("missing or empty arguments mean {}, which the validator then judges", () => {
    const { runtime } = setup();
    for (const args of [undefined, "", "  ", null]) {
      const f = rejection(toolRequestFromModelCall({ name: "files_read_text_file", arguments: args }, runtime));
      expect(f.recovery.issues).toEqual([{ field: "path", constraint: "missing_field" }]);
      expect(f.recovery.priorInput).toEqual({});
    }
  });

  it("validator failure: exact issues, rejected input, example; rendered for the model", async () => {
    const { runtime, files } = setup();
    const request = toolRequestFromModelCall(
      { name: "files_read_text_file", arguments: '{"path":7,"head":"ten","apiKey":"sk-1"}' },
      runtime,
    );
    const f = rejection(request);
    expect(f.recovery).toEqual({
      action: "correct_call",
      issues: [
        { field: "path", constraint: "invalid_field_type", expected: "string", actual: 7 },
        { field: "head", constraint: "invalid_field_type", expected: "integer", actual: "ten" },
        { field: "apiKey", constraint: "unknown_field", allowed: ["path", "head"] },
      ],
      priorInput: { path: 7, head: "ten", apiKey: "[redacted]" },
      exampleJson: '{"path":"/tmp/notes.txt"}',
    });
    const text = renderFailure(f);
    expect(text).toContain("- path is invalid (invalid field type); expected string; got 7");
    expect(text).not.toContain("sk-1");
    await runtime.execute(request);
    expect(files.calls).toHaveLength(0);
  });

  it("an unknown (hallucinated) name → tool_unavailable with the closest names, never an exception", async () => {
    const { runtime } = setup();
    const request = toolRequestFromModelCall({ id: "c9", name: "files_read_file", arguments: "{not json" }, runtime);
    const f = rejection(request);
    expect(f).toMatchObject({ kind: "invalid_call", reason: "tool_unavailable", recovery: { action: "replan" }, tool: "files_read_file" });
    expect(f.suggestions?.[0]).toBe("files_read_text_file");
    expect(f.suggestions).toHaveLength(3);
    expect(await runtime.execute(request)).toEqual({ ok: false, failure: f });
    const odd = toolRequestFromModelCall({ name: 42 as unknown as string }, runtime);
    expect(rejection(odd).reason).toBe("tool_unavailable");
    const hostile = toolRequestFromModelCall({ name: { toString: 1 } as unknown as string, arguments: { toJSON: 1 } }, runtime);
    expect(rejection(hostile).tool).toBe("(object name)");
  });
});

describe("provider shapes", () => {
  it("accepts OpenAI and Anthropic tool-call shapes", async () => {
    const { runtime, files } = setup();
    const openai = { id: "call_a", type: "function", function: { name: "files_read_text_file", arguments: '{"path":"/o"}' } };
    const anthropic = { id: "toolu_b", type: "tool_use", name: "files_read_text_file", input: { path: "/a" } };
    for (const call of [openai, anthropic]) {
      const request = toolRequestFromModelCall(call as never, runtime);
      expect(request.rejection).toBeUndefined();
      expect((await runtime.execute(request)).ok).toBe(true);
    }
    expect(files.calls.map((c) => c.arguments)).toEqual([{ path: "/o" }, { path: "/a" }]);
    expect(toolRequestFromModelCall(openai as never, runtime).callId).toBe("call_a");
  });

  it("offers the model provider-safe names that map back to the tools", () => {
    const { runtime } = setup();
    const defs = modelToolDefinitions(runtime.specs());
    expect(defs.map((d) => d.name)).toEqual(["files_read_text_file", "files_write_file", "memory_create_entities", "a_b_x_y_3f2a"]);
    for (const d of defs) {
      expect(d.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(runtime.lookup(d.name)).toBeDefined();
      expect(d.parameters).toEqual({ type: "object" });
    }
  });
});

describe("closest names", () => {
  it("edit distance", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
  });

  it("ranks by the nearest of provider name, id and wire name, ignoring case and separators", () => {
    expect(closestToolNames("Create-Entities", [read, write, create], 1)).toEqual(["memory_create_entities"]);
    expect(closestToolNames("writefile", [read, write, create], 2)[0]).toBe("files_write_file");
    expect(closestToolNames("x", [], 3)).toEqual([]);
  });
});
