// An echo server built on the split SDK v2 (`@modelcontextprotocol/server` McpServer and
// `@modelcontextprotocol/node`'s NodeStreamableHTTPServerTransport, one session per client, JSON
// answers), the v2 counterpart of `sdk-echo-http.mjs json`. Used only by the benchmark.
import { NodeStreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import { isInitializeRequest, McpServer } from "@modelcontextprotocol/server";
import { serveSdkEcho } from "./sdk-http-host.mjs";

serveSdkEcho({ McpServer, Transport: NodeStreamableHTTPServerTransport, isInitializeRequest, json: true, name: "sdk2-echo-http" });
