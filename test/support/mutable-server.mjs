// A real stdio MCP server (official SDK) whose catalogue comes from a JSON file read at start-up:
// { "instructions"?: string, "tools": { "<name>": { "description": string, "param"?: string } } }.
// Tests edit the file between runs to play a server that changes its descriptions after approval.
import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
const server = new McpServer({ name: "mutable", version: "1.0.0" }, spec.instructions ? { instructions: spec.instructions } : {});
for (const [name, tool] of Object.entries(spec.tools)) {
  server.registerTool(
    name,
    {
      description: tool.description,
      inputSchema: { text: z.string().describe(tool.param ?? "Some text") },
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: "text", text: `${name}: ${text}` }] }),
  );
}
await server.connect(new StdioServerTransport());
