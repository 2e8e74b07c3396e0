/**
 * @toolwright/runtime/server: serve MCP tools (Node only, no dependencies). Generated server
 * scaffolds call `createToolServer` with their tools, then `serve` (or `serveStdio` / `serveHttp`).
 * Speaks every revision the callers speak. The face of `server/`: the wire types a handler meets
 * (JSON-RPC messages, `RpcHandlerError`, content blocks, URI templates) are in
 * `@toolwright/runtime/protocol`; `CallToolResult`, `GetPromptResult` and `createDecoder` are also
 * here because generated scaffolds import them from this entry (`SERVER_SYMBOLS`).
 * @packageDocumentation
 */

export type { CallToolResult, GetPromptResult } from "./protocol/mcp-types.js";
export { createDecoder } from "./schema/codec.js";
export type { HttpServeOptions, HttpServerHandle } from "./server/http-server.js";
export { serveHttp } from "./server/http-server.js";
export type { ServeHandle, ServeOptions } from "./server/serve.js";
export { parseServeArgs, serve } from "./server/serve.js";
export type { StdioServeOptions, StdioServerHandle } from "./server/stdio-server.js";
export { serveStdio } from "./server/stdio-server.js";
export { ISSUES_META_KEY, invalidArgumentsResult, normalizeResult } from "./server/tool-call.js";
export type { ServerSession, SessionOptions, ToolServer } from "./server/tool-server.js";
export { createToolServer } from "./server/tool-server.js";
export type {
  ArgumentCompleter,
  ResourceBody,
  ServerPrompt,
  ServerResource,
  ServerResourceTemplate,
  ServerSkill,
  ServerTool,
  StructuredResult,
  SurfaceContext,
  ToolAnnotationsWire,
  ToolContext,
  ToolHandlerResult,
  ToolServerOptions,
} from "./server/types.js";
