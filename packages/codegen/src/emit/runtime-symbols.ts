/**
 * The runtime symbols generated code may use, and where each comes from. Plugins import them by
 * name through `GeneratedFile.runtime(...)`, so a typo is a compile error here rather than broken
 * output, and a test checks every value below really is exported by the runtime.
 */

/** The runtime entry point generated code imports from. */
export const RUNTIME_CODEGEN = "@toolwright/runtime/codegen";

/** The runtime's application entry point (createRuntime and its options). */
export const RUNTIME_ROOT = "@toolwright/runtime";

/** The Node-only transports generated caller factories use. */
export const RUNTIME_STDIO = "@toolwright/runtime/stdio";
export const RUNTIME_HTTP = "@toolwright/runtime/http";

/** Symbol → module and kind. Types are `import type`d. */
export const RUNTIME_SYMBOLS = {
  Caller: { from: RUNTIME_CODEGEN, type: true },
  CallOptions: { from: RUNTIME_CODEGEN, type: true },
  Runtime: { from: RUNTIME_CODEGEN, type: true },
  ToolResult: { from: RUNTIME_CODEGEN, type: true },
  ToolSpec: { from: RUNTIME_CODEGEN, type: true },
  ValidateFunction: { from: RUNTIME_CODEGEN, type: true },
  DriftOptions: { from: RUNTIME_CODEGEN, type: true },
  DriftReport: { from: RUNTIME_CODEGEN, type: true },
  ExpectedCatalogue: { from: RUNTIME_CODEGEN, type: true },
  checkDrift: { from: RUNTIME_CODEGEN, type: false },
  createDecoder: { from: RUNTIME_CODEGEN, type: false },
  invokeTool: { from: RUNTIME_CODEGEN, type: false },
  // Maps keyed by design or server names (spec maps, field descriptions) carry no prototype.
  prototypeFree: { from: RUNTIME_CODEGEN, type: false },
  // Called by precompiled validators (validators.gen.ts) in place of ajv's own helpers.
  deepEqual: { from: RUNTIME_CODEGEN, type: false },
  formats: { from: RUNTIME_CODEGEN, type: false },
  ucs2length: { from: RUNTIME_CODEGEN, type: false },
  createRuntime: { from: RUNTIME_ROOT, type: false },
  RuntimeOptions: { from: RUNTIME_ROOT, type: true },
  createStdioCaller: { from: RUNTIME_STDIO, type: false },
  StdioCaller: { from: RUNTIME_STDIO, type: true },
  StdioCallerOptions: { from: RUNTIME_STDIO, type: true },
  createHttpCaller: { from: RUNTIME_HTTP, type: false },
  HttpCaller: { from: RUNTIME_HTTP, type: true },
  HttpCallerOptions: { from: RUNTIME_HTTP, type: true },
} as const satisfies { readonly [name: string]: { readonly from: string; readonly type: boolean } };

/** A symbol generated code may import from the runtime. */
export type RuntimeSymbol = keyof typeof RUNTIME_SYMBOLS;
