/**
 * @toolwright/runtime/catalogue: tooling over a server's tool catalogue: fingerprints for pins,
 * field-level diffs, the poisoning lint, and drift between the catalogue a toolset was generated
 * from and the live one (what `toolwright pull`, `report` and the manager's approvals use).
 * Needs no Node APIs.
 * @packageDocumentation
 */
export type { FieldChange } from "./catalogue/catalogue-diff.js";
export { describeFieldChange, diffEntries, quoteExcerpt } from "./catalogue/catalogue-diff.js";
export type { LintFinding, LintOptions, LintRule, LintServer, LintSeverity } from "./catalogue/catalogue-lint.js";
export { countBySeverity, describeFinding, lintCatalogue, markHidden } from "./catalogue/catalogue-lint.js";
export type { DriftOptions, DriftPolicy, DriftReport, ExpectedCatalogue, ToolDrift } from "./catalogue/drift.js";
export { checkDrift, compareCatalogues, withFieldChanges } from "./catalogue/drift.js";
export type { CatalogueExtras, CatalogueFingerprints, FingerprintedTool } from "./catalogue/fingerprint.js";
export { canonicalJson, fingerprintCatalogue, fingerprintEntry, fingerprintTool, pinnedPart, sha256Hex } from "./catalogue/fingerprint.js";
export type { ExpectedSurface, LiveSurface, SurfaceDrift, SurfaceKind } from "./catalogue/surface-drift.js";
export { compareSurface, describeSurfaceDrift, listSurface, surfaceDriftLabel } from "./catalogue/surface-drift.js";
