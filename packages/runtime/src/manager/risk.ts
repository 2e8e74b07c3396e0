/**
 * Risk from tool annotations: readOnly is low, destructive is high, anything else is medium.
 * Annotations from servers not marked `trusted` are hints, and say so.
 */
import type { ToolDescriptor } from "../protocol/mcp-types.js";

/** How risky a call is, for approval and concurrency decisions. */
export type RiskLevel = "low" | "medium" | "high";

/** Risk facts about one tool. */
export interface ToolRisk {
  readonly level: RiskLevel;
  /** Safe to run alongside other calls: readOnly and idempotent. */
  readonly concurrentSafe: boolean;
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  readonly openWorld: boolean;
  /** True when the annotations came from an untrusted server: treat them as claims, not facts. */
  readonly hint: boolean;
}

/**
 * Computes risk from annotations. Missing annotations give medium risk and no concurrency: only an
 * explicit destructiveHint makes a tool high risk, only readOnly plus idempotent makes it concurrent.
 */
export function riskOf(annotations: ToolDescriptor["annotations"], trusted: boolean): ToolRisk {
  // The MCP spec defaults destructiveHint to true when absent; taking that literally would make
  // every unannotated tool high risk, so a missing hint is medium. destructiveHint is meaningful
  // only when readOnlyHint is false (spec), hence `!readOnly`. openWorldHint keeps the spec
  // default (true).
  const readOnly = annotations?.readOnlyHint === true;
  const destructive = !readOnly && annotations?.destructiveHint === true;
  const idempotent = annotations?.idempotentHint === true;
  const openWorld = annotations?.openWorldHint !== false;
  const level: RiskLevel = readOnly ? "low" : destructive ? "high" : "medium";
  return { level, concurrentSafe: readOnly && idempotent, readOnly, destructive, idempotent, openWorld, hint: !trusted };
}
