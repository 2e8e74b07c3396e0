/**
 * `@toolwright/vault`: per-user OAuth credentials on PostgreSQL (issue 31). Tokens are encrypted at
 * rest with a key the application supplies, a refresh runs once across every worker, and approvals
 * are kept per principal.
 * @packageDocumentation
 */

/** The schema version of the vault's tables. */
export const VAULT_SCHEMA_VERSION = 1;
