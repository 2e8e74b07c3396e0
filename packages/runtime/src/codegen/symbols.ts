/**
 * The symbols generated code may import from the runtime, and the entry each comes from. The
 * generator prints imports only through these tables (`GeneratedFile.runtime`/`.server`), and
 * `codegen.ts` checks at compile time that every value below is exported where it says, so the
 * table cannot drift from the runtime it describes (protobuf-es keeps its table in the runtime too).
 */

/** The runtime entry generated toolset modules import from. */
export const RUNTIME_CODEGEN = "@toolwright/runtime/codegen";
/** The runtime's application entry (createRuntime and its options). */
export const RUNTIME_ROOT = "@toolwright/runtime";
/** The Node-only stdio transport generated caller factories use. */
export const RUNTIME_STDIO = "@toolwright/runtime/stdio";
/** The streamable HTTP transport generated caller factories use. */
export const RUNTIME_HTTP = "@toolwright/runtime/http";
/** The entry generated server scaffolds import from. */
export const RUNTIME_SERVER = "@toolwright/runtime/server";

/** One symbol: the entry it comes from, and whether it is a type (printed as `import type`). */
export interface RuntimeSymbolEntry {
  readonly from: string;
  readonly type: boolean;
}

/** Symbol → entry and kind, for toolset, agent and caller modules. */
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
  GetPromptResult: { from: RUNTIME_CODEGEN, type: true },
  CallToolResult: { from: RUNTIME_CODEGEN, type: true },
  ResourceContents: { from: RUNTIME_CODEGEN, type: true },
  SurfaceResult: { from: RUNTIME_CODEGEN, type: true },
  expandTemplate: { from: RUNTIME_CODEGEN, type: false },
  getPromptVia: { from: RUNTIME_CODEGEN, type: false },
  readResourceVia: { from: RUNTIME_CODEGEN, type: false },
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
} as const satisfies { readonly [name: string]: RuntimeSymbolEntry };

/** Symbol → entry and kind, for server scaffolds (`servers/<server>/server.gen.ts`). */
export const SERVER_SYMBOLS = {
  ArgumentCompleter: { from: RUNTIME_SERVER, type: true },
  CallToolResult: { from: RUNTIME_SERVER, type: true },
  GetPromptResult: { from: RUNTIME_SERVER, type: true },
  ResourceBody: { from: RUNTIME_SERVER, type: true },
  SurfaceContext: { from: RUNTIME_SERVER, type: true },
  ServeHandle: { from: RUNTIME_SERVER, type: true },
  ServeOptions: { from: RUNTIME_SERVER, type: true },
  StructuredResult: { from: RUNTIME_SERVER, type: true },
  ToolContext: { from: RUNTIME_SERVER, type: true },
  ToolServer: { from: RUNTIME_SERVER, type: true },
  ToolServerOptions: { from: RUNTIME_SERVER, type: true },
  createDecoder: { from: RUNTIME_SERVER, type: false },
  createToolServer: { from: RUNTIME_SERVER, type: false },
  serve: { from: RUNTIME_SERVER, type: false },
} as const satisfies { readonly [name: string]: RuntimeSymbolEntry };

/** The entries whose `expandProcessEnv` generated caller factories call for `${VAR}` references (no `process` in generated code). */
export const EXPAND_ENV_FROM = { stdio: RUNTIME_STDIO, http: RUNTIME_HTTP } as const;

/** A symbol generated toolset code may import from the runtime. */
export type RuntimeSymbol = keyof typeof RUNTIME_SYMBOLS;
/** A symbol a generated server scaffold may import from the runtime. */
export type ServerSymbol = keyof typeof SERVER_SYMBOLS;
