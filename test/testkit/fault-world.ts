/**
 * The fault tests' target: a real tool server with the three tools of examples/everything (the
 * schemas its generated client was made from), and ways to reach it with faults in between: in
 * memory through the hosted caller, over streamable HTTP through `serveHttp`, and the manager
 * through either.
 */
import { createHostedCaller, type MessageHost } from "@toolwright/runtime/caller";
import { createMcpManager, type McpManager, type McpManagerOptions } from "@toolwright/runtime/manager";
import { createToolServer, type ServerTool, serveHttp, type ToolServer } from "@toolwright/runtime/server";
import { echoSpec, getStructuredContentSpec, getSumSpec } from "../../examples/everything/src/gen/everything/index.js";

/** Calls each tool received, for asserting that a fault stopped (or did not stop) the call. */
export interface ToolLog {
  readonly calls: string[];
}

/** The everything example's tools, served for real; every call is logged. */
export function everythingTools(log: ToolLog): ServerTool[] {
  return [
    {
      name: echoSpec.name,
      description: echoSpec.description ?? "",
      inputSchema: echoSpec.inputSchema,
      handler: (args) => {
        log.calls.push(`echo:${String(args.message)}`);
        return { content: [{ type: "text", text: `Echo: ${String(args.message)}` }] };
      },
    },
    {
      name: getSumSpec.name,
      description: getSumSpec.description ?? "",
      inputSchema: getSumSpec.inputSchema,
      handler: (args) => {
        log.calls.push("get-sum");
        return { content: [{ type: "text", text: `The sum of ${args.a} and ${args.b} is ${Number(args.a) + Number(args.b)}.` }] };
      },
    },
    {
      name: getStructuredContentSpec.name,
      description: getStructuredContentSpec.description ?? "",
      inputSchema: getStructuredContentSpec.inputSchema,
      ...(getStructuredContentSpec.outputSchema ? { outputSchema: getStructuredContentSpec.outputSchema } : {}),
      handler: () => {
        log.calls.push("get-structured-content");
        const weather = { temperature: 22.5, conditions: "Partly cloudy", humidity: 65 };
        return { content: [{ type: "text", text: JSON.stringify(weather) }], structuredContent: weather };
      },
    },
  ];
}

/** A fresh tool server for the everything tools. */
export function everythingServer(log: ToolLog): ToolServer {
  return createToolServer({ name: "everything", version: "1.0.0", tools: everythingTools(log) });
}

/** A caller to `host` in this process (the real MCP session over the in-memory transport). */
export function hostedCaller(host: MessageHost, options: { onListChanged?: (kind: string) => void } = {}) {
  return createHostedCaller({ name: "everything", host, ...(options.onListChanged ? { onListChanged: options.onListChanged } : {}) });
}

/** `host` over streamable HTTP on 127.0.0.1. */
export async function httpServer(host: ToolServer) {
  const handle = await serveHttp(host);
  return { url: handle.url, close: () => handle.close() };
}

/**
 * A manager whose one server, "everything", is `host` in this process: the manager's own HTTP
 * client factory seam hands it a hosted caller, so notifications and list changes reach the
 * manager as they would from a remote server.
 */
export function managerOn(host: MessageHost, options: McpManagerOptions = {}): McpManager {
  return createMcpManager(
    { mcpServers: { everything: { transport: "http", url: "http://127.0.0.1:9/in-memory", headers: {} } } },
    {
      ...options,
      client: {
        ...options.client,
        createHttpClient: (o) =>
          createHostedCaller({ name: o.name, host, ...(o.onNotification ? { onNotification: o.onNotification } : {}) }),
      },
    },
  );
}

/** A manager on an HTTP server at `url` with the default HTTP client. */
export function managerAt(url: string, options: McpManagerOptions = {}): McpManager {
  return createMcpManager({ mcpServers: { everything: { transport: "http", url, headers: {}, era: "legacy" } } }, options);
}
