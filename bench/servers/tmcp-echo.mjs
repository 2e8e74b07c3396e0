// The echo and order tools on tmcp (`tmcp` McpServer with the zod adapter), over stdio
// (@tmcp/transport-stdio) or, with `--http`, Streamable HTTP (@tmcp/transport-http behind node:http
// through @remix-run/node-fetch-server, the bridge tmcp's README uses) on 127.0.0.1, printing
// `LISTEN <port>`. Used only by the benchmark.
import { createServer } from "node:http";
import { ZodJsonSchemaAdapter } from "@tmcp/adapter-zod";
import { McpServer } from "tmcp";
import { z } from "zod";
import { orderSchema, orderText } from "./order-schema.mjs";

const server = new McpServer(
  { name: "tmcp-echo", version: "1.0.0", description: "Benchmark echo server" },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {} } },
);
server.tool({ name: "echo", description: "Returns its text argument.", schema: z.object({ text: z.string() }) }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));
server.tool({ name: "order", description: "Summarises an order.", schema: orderSchema }, async (order) => ({
  content: [{ type: "text", text: orderText(order) }],
}));

if (process.argv.includes("--http")) {
  const { HttpTransport } = await import("@tmcp/transport-http");
  const { createRequestListener } = await import("@remix-run/node-fetch-server");
  const transport = new HttpTransport(server, { path: "/mcp" });
  const http = createServer(
    createRequestListener(async (request) => (await transport.respond(request)) ?? new Response(null, { status: 404 })),
  );
  http.keepAliveTimeout = 30_000;
  http.listen(0, "127.0.0.1", () => process.stdout.write(`LISTEN ${http.address().port}\n`));
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
} else {
  const { StdioTransport } = await import("@tmcp/transport-stdio");
  new StdioTransport(server).listen();
  process.stdin.on("end", () => process.exit(0));
}
