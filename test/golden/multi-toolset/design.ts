/** Golden case: two toolsets in one design, same tool name in both, provider names kept unique, an agent over both. */
import { agent, design, fromExternalMCP, integer, object, string, toolset, use } from "@toolwright/dsl";

const alpha = toolset("alpha", fromExternalMCP("alpha-server"), (t) => {
  t.tool("status", { title: "Alpha status", input: object({}), output: object({ up: integer() }), tags: ["ops"] });
  t.tool("beta_status", { input: object({ verbose: string().optional() }) });
});
const alphaBeta = toolset("alpha_beta", fromExternalMCP("beta-server"), (t) => {
  t.tool("status", { input: object({}) });
});

// Both toolsets have a "status" tool: the agent module imports two statusSpec symbols.
const ops = agent("ops", { use: [use(alpha, { tools: ["status"] }), alphaBeta] });

export default design({ toolsets: [alpha, alphaBeta], agents: [ops] });
