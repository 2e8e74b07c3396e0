// A hand-written MCP echo server over Streamable HTTP (JSON responses) on node:http, bound to
// 127.0.0.1 on an ephemeral port. Prints `LISTEN <port>` when ready. Used only by the benchmark.
import { createServer } from "node:http";
import { orderText } from "./order-text.mjs";

const ORDER_INPUT = {
  type: "object",
  properties: { customer: { type: "object" }, items: { type: "array" }, shipping: { type: "object" } },
  required: ["customer", "items", "shipping"],
};
const TOOLS = [
  {
    name: "echo",
    description: "Returns its text argument.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  // The non-trivial payload's tool; the floor does not validate it (see order-schema.mjs).
  { name: "order", description: "Summarises an order.", inputSchema: ORDER_INPUT },
];
const SESSION = "raw-session-1";

function resultFor(message) {
  switch (message.method) {
    case "initialize":
      return {
        result: {
          protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "raw-echo-http", version: "1.0.0" },
        },
      };
    case "tools/list":
      return { result: { tools: TOOLS } };
    case "tools/call":
      if (message.params?.name === "order") return { result: { content: [{ type: "text", text: orderText(message.params.arguments) }] } };
      if (message.params?.name !== "echo") return { error: { code: -32602, message: `Unknown tool: ${message.params?.name}` } };
      return { result: { content: [{ type: "text", text: String(message.params.arguments?.text ?? "") }] } };
    case "ping":
      return { result: {} };
    default:
      return { error: { code: -32601, message: `Method not found: ${message.method}` } };
  }
}

const server = createServer((req, res) => {
  if (req.method === "DELETE") {
    res.writeHead(200).end();
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST, DELETE" }).end();
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
      return;
    }
    if (message.id === undefined || message.id === null) {
      res.writeHead(202, { "mcp-session-id": SESSION }).end();
      return;
    }
    const body = JSON.stringify({ jsonrpc: "2.0", id: message.id, ...resultFor(message) });
    res.writeHead(200, { "content-type": "application/json", "mcp-session-id": SESSION });
    res.end(body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`LISTEN ${server.address().port}\n`));
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
process.on("SIGTERM", () => process.exit(0));
