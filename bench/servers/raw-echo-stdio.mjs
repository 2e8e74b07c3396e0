// A hand-written MCP echo server over stdio: newline-delimited JSON-RPC with no SDK, so the
// server costs as little as possible and the client's overhead shows. Used only by the benchmark.
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

let buffered = "";

function reply(id, result) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);
}

function fail(id, code, message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
}

function handle(message) {
  if (message.id === undefined || message.id === null) return; // notifications need no answer
  switch (message.method) {
    case "initialize":
      reply(message.id, {
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "raw-echo", version: "1.0.0" },
      });
      return;
    case "tools/list":
      reply(message.id, { tools: TOOLS });
      return;
    case "tools/call":
      if (message.params?.name === "order")
        return reply(message.id, { content: [{ type: "text", text: orderText(message.params.arguments) }] });
      if (message.params?.name !== "echo") return fail(message.id, -32602, `Unknown tool: ${message.params?.name}`);
      reply(message.id, { content: [{ type: "text", text: String(message.params.arguments?.text ?? "") }] });
      return;
    case "ping":
      reply(message.id, {});
      return;
    default:
      fail(message.id, -32601, `Method not found: ${message.method}`);
  }
}

process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let nl = buffered.indexOf("\n");
  while (nl !== -1) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line.trim() !== "") {
      try {
        handle(JSON.parse(line));
      } catch {
        // not JSON: ignore, like a lenient server
      }
    }
    nl = buffered.indexOf("\n");
  }
});
process.stdin.on("end", () => process.exit(0));
