/**
 * `@toolwright/vault`: per-user OAuth credentials on PostgreSQL (issue 31). Tokens are encrypted at
 * rest with a key the application supplies, a refresh runs once across every worker, and approvals
 * are kept per principal.
 * @packageDocumentation
 */
export type { PrincipalApprovals, PrincipalApprovalsOptions, VaultApprovalStore, VaultApprovalStoreOptions } from "./approvals.js";
export type { VaultKey } from "./crypto.js";
export { VaultError } from "./crypto.js";
export type { RotateOptions, RotationReport } from "./rotate.js";
export { VAULT_SCHEMA_VERSION } from "./schema.js";
export type { PostgresVault, PostgresVaultOptions, PrincipalRef } from "./vault.js";
export { createPostgresVault } from "./vault.js";
