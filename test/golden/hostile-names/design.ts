/**
 * Golden case: hostile names. Reserved words, dashes, dots, unicode, leading digits, `__proto__`,
 * `constructor`, properties called `constructor` and `toString`, and names too long for providers.
 * (A schema key `__proto__` is a design error; see resolve.test.ts.)
 */
import { design, fromExternalMCP, object, raw, string, toolset } from "@toolwright/dsl";

const weird = toolset("my.weird-tools", fromExternalMCP("weird"), (t) => {
  t.tool("delete", { description: "Reserved word */ with a comment terminator.", input: object({ id: string() }) });
  t.tool("class.new", { input: object({}) });
  t.tool("3d-render", { input: object({ scene: string() }) });
  t.tool("__proto__", {
    input: raw({
      type: "object",
      properties: { constructor: { type: "number" }, toString: { type: "string" } },
      required: ["constructor"],
    }),
  });
  t.tool("constructor", { input: object({}) });
  t.tool("café-crème", { input: object({}) });
  t.tool("検索", { description: "Search (unicode name).", input: object({ q: string() }) });
  t.tool("end*/of-comment", { description: "A name that would close a JSDoc comment.", input: object({}) });
  t.tool("find-my.weird-tools", {
    description: "Keeps findMyWeirdToolsSpec: the lookup is findMyWeirdToolsSpecByName.",
    input: object({}),
  });
  t.tool("tool", { description: "Named like the runtime's ToolResult.", input: object({}) });
  t.tool(`very_${"long_".repeat(14)}name`, { input: object({}) });
});

export default design({ toolsets: [weird] });
