import { agent, design, fromExternalMCP, number, object, toolset } from "@toolwright/dsl";
import { describe, expect, it } from "vitest";
import { resolveDesign } from "./resolve.js";

const tools = toolset("calc", fromExternalMCP("calc-server"), (t) => {
  t.tool("add", { input: object({ n: number() }), output: object({ n: number() }) });
});

describe("generated symbols", () => {
  it("the resolver names every export once, with the file that declares it", () => {
    const ir = resolveDesign(design({ toolsets: [tools] }), { file: "d.ts" });
    const ts = ir.toolsets[0]!;
    expect(ts.symbols.specs).toEqual({ name: "calcSpecs", declare: "const", file: "calc/specs.gen.ts" });
    expect(ts.tools[0]!.symbols).toEqual({
      payload: { name: "AddPayload", declare: "type", file: "calc/types.gen.ts" },
      result: { name: "AddResult", declare: "type", file: "calc/types.gen.ts" },
      spec: { name: "addSpec", declare: "const", file: "calc/specs.gen.ts" },
      validatePayload: { name: "validateAddPayload", declare: "const", file: "calc/validators.gen.ts" },
      validateResult: { name: "validateAddResult", declare: "const", file: "calc/validators.gen.ts" },
    });
  });

  it("two agents whose modules would export one name are a design error, not broken output", () => {
    const agents = [agent("x1", { use: [tools] }), agent("x-1", { use: [tools] })];
    expect(() => resolveDesign(design({ toolsets: [tools], agents }), { file: "d.ts" })).toThrow(
      'd.ts agent "x-1": its generated name x1RunPolicy collides with the one of agent x1; rename one',
    );
  });
});
