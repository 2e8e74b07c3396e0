/**
 * Node built-ins loaded on first use. `node:https` (TLS) and `node:dns` cost ~1.5 MiB of RSS at import
 * time, which a caller that only talks plain HTTP to an IP literal, or only stdio, never needs.
 * `require` of a built-in is synchronous, so call sites keep their shape.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** `node:https`, loaded the first time an https:// URL is used. */
export function nodeHttps(): typeof import("node:https") {
  return require("node:https") as typeof import("node:https");
}

/** `node:dns`, loaded the first time a host name has to be resolved by the outbound guard. */
export function nodeDns(): typeof import("node:dns") {
  return require("node:dns") as typeof import("node:dns");
}
