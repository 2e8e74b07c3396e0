/**
 * Schema certification per provider: the rewrites, the errors for what a provider cannot express,
 * arguments mapped back before validation, and `gen --providers` failing with the toolset, tool
 * and field named.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { certifyProviders, isDesignError, main, parseProviders, resolveDesign } from "@toolwright/codegen";
import { design, fromExternalMCP, object, record, string, toolset } from "@toolwright/dsl";
import { geminiPropertyNames, providerSchema, restoreArguments, toGeminiSchema, toOpenAIStrictSchema } from "@toolwright/runtime/providers";
import { describe, expect, it } from "vitest";

const errors = (notes: readonly { severity: string; field: string; keyword: string }[]) =>
  notes.filter((n) => n.severity === "error").map((n) => `${n.field}|${n.keyword}`);

describe("OpenAI strict variant", () => {
  it("requires every property, makes optional ones nullable and closes every object", () => {
    const { schema, notes } = toOpenAIStrictSchema({
      type: "object",
      properties: {
        a: { type: "string", minLength: 2, default: "x" },
        b: { type: "object", properties: { c: { type: "integer" } } },
        d: { oneOf: [{ type: "string" }, { type: "number" }] },
        e: { $ref: "#/definitions/E" },
        f: { type: ["string", "null"] },
      },
      required: ["b"],
      definitions: { E: { type: "string", format: "uri" } },
    });
    expect(schema).toEqual({
      type: "object",
      properties: {
        a: { type: ["string", "null"] },
        b: { type: "object", properties: { c: { type: ["integer", "null"] } }, required: ["c"], additionalProperties: false },
        d: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
        e: { anyOf: [{ $ref: "#/$defs/E" }, { type: "null" }] },
        f: { type: ["string", "null"] },
      },
      required: ["a", "b", "d", "e", "f"],
      additionalProperties: false,
      $defs: { E: { type: "string" } },
    });
    expect(errors(notes)).toEqual([]);
    const warnings = notes.filter((n) => n.severity === "warning").map((n) => `${n.field}|${n.keyword}`);
    expect(warnings).toEqual(["a|minLength", "$defs.E|format"]);
  });

  it("reports what strict mode cannot express, by field", () => {
    const { notes } = toOpenAIStrictSchema({
      type: "object",
      properties: {
        labels: { type: "object", additionalProperties: { type: "string" } },
        anything: {},
        list: { type: "array" },
        keyed: { type: "object", patternProperties: { "^x": { type: "string" } } },
      },
    });
    expect(errors(notes)).toEqual(["labels|additionalProperties", "anything|type", "list[]|items", "keyed|patternProperties"]);
  });
});

describe("Gemini variant", () => {
  it("inlines $ref, renames properties Gemini rejects, and turns null unions into nullable", () => {
    const { schema, notes } = toGeminiSchema({
      type: "object",
      properties: { "file-path": { type: ["string", "null"] }, "2nd": { $ref: "#/$defs/N" }, ok: { const: "x" } },
      $defs: { N: { type: "object", properties: { v: { type: "number", exclusiveMinimum: 0 } } } },
      additionalProperties: false,
    });
    expect(schema).toEqual({
      type: "object",
      properties: {
        file_path: { type: "string", nullable: true },
        _2nd: { type: "object", properties: { v: { type: "number" } } },
        ok: { enum: ["x"] },
      },
    });
    expect(notes.filter((n) => n.severity === "warning").map((n) => n.keyword)).toEqual(["exclusiveMinimum"]);
    expect(errors(notes)).toEqual([]);
  });

  it("a recursive schema cannot be inlined: an error naming the field", () => {
    const { notes } = toGeminiSchema({
      type: "object",
      properties: { tree: { $ref: "#/$defs/Node" } },
      $defs: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } } },
    });
    expect(errors(notes)).toEqual(["tree.children[]|$ref"]);
  });

  it("a hostile schema stays bounded: exponential $ref inlining and deep nesting are errors, not hangs or stack overflows", () => {
    const $defs: { [key: string]: unknown } = { D0: { type: "string" } };
    for (let i = 1; i <= 24; i++)
      $defs[`D${i}`] = { type: "object", properties: { a: { $ref: `#/$defs/D${i - 1}` }, b: { $ref: `#/$defs/D${i - 1}` } } };
    const wide = toGeminiSchema({ type: "object", properties: { x: { $ref: "#/$defs/D24" } }, $defs });
    expect(wide.notes.filter((n) => n.severity === "error").map((n) => n.keyword)).toEqual(["size"]);
    let deep: { [key: string]: unknown } = { type: "string" };
    for (let i = 0; i < 100_000; i++) deep = { type: "object", properties: { n: deep } };
    expect(errors(toGeminiSchema(deep).notes)).toEqual([expect.stringMatching(/\|depth$/)]);
    expect(errors(toOpenAIStrictSchema(deep).notes)[0]).toMatch(/\|depth$/);
  });

  it("keeps sibling names unique when renaming", () => {
    expect([...geminiPropertyNames(["a-b", "a_b", "9"]).values()]).toEqual(["a_b_2", "a_b", "_9"]);
  });
});

describe("Anthropic variant", () => {
  it("passes JSON Schema through but rejects a union at the top level", () => {
    const union = { anyOf: [{ type: "object" }, { type: "object" }] };
    expect(errors(providerSchema(union, "anthropic").notes)).toEqual(["|anyOf", "|type"]);
    const plain = { type: "object", properties: { a: { type: "string", format: "uri" } } };
    expect(providerSchema(plain, "anthropic")).toEqual({ provider: "anthropic", schema: plain, notes: [] });
  });
});

describe("restoreArguments", () => {
  const original = {
    type: "object",
    properties: {
      path: { type: "string" },
      head: { type: "number" },
      note: { type: ["string", "null"] },
      "file-path": { type: "string" },
      items: { type: "array", items: { type: "object", properties: { "x-y": { type: "string" }, z: { type: "number" } } } },
    },
    required: ["path"],
  };

  it("drops the nulls strict mode made up for omitted optional fields, keeps a real null", () => {
    expect(restoreArguments({ path: "/a", head: null, note: null, items: [{ z: null, "x-y": "v" }] }, original, "openai")).toEqual({
      path: "/a",
      note: null,
      items: [{ "x-y": "v" }],
    });
  });

  it("renames Gemini's property names back, nested and in arrays", () => {
    expect(restoreArguments({ path: "/a", file_path: "/b", items: [{ x_y: "v" }] }, original, "gemini")).toEqual({
      path: "/a",
      "file-path": "/b",
      items: [{ "x-y": "v" }],
    });
  });

  it("keeps a model-supplied __proto__ key as data, never as a prototype", () => {
    const restored = restoreArguments(JSON.parse('{"path":"/a","__proto__":{"polluted":true}}'), original, "openai") as object;
    expect(Object.getPrototypeOf(restored)).toBe(Object.prototype);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(restored)).toEqual(["path", "__proto__"]);
  });
});

describe("gen --providers", () => {
  const file = "test/providers/design.ts";
  const labels = toolset("labels", fromExternalMCP("labels"), (t) => {
    t.tool("set_labels", { input: object({ id: string(), labels: record(string()) }) });
  });

  it("an open map fails certification for OpenAI with the toolset, tool and field named", () => {
    const ir = resolveDesign(design({ toolsets: [labels] }), { file });
    let error: unknown;
    try {
      certifyProviders(ir, ["openai"]);
    } catch (e) {
      error = e;
    }
    expect(isDesignError(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(
      /^test\/providers\/design\.ts toolset "labels" tool "set_labels": the input schema cannot be represented faithfully for a provider:\n {2}openai: field "labels" labels is an open map/,
    );
    // The same design is fine for Gemini (a warning: the map's value schema is dropped).
    expect(certifyProviders(ir, ["gemini"])).toEqual([
      'test/providers/design.ts toolset "labels" tool "set_labels" field "labels" (gemini): labels: map values\' schema removed (Gemini cannot describe open maps; Toolwright still validates them)',
    ]);
  });

  it("parses the provider list and refuses an unknown name", () => {
    expect(parseProviders("gemini,openai")).toEqual(["openai", "gemini"]);
    expect(parseProviders("all")).toEqual(["openai", "anthropic", "gemini"]);
    expect(() => parseProviders("openai,claude")).toThrow(/unknown provider "claude" \(known: openai, anthropic, gemini, all\)/);
  });

  it("the CLI exits 2 with the design error and writes nothing", async () => {
    // Inside the repo (like the CLI tests) so the design resolves @toolwright/dsl and loads as ESM.
    const repo = fileURLToPath(new URL("../..", import.meta.url));
    mkdirSync(join(repo, ".tmp"), { recursive: true });
    const dir = mkdtempSync(join(repo, ".tmp", "gen-providers-"));
    try {
      writeFileSync(
        join(dir, "design.ts"),
        `import { design, fromExternalMCP, object, record, string, toolset } from "@toolwright/dsl";\n` +
          `export default design({ toolsets: [toolset("labels", fromExternalMCP("labels"), (t) => { t.tool("set_labels", { input: object({ labels: record(string()) }) }); })] });\n`,
      );
      const err: string[] = [];
      const code = await main(["gen", "design.ts", "--out", "gen", "--providers", "openai"], {
        cwd: dir,
        stdout: () => {},
        stderr: (s) => err.push(s),
      });
      expect(code).toBe(2);
      expect(err.join("\n")).toMatch(/design error: design\.ts toolset "labels" tool "set_labels": .*\n {2}openai: field "labels"/);
      const unknown = await main(["gen", "design.ts", "--out", "gen", "--providers", "bard"], {
        cwd: dir,
        stdout: () => {},
        stderr: (s) => err.push(s),
      });
      expect(unknown).toBe(2);
      expect(err.at(-1)).toMatch(/unknown provider "bard"/);
      expect(existsSync(join(dir, "gen"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
