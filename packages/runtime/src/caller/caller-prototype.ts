/**
 * The prototype a session caller is made on. Getters that read the live connection live here, once
 * per transport, instead of as own getters of each caller: an object with getters of its own gets a
 * hidden class of its own, about 0.6 KB per caller (docs/performance.md, "Heap per connection").
 */
import type { ServerHandshake } from "../protocol/mcp-types.js";
import type { SessionConnection } from "./connector.js";

/** Where a caller keeps the function that answers its live connection. */
export const LIVE = Symbol("live");

/** The live connection of a caller made on a prototype from `callerPrototype`. */
export function liveOf<C extends SessionConnection>(caller: unknown): C | undefined {
  return (caller as { readonly [LIVE]: () => C | undefined })[LIVE]();
}

const BASE: object = Object.defineProperty({}, "handshake", {
  get(this: unknown): ServerHandshake | undefined {
    return liveOf(this)?.session?.handshake;
  },
  enumerable: true,
  configurable: true,
});

/** A prototype for one transport's callers: `handshake` and the getters given. Made once, at module level. */
export function callerPrototype(getters: object = {}): object {
  return Object.defineProperties(Object.create(BASE), Object.getOwnPropertyDescriptors(getters));
}

/** The prototype of callers whose transport adds no getters. */
export const PLAIN_CALLER: object = callerPrototype();
