/**
 * The legacy family's protocol versions (the `initialize` handshake, 2024-11-05 … 2025-11-25).
 * A leaf module: `protocol/mcp-types.ts` re-exports the list for the public entries.
 */

/** Protocol versions of the legacy `initialize` family, newest first. */
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** True when a legacy version has experimental tasks (2025-11-25 and later). */
export function versionHasTasks(version: string): boolean {
  return version >= "2025-11-25";
}

/** True when a legacy version primes SSE streams with an id and retry before any data (SEP-1699, 2025-11-25 on). */
export function versionPrimesStreams(version: string): boolean {
  return version >= "2025-11-25";
}
