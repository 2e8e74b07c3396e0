// An echo server built on the official SDK (McpServer + StdioServerTransport). Used only by the benchmark.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { orderShape, orderText } from "./order-schema.mjs";

const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
server.registerTool("echo", { description: "Returns its text argument.", inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));
server.registerTool("order", { description: "Summarises an order.", inputSchema: orderShape }, async (order) => ({
  content: [{ type: "text", text: orderText(order) }],
}));
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
