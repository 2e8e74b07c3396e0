/**
 * @toolwright/runtime/codegen: the symbols generated code imports. Not for hand-written code.
 * @packageDocumentation
 */
export type { Caller, CallOptions } from "./caller.js";
export type { Decoder, ValidateFunction, ValidatorError } from "./codec.js";
export { createDecoder, issuesFromErrors } from "./codec.js";
export type { FormatEntry } from "./codegen-helpers.js";
export { deepEqual, formats, ucs2length } from "./codegen-helpers.js";
export type { DriftOptions, DriftPolicy, DriftReport, ExpectedCatalogue, ToolDrift } from "./drift.js";
export { checkDrift } from "./drift.js";
export { invokeTool } from "./invoke.js";
export { prototypeFree } from "./prototype-free.js";
export type { Runtime } from "./runtime.js";
export type { ToolResult, ToolSpec } from "./tool-spec.js";
