/**
 * `@toolwright/code-mode`: typed code mode (issue 27). The sandbox, the host-call bridge and the
 * type checker live here so `@toolwright/runtime` stays zero-dependency.
 * @packageDocumentation
 */

export type { CodeModeApi, CodeModeIndexEntry } from "./check/api.js";
export type { CheckDiagnostic, CheckFailure, CheckResult, TypeChecker, TypeCheckerOptions } from "./check/type-checker.js";
export { createTypeChecker } from "./check/type-checker.js";
