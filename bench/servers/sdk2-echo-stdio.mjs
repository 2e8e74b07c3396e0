// An echo server built on the split SDK v2 (`@modelcontextprotocol/server` McpServer + its
// StdioServerTransport), the v2 counterpart of sdk-echo-stdio.mjs. Used only by the benchmark.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
import { orderShape, orderText } from "./order-schema.mjs";

const server = new McpServer({ name: "sdk2-echo", version: "1.0.0" });
server.registerTool("echo", { description: "Returns its text argument.", inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));
server.registerTool("order", { description: "Summarises an order.", inputSchema: orderShape }, async (order) => ({
  content: [{ type: "text", text: orderText(order) }],
}));
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
