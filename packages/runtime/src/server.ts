/**
 * @toolwright/runtime/server: serve MCP tools (Node only, no dependencies). Generated server
 * scaffolds call `createToolServer` with their tools, then `serve` (or `serveStdio` / `serveHttp`).
 * Speaks 2024-11-05 … 2025-11-25 with `initialize`, and stateless 2026-07-28.
 * @packageDocumentation
 */

export type { RpcErrorObject, RpcId, RpcMessage, RpcNotification, RpcRequest, RpcResponse } from "./protocol/json-rpc.js";
export type { CallToolResult, ContentBlock, GetPromptResult, ResourceContents } from "./protocol/mcp-types.js";
export { RpcHandlerError } from "./protocol/rpc-peer.js";
export { expandTemplate, matchTemplate, templateVariables } from "./protocol/uri-template.js";
export type { Decoder, ValidateFunction, ValidatorError } from "./schema/codec.js";
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
  LogLevel,
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
