// The node:http host shared by the SDK echo servers (v1 and v2): one SDK session per client, the
// echo tool, 127.0.0.1 on an ephemeral port, `LISTEN <port>` on stdout. The SDK's classes are passed
// in, so both generations run the same host code. Used only by the benchmark.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { z } from "zod";
import { orderShape, orderText } from "./order-schema.mjs";

/** Serves an echo McpServer over Streamable HTTP with the given SDK's classes. */
export function serveSdkEcho({ McpServer, Transport, isInitializeRequest, json, name }) {
  const sessions = new Map();
  const newServer = () => {
    const server = new McpServer({ name, version: "1.0.0" });
    server.registerTool("echo", { description: "Returns its text argument.", inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: "text", text }],
    }));
    server.registerTool("order", { description: "Summarises an order.", inputSchema: orderShape }, async (order) => ({
      content: [{ type: "text", text: orderText(order) }],
    }));
    return server;
  };
  const readJson = async (req) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  };
  const http = createServer(async (req, res) => {
    try {
      const sid = req.headers["mcp-session-id"];
      const known = typeof sid === "string" ? sessions.get(sid) : undefined;
      if (req.method === "POST") {
        const body = await readJson(req);
        if (known) return await known.handleRequest(req, res, body);
        if (!isInitializeRequest(body)) {
          res.writeHead(typeof sid === "string" ? 404 : 400, { "content-type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "No valid session" } }));
          return;
        }
        const transport = new Transport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: json,
          onsessioninitialized: (id) => sessions.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await newServer().connect(transport);
        return await transport.handleRequest(req, res, body);
      }
      if (known) return await known.handleRequest(req, res);
      res.writeHead(typeof sid === "string" ? 404 : 400).end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });
  http.keepAliveTimeout = 30_000;
  http.listen(0, "127.0.0.1", () => process.stdout.write(`LISTEN ${http.address().port}\n`));
  process.stdin.on("end", () => process.exit(0));
}
