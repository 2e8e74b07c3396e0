/**
 * The resolved design: a read-only, `kind`-tagged tree built once by `resolveDesign`. Emitters
 * read it and never validate anything; every name in it is already safe to print.
 */
import type { JsonSchema } from "@toolwright/dsl";
import type { OutboundPolicy } from "@toolwright/runtime/http";
import type { EraPreference } from "@toolwright/runtime/protocol";

/** How a generated module declares an export (`export const x`, `export interface X`...). */
export type IrExportKind = "const" | "function" | "interface" | "type";

/**
 * A name a generated module exports, computed once by the resolver: emitters declare it with
 * `f.export(symbol.declare, symbol.name)` and import it with `f.import(symbol)`, never by spelling it.
 */
export interface IrSymbol {
  readonly name: string;
  readonly declare: IrExportKind;
  /** The generated file that declares it, relative to `--out`: `everything/specs.gen.ts`. */
  readonly file: string;
}

/** The toolset-level exports of a toolset's modules. */
export interface IrToolsetSymbols {
  readonly toolsetName: IrSymbol;
  readonly catalogue: IrSymbol;
  readonly specs: IrSymbol;
  readonly specMap: IrSymbol;
  readonly find: IrSymbol;
  readonly clientType: IrSymbol;
  readonly client: IrSymbol;
  readonly toolRequest: IrSymbol;
  readonly requestsType: IrSymbol;
  readonly requests: IrSymbol;
  readonly register: IrSymbol;
  readonly checkDrift: IrSymbol;
  /** The code-mode API (`<dir>/code-mode.gen.ts`): declarations, index and details as plain data. */
  readonly codeMode: IrSymbol;
  /** The generated mock (`<dir>/mock.gen.ts`, issue 29): `create<Toolset>Mock`, its type, handlers and call info. */
  readonly mock: IrSymbol;
  readonly mockType: IrSymbol;
  readonly mockHandlers: IrSymbol;
  readonly mockCall: IrSymbol;
  /** `<Toolset>MockReply<T>`: the full result a handler may return (`result()` of the kit). */
  readonly mockResult: IrSymbol;
}

/** The per-tool exports of a toolset's modules. */
export interface IrToolSymbols {
  readonly payload: IrSymbol;
  readonly result: IrSymbol;
  readonly spec: IrSymbol;
  readonly validatePayload: IrSymbol;
  /** Only for tools with an output schema. */
  readonly validateResult: IrSymbol | undefined;
}

/** The exports of a server scaffold (`servers/<server>/server.gen.ts`). */
export interface IrServerSymbols {
  readonly handlers: IrSymbol;
  readonly create: IrSymbol;
  readonly serve: IrSymbol;
  readonly info: IrSymbol;
  readonly options: IrSymbol;
  /** Typed completers for prompt arguments and template variables (only printed when the server has any). */
  readonly completions: IrSymbol;
}

/** A toolset's precompiled validator module (ajv standalone), compiled and checked by the resolver. */
export interface IrValidators {
  /** The module body: one `export const <name>: ValidateFunction = ...` per validator symbol. */
  readonly code: string;
  /** Runtime helpers the code calls in place of ajv's own. */
  readonly helpers: readonly ("deepEqual" | "formats" | "ucs2length")[];
}

/** A resolved design. */
export interface IrDesign {
  readonly kind: "design";
  /** Design file relative to the working directory, with `/` separators (used in headers). */
  readonly file: string;
  readonly toolsets: readonly IrToolset[];
  readonly agents: readonly IrAgent[];
  /** Servers the design implements (`mcpServer(...)`), for scaffold plugins. */
  readonly mcpServers: readonly IrMcpServer[];
  /** Absolute paths of the `mcp.json` files connections were read from (inputs of the re-run cache). */
  readonly configFiles: readonly string[];
  /** Providers whose schema variants the specs carry (`gen --providers`); none by default. */
  readonly providers?: readonly ("openai" | "anthropic" | "gemini")[];
}

/** One variable of a child's allowlisted environment. Values are never copied into generated code. */
export type IrEnvEntry =
  /** Pass the parent's variable of this name through. */
  | { readonly kind: "pass"; readonly name: string }
  /** Set `name` from a template of `${VAR}` references, expanded when the caller is created. */
  | { readonly kind: "expand"; readonly name: string; readonly template: string };

/** How generated code reaches an external server (`create<Server>Caller`), from the design's declaration. */
export type IrConnection = {
  readonly server: string;
  /** Where the connection was declared: the design file or the `mcp.json` label. */
  readonly declaredIn: string;
  /** `memory` → `createMemoryCaller`. */
  readonly factoryName: string;
  /** Env or header names whose literal values were left out of generated code (they may be secrets). */
  readonly withheld: readonly string[];
  /** Caller options an `mcp.json` entry sets (`era`, `connectTimeoutMs`, `requestTimeoutMs` as `timeoutMs`), as the manager applies them. */
  readonly options: { readonly era?: EraPreference; readonly connectTimeoutMs?: number; readonly timeoutMs?: number };
} & (
  | {
      readonly transport: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env: readonly IrEnvEntry[];
      /** Relative to the working directory at run time. */
      readonly cwd: string | undefined;
    }
  | {
      readonly transport: "http";
      readonly url: string;
      /** Header name → value holding `${VAR}` references (expanded by the HTTP caller at connect). */
      readonly headers: { readonly [name: string]: string };
      /** The declared outbound policy (hosts and address rules; no secrets), carried into the generated caller. */
      readonly outbound?: OutboundPolicy;
    }
);

/** An MCP server the design implements. Its tools are resolved exactly like a toolset's. */
export interface IrMcpServer {
  readonly kind: "mcp-server";
  readonly name: string;
  readonly version: string;
  readonly protocolVersion: string | undefined;
  readonly title: string | undefined;
  readonly description: string | undefined;
  readonly instructions: string | undefined;
  /** `calc-server` → `CalcServer` (for `CalcServerHandlers`, `serveCalcServer`). */
  readonly pascalName: string;
  readonly camelName: string;
  /** The server's tools as a toolset named after the server (source `mcp-server`), in `servers/<server>`. */
  readonly toolset: IrToolset;
  readonly symbols: IrServerSymbols;
  toString(): string;
}

/** Where a toolset's catalogue came from. */
export type IrToolsetSource = "inline" | "mcp-server" | "lock";

/** A resolved toolset. */
export interface IrToolset {
  readonly kind: "toolset";
  /** Declared name: `everything`. */
  readonly name: string;
  readonly description: string | undefined;
  /** Server the runtime calls for this toolset. */
  readonly server: string;
  /** The server's connection, when the design declares one (`externalServer`). */
  readonly connection: IrConnection | undefined;
  readonly source: IrToolsetSource;
  /** Lock fingerprint for live catalogues (the server's, over all its tools). */
  readonly fingerprint: string | undefined;
  /** Per-tool fingerprints of the pulled `tools/list` entries (runtime `fingerprintTool`), for drift checks. */
  readonly toolFingerprints: { readonly [tool: string]: string } | undefined;
  /** The pulled server's `instructions` (null: it had none; undefined: not from a lock). Drift checks compare them. */
  readonly instructions?: string | null | undefined;
  /** The pulled `tools/list` entries by name, so drift checks can show what changed field by field. */
  readonly snapshots?: { readonly [tool: string]: unknown } | undefined;
  /** Output folder under `--out`: `everything`. */
  readonly dirName: string;
  /** `Everything` (for `createEverythingClient`). */
  readonly pascalName: string;
  /** `everything` (for `everythingSpecs`). */
  readonly camelName: string;
  /** The toolset's key on generated objects (an agent's callers): `camelName`, or `then_` for a reserved member name. */
  readonly memberName: string;
  readonly tools: readonly IrTool[];
  /** Every toolset-level name its modules export (clash-checked against the tools' names). */
  readonly symbols: IrToolsetSymbols;
  readonly validators: IrValidators;
  /** Prompts, resources and resource templates: declared in the toolset or its `mcpServer`, or pulled into the lock (typed readers in the client). */
  readonly surface: IrSurface;
  /** Fingerprints of the pulled prompts, resources and templates (lock toolsets whose lock records them), for drift checks. */
  readonly surfaceFingerprints?: IrSurfaceFingerprints | undefined;
  toString(): string;
}

/** A prompt, resource or template with its generated method name. */
export interface IrPrompt {
  readonly name: string;
  readonly title?: string;
  readonly description: string | undefined;
  readonly arguments: readonly { readonly name: string; readonly description?: string; readonly required?: boolean }[];
  /** `get<Pascal>Prompt`. */
  readonly memberName: string;
  /** `<Pascal>PromptArgs`. */
  readonly typeName: string;
}
export interface IrResource {
  readonly uri: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly mimeType?: string;
  /** `read<Pascal>`. */
  readonly memberName: string;
}
export interface IrResourceTemplate {
  readonly uriTemplate: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly mimeType?: string;
  /** RFC 6570 variable names, in order: the reader's parameters. */
  readonly variables: readonly string[];
  /** `read<Pascal>`. */
  readonly memberName: string;
  /** `<Pascal>Params`. */
  readonly typeName: string;
}
/** Per-item fingerprints of a pulled surface, by prompt name, resource URI and template URI template; absent: the lock has no such section. */
export interface IrSurfaceFingerprints {
  readonly prompts?: { readonly [name: string]: string };
  readonly resources?: { readonly [uri: string]: string };
  readonly resourceTemplates?: { readonly [uriTemplate: string]: string };
  /** The pulled entries, so drift can be shown field by field. */
  readonly snapshots: {
    readonly prompts?: { readonly [name: string]: unknown };
    readonly resources?: { readonly [uri: string]: unknown };
    readonly resourceTemplates?: { readonly [uriTemplate: string]: unknown };
  };
}

/** The surface of one toolset. */
export interface IrSurface {
  readonly prompts: readonly IrPrompt[];
  readonly resources: readonly IrResource[];
  readonly resourceTemplates: readonly IrResourceTemplate[];
}

/** A resolved tool. */
export interface IrTool {
  readonly kind: "tool";
  /** Wire name: `get-sum`. */
  readonly name: string;
  /** `<toolset>.<tool>`. */
  readonly id: string;
  /** Safe camelCase identifier: `getSum`. */
  readonly localName: string;
  /** PascalCase type stem: `GetSum` (for `GetSumPayload`). */
  readonly typeName: string;
  /**
   * Method name on generated objects (client, request builders, server handlers): `localName`, or
   * `then_`, `toJSON_`, `valueOf_`... for names that would change the object's contract (`RESERVED_MEMBERS`).
   */
  readonly memberName: string;
  /** Why the identifiers are not the plain camelCase of the name (reserved member, pulled clash), for JSDoc. */
  readonly nameNote: string | undefined;
  /** `[A-Za-z0-9_-]{1,64}`, unique across the design. */
  readonly providerName: string;
  readonly toolset: IrToolset;
  readonly title: string | undefined;
  readonly description: string | undefined;
  readonly input: IrSchema;
  readonly output: IrSchema | undefined;
  readonly annotations: IrAnnotations | undefined;
  readonly tags: readonly string[] | undefined;
  readonly exampleJson: string | undefined;
  /** Every declared example payload as JSON text, in design order, when there are two or more (`exampleJson` is the first). */
  readonly examplesJson: readonly string[] | undefined;
  readonly requiresConfirmation: boolean | undefined;
  readonly meta: JsonSchema | undefined;
  /** MCP task execution: `execution.taskSupport`, and when a served call becomes a task. */
  readonly task: { readonly support: "optional" | "required"; readonly start: "immediate" | "after-input" } | undefined;
  /** Field path to description, from the input schema. */
  readonly fieldDescriptions: { readonly [field: string]: string };
  /** The names its toolset's modules export for it. */
  readonly symbols: IrToolSymbols;
  toString(): string;
}

/** Tool annotations. */
export interface IrAnnotations {
  readonly readOnly?: boolean;
  readonly destructive?: boolean;
  readonly idempotent?: boolean;
  readonly openWorld?: boolean;
}

/** A validated JSON Schema 2020-12 document (normalized, self-contained). */
export interface IrSchema {
  readonly kind: "schema";
  readonly json: JsonSchema;
}

/** A toolset as an agent uses it. */
export interface IrAgentUse {
  readonly kind: "use";
  readonly toolset: IrToolset;
  /** The tools in the subset (all of the toolset's tools when no subset was given). */
  readonly tools: readonly IrTool[];
  readonly subset: boolean;
}

/** A run policy, in milliseconds. */
export interface IrRunPolicy {
  readonly maxToolCalls?: number;
  readonly maxConsecutiveFailedToolCalls?: number;
  readonly timeBudget?: number;
  readonly toolTimeout?: number;
}

/** A resolved agent. */
export interface IrAgent {
  readonly kind: "agent";
  readonly name: string;
  readonly description: string | undefined;
  /** `research-bot` → `researchBot`. */
  readonly camelName: string;
  /** `ResearchBot`. */
  readonly pascalName: string;
  /** File stem under `<out>/agents/`. */
  readonly fileName: string;
  readonly uses: readonly IrAgentUse[];
  readonly runPolicy: IrRunPolicy | undefined;
  readonly symbols: {
    readonly runPolicy: IrSymbol;
    readonly callers: IrSymbol;
    readonly tools: IrSymbol;
    readonly register: IrSymbol;
    readonly createRuntime: IrSymbol;
  };
  toString(): string;
}
