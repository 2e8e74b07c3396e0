/**
 * @toolwright/runtime/http: the Node-only HTTP callers (Streamable HTTP, legacy HTTP+SSE, both eras).
 *
 * ```ts
 * const caller = createHttpCaller({ url: "http://127.0.0.1:3001/mcp", headers: { Authorization: "Bearer ${TOKEN}" } });
 * const out = await caller.callTool({ name: "echo", arguments: { message: "hi" } }, { timeoutMs: 5_000 });
 * if (!out.ok) console.error(out.failure.kind, out.failure.message);
 * await caller.close();
 * ```
 * @packageDocumentation
 */
export { createFileTokenStore } from "./auth/file-token-store.js";
export type { LoopbackRedirect, LoopbackRedirectOptions } from "./auth/loopback-redirect.js";
export { startLoopbackRedirect } from "./auth/loopback-redirect.js";
export type { HttpCaller, HttpCallerOptions } from "./caller/http-caller.js";
export { clearHttpEraCache, createHttpCaller } from "./caller/http-caller.js";
export type { Era, EraPreference, TraceContextOption } from "./protocol/mcp-client.js";
export { newTraceparent } from "./protocol/mcp-client.js";
export type { ParamHeader, ToolHeaderPlan } from "./protocol/modern.js";
export { decodeHeaderValue, encodeHeaderValue, MODERN_PROTOCOL_VERSIONS, planToolHeaders } from "./protocol/modern.js";
export type { RedirectPolicy } from "./transport/http-exchange.js";
export { expandEnv } from "./transport/http-headers.js";
export type { OutboundGuard, OutboundLookup, OutboundPolicy } from "./transport/outbound.js";
export { addressClass, copyOutboundPolicy, createOutboundGuard } from "./transport/outbound.js";
