/**
 * @toolwright/runtime/http: the Node-only HTTP callers (Streamable HTTP, legacy HTTP+SSE, both eras).
 *
 * ```ts
 * const caller = createHttpCaller({ url: "http://127.0.0.1:3001/mcp", headers: { Authorization: "Bearer ${TOKEN}" } });
 * const out = await caller.callTool({ name: "echo", arguments: { message: "hi" } }, { timeoutMs: 5_000 });
 * if (!out.ok) console.error(out.failure.kind, out.failure.message);
 * await caller.close();
 * ```
 * OAuth lives in `@toolwright/runtime/auth`; the era header codecs in `@toolwright/runtime/protocol`.
 * @packageDocumentation
 */
export type { HttpCaller, HttpCallerOptions } from "./caller/http-caller.js";
export { clearHttpEraCache, createHttpCaller } from "./caller/http-caller.js";
export type { RedirectPolicy } from "./transport/http-exchange.js";
export { expandEnv, expandProcessEnv } from "./transport/http-headers.js";
export type { OutboundGuard, OutboundLookup, OutboundPolicy } from "./transport/outbound.js";
export { addressClass, copyOutboundPolicy, createOutboundGuard } from "./transport/outbound.js";
