// An echo server built on the official SDK 1.32.2 (McpServer + StreamableHTTPServerTransport, one
// session per client), in JSON (`json`) or SSE (`sse`) response mode: `node sdk-echo-http.mjs json|sse`.
// Binds 127.0.0.1 on an ephemeral port and prints `LISTEN <port>`. Used only by the benchmark.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { serveSdkEcho } from "./sdk-http-host.mjs";

serveSdkEcho({
  McpServer,
  Transport: StreamableHTTPServerTransport,
  isInitializeRequest,
  json: process.argv[2] !== "sse",
  name: "sdk-echo-http",
});
