/**
 * The stateless 2026-07-28 revision's name and versions. A leaf module, so `protocol/` can
 * re-export the version list without importing the revision's behaviour.
 */

/** The revision's name, as `mcp.json` and the `era` option spell it. */
export const STATELESS_REVISION_NAME = "2026-07-28";

/** The revision's name as a type (a server pinned to it takes only stateless requests). */
export type StatelessRevisionName = typeof STATELESS_REVISION_NAME;

/** The stateless protocol revision's version. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** The versions this revision speaks, newest first. */
export const STATELESS_VERSIONS: readonly string[] = Object.freeze([MODERN_PROTOCOL_VERSION]);
