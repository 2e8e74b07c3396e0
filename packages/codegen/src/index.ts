/**
 * @toolwright/codegen: load a design, resolve it to an IR, generate typed code, write it.
 * The `toolwright` CLI (cli.ts) is a thin layer over these functions.
 * @packageDocumentation
 */

// The runtime owns its symbol table; re-exported here for plugins written against this package.
export type { RuntimeSymbol } from "@toolwright/runtime/codegen";
export { RUNTIME_CODEGEN, RUNTIME_ROOT, RUNTIME_SYMBOLS } from "@toolwright/runtime/codegen";
export type { CliIo } from "./cli.js";
export { main } from "./cli.js";
export type { ExportRecord, GeneratedFile, Output } from "./emit/generated-file.js";
export { createGeneratedFile, createOutput, fileHeader } from "./emit/generated-file.js";
export { camelName, fileStem, pascalName, providerNames } from "./emit/names.js";
export type { DesignLocation } from "./errors.js";
export { DesignError, describeLocation, isDesignError } from "./errors.js";
export { defaultPlugins, generate } from "./generate.js";
export type {
  IrAgent,
  IrAgentUse,
  IrAnnotations,
  IrConnection,
  IrDesign,
  IrEnvEntry,
  IrExportKind,
  IrMcpServer,
  IrPrompt,
  IrResource,
  IrResourceTemplate,
  IrRunPolicy,
  IrSchema,
  IrServerSymbols,
  IrSurface,
  IrSurfaceFingerprints,
  IrSymbol,
  IrTool,
  IrToolSymbols,
  IrToolset,
  IrToolsetSource,
  IrToolsetSymbols,
  IrValidators,
} from "./ir/ir.js";
export type { LoadedDesign, LoadOptions } from "./load/load-design.js";
export { loadDesign } from "./load/load-design.js";
export type { CodeModeApiData, CodeModeIndexEntry } from "./plugins/code-mode.js";
export { buildCodeModeApi, codeModeNamespace, codeModePlugin } from "./plugins/code-mode.js";
export { codeModePrelude } from "./plugins/code-mode-prelude.js";
export type { Plugin } from "./plugins/plugin.js";
export { serverScaffoldPlugin } from "./plugins/server-scaffold.js";
export type { ProgressStream } from "./progress.js";
export type { ListedSurface, PulledServer } from "./pull/lock-format.js";
export { lockEntryFromListing, serializeLock } from "./pull/lock-format.js";
export type { LockDrift, LockSurfaceDrift, PulledServerSummary, PullFailure, PullOptions, PullProgress, PullSummary } from "./pull/pull.js";
export { PullError, pullSummaryLine, runPull } from "./pull/pull.js";
export type { LockedServer, LockFile } from "./resolve/lock.js";
export { lockPathFor, readLock } from "./resolve/lock.js";
export type { LockLocation } from "./resolve/lock-shape.js";
export { LockError } from "./resolve/lock-shape.js";
export type { LockedSurface } from "./resolve/lock-surface.js";
export { certifyProviders, parseProviders } from "./resolve/providers.js";
export type { ResolveOptions } from "./resolve/resolve.js";
export { resolveDesign } from "./resolve/resolve.js";
export { serverNames } from "./resolve/symbols.js";
export type { GenOptions, GenProgress, GenSummary } from "./run-gen.js";
export { runGen, summaryLine } from "./run-gen.js";
export type { BudgetOverrun, GroupBill, TokenBill, TokensByFormat, ToolBill } from "./tokens/bill.js";
export type { OutputReport } from "./write.js";
export { checkOutput, safeJoin, writeOutput } from "./write.js";
