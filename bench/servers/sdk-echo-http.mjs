// An echo server built on the official SDK (McpServer + StreamableHTTPServerTransport, one session
// per client), in JSON (`json`) or SSE (`sse`) response mode: `node sdk-echo-http.mjs json|sse`.
// Binds 127.0.0.1 on an ephemeral port and prints `LISTEN <port>`. Used only by the benchmark.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const json = process.argv[2] !== "sse";
const sessions = new Map();

function newServer() {
  const server = new McpServer({ name: "sdk-echo-http", version: "1.0.0" });
  server.registerTool("echo", { description: "Returns its text argument.", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

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
      const transport = new StreamableHTTPServerTransport({
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
process.stdin.resume();
process.on("SIGTERM", () => process.exit(0));
