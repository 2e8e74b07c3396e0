/**
 * @toolwright/runtime/codegen: the symbols generated code imports (`RUNTIME_SYMBOLS`), and the
 * schema helpers precompiled validators call. Not for hand-written code. Its names may repeat names
 * of other entries only where the table sends generated code here.
 * @packageDocumentation
 */
export type { Caller, CallOptions } from "./caller/caller.js";
export { invokeTool } from "./caller/invoke.js";
export type { SurfaceResult } from "./caller/surface.js";
export { getPromptVia, readResourceVia } from "./caller/surface.js";
export type { ToolResult, ToolSpec } from "./caller/tool-spec.js";
export type { DriftOptions, DriftReport, ExpectedCatalogue } from "./catalogue/drift.js";
export { checkDrift } from "./catalogue/drift.js";
export type { RuntimeSymbol, RuntimeSymbolEntry, ServerSymbol } from "./codegen/symbols.js";
export {
  EXPAND_ENV_FROM,
  RUNTIME_CODEGEN,
  RUNTIME_HTTP,
  RUNTIME_ROOT,
  RUNTIME_SERVER,
  RUNTIME_STDIO,
  RUNTIME_SYMBOLS,
  SERVER_SYMBOLS,
} from "./codegen/symbols.js";
export type { Runtime } from "./core/runtime.js";
export type { CallToolResult, GetPromptResult, ResourceContents } from "./protocol/mcp-types.js";
export { expandTemplate } from "./protocol/uri-template.js";
export type { ValidateFunction, ValidatorError } from "./schema/codec.js";
export { createDecoder, issuesFromErrors } from "./schema/codec.js";
export type { FormatEntry } from "./schema/codegen-helpers.js";
export { deepEqual, formats, ucs2length } from "./schema/codegen-helpers.js";
export { prototypeFree } from "./schema/prototype-free.js";

import type { EXPAND_ENV_FROM, RUNTIME_SYMBOLS, SERVER_SYMBOLS } from "./codegen/symbols.js";

/** What each entry in the symbol tables exports, for the compile-time check below. */
interface EntryExports {
  "@toolwright/runtime": typeof import("./index.js");
  "@toolwright/runtime/codegen": typeof import("./codegen.js");
  "@toolwright/runtime/stdio": typeof import("./stdio.js");
  "@toolwright/runtime/http": typeof import("./http.js");
  "@toolwright/runtime/server": typeof import("./server.js");
}
/** The value symbols of a table that their entry does not export (`never` when the table is right). */
type Unexported<T> = {
  [K in keyof T]: T[K] extends { readonly from: infer F extends keyof EntryExports; readonly type: false }
    ? K extends keyof EntryExports[F]
      ? never
      : K
    : never;
}[keyof T];
// Fails to compile, naming the symbol, when a table lists a value its entry does not export.
type Missing = Unexported<typeof RUNTIME_SYMBOLS> | Unexported<typeof SERVER_SYMBOLS>;
true satisfies [Missing] extends [never] ? true : Missing;
// Fails to compile when an entry caller factories take `expandProcessEnv` from stops exporting it.
type NoExpander = {
  [T in keyof typeof EXPAND_ENV_FROM]: "expandProcessEnv" extends keyof EntryExports[(typeof EXPAND_ENV_FROM)[T]] ? never : T;
}[keyof typeof EXPAND_ENV_FROM];
true satisfies [NoExpander] extends [never] ? true : NoExpander;
