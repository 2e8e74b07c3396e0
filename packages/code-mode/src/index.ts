/**
 * `@toolwright/code-mode`: typed code mode (issue 27). The sandbox, the host-call bridge and the
 * type checker live here so `@toolwright/runtime` stays zero-dependency.
 * @packageDocumentation
 */

export type { CodeModeApis } from "./bindings.js";
export { apisFromGenerated, camelIdentifier, deriveApis } from "./bindings.js";
export type { CodeModeApi, CodeModeIndexEntry } from "./check/api.js";
export type { CheckDiagnostic, CheckFailure, CheckResult, TypeChecker, TypeCheckerOptions } from "./check/type-checker.js";
export { createTypeChecker } from "./check/type-checker.js";
export type {
  CheckOutcome,
  CodeChecker,
  CodeMode,
  CodeModeCall,
  CodeModeOptions,
  CodeModeResult,
  CodeModeRunOptions,
} from "./code-mode.js";
export { createCodeMode } from "./code-mode.js";
export type { DurableCalls } from "./durable-calls.js";
export type {
  ConsoleLine,
  ExecuteOptions,
  ExecutionError,
  ExecutionLimits,
  ExecutionResult,
  Executor,
  HostAnswer,
  HostFunction,
  HostFunctions,
  LimitName,
} from "./executor.js";
export { DEFAULT_LIMITS, resolveLimits } from "./executor.js";
export { PROGRAM_TOOL } from "./failures.js";
export type { CodeModeToolsOptions } from "./model-tools.js";
export { CODE_MODE_TOOL_NAMES, createCodeModeTools } from "./model-tools.js";
export type { QuickJsExecutorOptions } from "./quickjs-executor.js";
export { createQuickJsExecutor } from "./quickjs-executor.js";
