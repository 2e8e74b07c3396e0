// The README's example, compiled (typecheck.test.ts) and run, so the documentation stays true.
import { expect, it } from "vitest";
import { agent, design, externalServer, fromExternalMCP, fromMCP, mcpServer, named, s, toolset, use } from "./index.js";

interface TreeNode {
  label: string;
  children: TreeNode[];
}

it("the README example builds the design it describes", () => {
  const Tree = named<TreeNode>("TreeNode", (self) => s.object({ label: s.string(), children: s.array(self) }));
  const docs = toolset("docs", fromExternalMCP("docs-server"), (t) => {
    t.tool("search", {
      title: "Search",
      description: "Full-text search",
      input: s.object({ q: s.string({ minLength: 1 }), limit: s.integer({ minimum: 1, maximum: 50 }).optional() }),
      output: s.object({ hits: s.array(s.string()) }),
      annotations: { readOnly: true, openWorld: false },
      tags: ["docs"],
      examples: [{ q: "mcp" }],
      requiresConfirmation: false,
      meta: { owner: "docs-team" },
    });
    t.tool("outline", { input: s.object({ root: Tree }) });
  });
  const calc = mcpServer("calc", { version: "1.0.0", protocolVersion: "2025-11-25" }, (t) => {
    t.tool("add", { input: s.object({ a: s.number(), b: s.number() }), output: s.object({ sum: s.number() }) });
  });
  const everything = externalServer("everything", { command: "node", args: ["server.js", "stdio"], env: ["HOME"] });
  const d = design({
    toolsets: [docs, toolset(fromMCP(calc)), toolset(fromMCP(everything))],
    agents: [
      agent("researcher", {
        use: [use(docs, { tools: ["search"] })],
        runPolicy: { maxToolCalls: 20, timeBudget: "2m", toolTimeout: "30s" },
      }),
    ],
  });
  expect(d.toolsets.map((t) => t.name)).toEqual(["docs", "calc", "everything"]);
  expect(d.servers.map((x) => x.name)).toEqual(["calc", "everything"]);
  expect(d.agents[0]?.runPolicy).toEqual({ maxToolCalls: 20, timeBudget: 120_000, toolTimeout: 30_000 });
  expect(s.collectDefs(docs.tools[1]?.input as never)).toHaveProperty("TreeNode");
});
