/**
 * @toolwright/runtime/stdio: the Node-only stdio transport.
 * @packageDocumentation
 */

export type { StdioCaller, StdioCallerOptions } from "./caller/stdio-caller.js";
export { createStdioCaller } from "./caller/stdio-caller.js";
export type { EnvSpec } from "./transport/environment.js";
export { buildChildEnv, DEFAULT_INHERITED_ENV } from "./transport/environment.js";
// `${VAR}` expansion for generated caller factories (`create<Server>Caller`), as HTTP headers use it.
export { expandProcessEnv } from "./transport/http-headers.js";
