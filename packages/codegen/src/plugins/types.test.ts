import type { DesignDecl } from "@toolwright/dsl";
import { describe, expect, it } from "vitest";
import { resolveDesign } from "../resolve/resolve.js";
import { indent, printToolsetTypes } from "./types.js";

const withDef = (name: string, def: object) => ({
  kind: "tool",
  name,
  input: { type: "object", $defs: def, properties: { v: { $ref: `#/$defs/${Object.keys(def)[0]}` } }, required: ["v"] },
});

function toolset(tools: unknown[]) {
  const d = {
    kind: "design",
    toolsets: [{ kind: "toolset", name: "w", provider: { kind: "external-mcp", server: "w", suite: "w" }, tools }],
    agents: [],
    servers: [],
  };
  return resolveDesign(d as unknown as DesignDecl, { file: "d.ts" }).toolsets[0]!;
}

describe("type names", () => {
  it("shares equal definitions, renames different ones, and never reuses names other modules export", async () => {
    const text = await printToolsetTypes(
      toolset([
        withDef("a", { Point: { type: "object", properties: { x: { type: "number" } } } }),
        withDef("b", { Point: { type: "object", properties: { x: { type: "number" } } } }),
        withDef("c", { Point: { type: "string" } }),
        withDef("d", { WClient: { type: "boolean" } }),
      ]),
    );
    const names = [...text.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]);
    expect(names).toEqual([
      "APayload",
      "AResult",
      "BPayload",
      "BResult",
      "CPayload",
      "CResult",
      "DPayload",
      "DResult",
      "Point",
      "CPayloadPoint",
      "DPayloadWClient",
    ]);
    expect(text).toMatch(/v: CPayloadPoint/);
    expect(text).toMatch(/v: Point/);
  });
});

describe("indent", () => {
  it("indents by brace depth, ignoring brackets in strings and grouping parentheses", () => {
    expect(indent('export interface X {\na: ({\nk: "}{"\n} | {\nj: 1\n})\n/**\n * doc\n */\nb: string[]\n}')).toBe(
      'export interface X {\n  a: ({\n    k: "}{"\n  } | {\n    j: 1\n  })\n  /**\n   * doc\n   */\n  b: string[]\n}',
    );
  });
});
