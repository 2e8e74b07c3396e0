/**
 * `Result<T>`: the one answer shape of every client method (callers, the manager, the runtime):
 * the value, or a `ToolFailure` value. Nothing the server or the network does makes them throw.
 */
import type { ToolFailure } from "./failure.js";

/** The answer of a client method: `{ ok: true, value }` or `{ ok: false, failure }`. */
export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: ToolFailure };
