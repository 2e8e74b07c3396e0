/** Golden case: an agent that uses a subset of one toolset and all of another, with a run policy. */
import { agent, design, fromExternalMCP, object, string, toolset, use } from "@toolwright/dsl";

const docs = toolset("docs", fromExternalMCP("docs-server"), (t) => {
  t.tool("search", { input: object({ q: string() }), annotations: { readOnly: true } });
  t.tool("read", { input: object({ id: string() }), annotations: { readOnly: true } });
  t.tool("delete", { input: object({ id: string() }), annotations: { destructive: true }, requiresConfirmation: true });
});
const web = toolset("web", fromExternalMCP("web-server"), (t) => {
  t.tool("fetch", { input: object({ url: string({ format: "uri" }) }) });
});

const researcher = agent("research-bot", {
  description: "Reads docs and the web; never deletes.",
  use: [use(docs, { tools: ["search", "read"] }), web],
  runPolicy: { maxToolCalls: 20, maxConsecutiveFailedToolCalls: 3, timeBudget: "2m", toolTimeout: 15_000 },
});

export default design({ toolsets: [docs, web], agents: [researcher] });
