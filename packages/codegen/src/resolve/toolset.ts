/**
 * One toolset (or a server's tools) resolved: each tool's schemas checked and normalized, its
 * example checked, its identifiers and generated symbols assigned (clash-checked), and the
 * toolset's validators compiled. `resolveDesign` calls it for toolsets and for `mcpServer`s.
 */
import type { JsonSchema, ToolDecl, ToolsetDecl } from "@toolwright/dsl";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { camelName, fileStem, memberName, pascalName } from "../emit/names.js";
import { DesignError, type DesignLocation } from "../errors.js";
import type { IrAnnotations, IrConnection, IrSchema, IrSurfaceFingerprints, IrTool, IrToolset, IrToolsetSource } from "../ir/ir.js";
import { exampleFromSchema } from "./example.js";
import { assignIdentifiers } from "./identifiers.js";
import { checkSchema, fieldDescriptions, normalizeSchema } from "./schema.js";
import { EMPTY_SURFACE, resolveSurface, type SurfaceSource } from "./surface.js";
import { checkClashes, toolSymbols, toolsetSymbols } from "./symbols.js";
import { compileValidators } from "./validators.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Where a toolset's tools came from. */
export interface Origin {
  readonly source: IrToolsetSource;
  readonly server: string;
  readonly fingerprint: string | undefined;
  readonly toolFingerprints: { readonly [tool: string]: string } | undefined;
  readonly connection?: IrConnection | undefined;
  readonly instructions?: string | null;
  readonly snapshots?: { readonly [tool: string]: unknown };
  /** Output folder, when not the toolset's own name (a server's tools live in `servers/<server>`). */
  readonly dirName?: string;
  /** Prompts, resources and templates, when not only the toolset's own (its server's, or the lock's merged with them). */
  readonly surface?: SurfaceSource;
  readonly surfaceFingerprints?: IrSurfaceFingerprints;
}

/** What resolving one toolset needs. */
export interface Ctx {
  readonly ajv: Ajv2020;
  readonly file: string;
  readonly toJson: (schema: unknown) => JsonSchema;
}

/**
 * Resolves one toolset over `decls` (its tools, from wherever `origin` says). Throws `DesignError`
 * naming file, toolset and tool on the first problem; returns a frozen `IrToolset`.
 */
export function resolveToolset(decl: ToolsetDecl, decls: readonly ToolDecl[], origin: Origin, ctx: Ctx): IrToolset {
  const { file } = ctx;
  const { source, server, fingerprint, toolFingerprints, connection, instructions, snapshots, surfaceFingerprints } = origin;
  const tools: IrTool[] = [];
  const names = {
    dirName: origin.dirName ?? fileStem(decl.name),
    pascalName: pascalName(decl.name),
    // `${camel}Requests` (a value) and `${Pascal}Requests` (a type) must differ even for names like "3d" or "..".
    camelName: camelName(decl.name) === pascalName(decl.name) ? `${camelName(decl.name)}_` : camelName(decl.name),
  };
  const ts: Mutable<IrToolset> = {
    kind: "toolset",
    name: decl.name,
    description: decl.description,
    server,
    connection,
    source,
    fingerprint,
    toolFingerprints,
    instructions,
    snapshots,
    ...(surfaceFingerprints ? { surfaceFingerprints } : {}),
    ...names,
    memberName: memberName(camelName(decl.name)),
    tools,
    symbols: toolsetSymbols(names),
    // Compiled below, once every tool has its symbols.
    validators: { code: "", helpers: [] },
    surface: EMPTY_SURFACE,
    toString: () => `toolset ${decl.name}`,
  };
  // Tool names are MCP wire names: a second tool of one name would shadow the first on every call.
  const seen = new Set<string>();
  for (const t of decls) {
    const loc = { file, toolset: decl.name, tool: String(t?.name) };
    if (typeof t?.name !== "string" || t.name === "") throw new DesignError({ file, toolset: decl.name }, "a tool has an empty name");
    if (seen.has(t.name)) throw new DesignError(loc, "duplicate tool name");
    seen.add(t.name);
    tools.push(resolveTool(t, ts, ctx, loc));
  }
  // Names a server chose cannot be renamed by the user; only designs the user wrote are refused.
  assignIdentifiers(tools as Mutable<IrTool>[], source === "lock", { file, toolset: decl.name });
  for (const t of tools as Mutable<IrTool>[]) t.symbols = toolSymbols(t, ts.dirName);
  // The toolset's index re-exports every module side by side: no two exports may share a name.
  checkClashes<IrTool | IrToolset>(
    [
      ...Object.values(ts.symbols).map((s) => [s, ts] as const),
      ...tools.flatMap((t) => Object.values(t.symbols).flatMap((s) => (s === undefined ? [] : [[s, t] as const]))),
    ],
    (owner) => (owner.kind === "tool" ? { file, toolset: decl.name, tool: owner.name } : { file, toolset: decl.name }),
    String,
  );
  Object.freeze(tools);
  // Validators need the final symbols (each validator is named after its tool), so they come last.
  ts.validators = compileValidators(ts, file);
  (ts as Mutable<IrToolset>).surface = resolveSurface(origin.surface ?? decl, tools, { file, toolset: decl.name }, source === "lock");
  return Object.freeze(ts);
}

/**
 * A tool's input or output schema as JSON Schema 2020-12: converted from the DSL (or taken as
 * pulled), normalized, and compiled once by ajv here, so an invalid schema fails at generation
 * with its pointer rather than in the generated validator at run time.
 */
function schemaOf(value: unknown, what: "input" | "output", ctx: Ctx, loc: DesignLocation): IrSchema {
  const { ajv } = ctx;
  let json: IrSchema["json"];
  try {
    // Named DSL types carry their definitions beside the JSON; gather them under $defs first.
    json = normalizeSchema(ctx.toJson(value));
  } catch (error) {
    // A DSL builder's mistake knows its node (`DslError.location.pointer`, from the design's DSL copy).
    const pointer = (error as { location?: { pointer?: unknown } } | null)?.location?.pointer;
    const at = { ...loc, schema: what, ...(typeof pointer === "string" ? { pointer } : {}) };
    throw new DesignError(at, `${what} schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problem = checkSchema(ajv, json);
  if (problem !== undefined)
    throw new DesignError(
      { ...loc, schema: what, ...(problem.pointer ? { pointer: problem.pointer } : {}) },
      `${what} schema: ${problem.message}`,
    );
  // MCP sends arguments as a JSON object (tools/call params.arguments); a $ref is resolved by ajv above.
  if (what === "input" && json.type !== "object" && json.$ref === undefined) {
    throw new DesignError(
      { ...loc, schema: what, pointer: "/" },
      'input schema: MCP tools take an object; the schema must have type "object"',
    );
  }
  return Object.freeze({ kind: "schema", json });
}

/** One tool: its schemas, its example (declared ones must validate), annotations and metadata. Identifiers come later. */
function resolveTool(t: ToolDecl, ts: IrToolset, ctx: Ctx, loc: DesignLocation): IrTool {
  const { ajv } = ctx;
  if (t.input === undefined) throw new DesignError(loc, "input schema is missing");
  const input = schemaOf(t.input, "input", ctx, loc);
  const output = t.output === undefined ? undefined : schemaOf(t.output, "output", ctx, loc);
  let exampleJson: string | undefined;
  let examplesJson: readonly string[] | undefined;
  const examples = t.examples ?? [];
  if (examples.length > 0) {
    // A wrong example is worse than none: it goes into the tool's spec and from there into the
    // correct_call failures a model reads, teaching it a call the server will refuse.
    const validate = ajv.compile(input.json);
    examples.forEach((example, i) => {
      if (!validate(example)) {
        const first = validate.errors?.[0];
        const where = first ? `${first.instancePath || "/"} ${first.message ?? ""}`.trim() : "";
        throw new DesignError(loc, `example ${i + 1} does not match the input schema (${where})`);
      }
    });
    exampleJson = JSON.stringify(examples[0]);
    // All of them for providers that take several (Anthropic's input_examples); one alone stays `exampleJson`.
    if (examples.length > 1) examplesJson = Object.freeze(examples.map((e) => JSON.stringify(e)));
  } else {
    // No declared example: build one from the schema when that can be done safely.
    const example = exampleFromSchema(input.json);
    if (example !== undefined) exampleJson = JSON.stringify(example);
  }
  const annotations = annotationsOf(t.annotations);
  const tool: Mutable<IrTool> = {
    kind: "tool",
    name: t.name,
    id: `${ts.name}.${t.name}`,
    // Set by assignIdentifiers once every tool of the toolset is known.
    localName: "",
    typeName: "",
    memberName: "",
    nameNote: undefined,
    providerName: "",
    toolset: ts,
    title: t.title,
    description: t.description,
    input,
    output,
    annotations,
    tags: t.tags && t.tags.length > 0 ? Object.freeze([...t.tags]) : undefined,
    exampleJson,
    examplesJson,
    requiresConfirmation: t.requiresConfirmation,
    meta: metaOf(t.meta, loc),
    task: t.task ? Object.freeze({ support: t.task.support, start: t.task.start ?? "immediate" }) : undefined,
    fieldDescriptions: Object.freeze(fieldDescriptions(input.json)),
    // Set with the identifiers, below.
    symbols: undefined as unknown as IrTool["symbols"],
    toString: () => `tool ${ts.name}.${t.name}`,
  };
  return tool;
}

/** A tool's `_meta`, normalized like a schema (it is printed into generated code as a literal); none when empty. */
function metaOf(meta: ToolDecl["meta"], loc: DesignLocation): JsonSchema | undefined {
  if (!meta || Object.keys(meta).length === 0) return undefined;
  try {
    return normalizeSchema(meta);
  } catch (error) {
    throw new DesignError(loc, `meta: ${error instanceof Error ? error.message.replace(/^schema /, "") : String(error)}`);
  }
}

/** The MCP tool annotations that are booleans; anything else is dropped, so a stray value never reaches generated code. */
function annotationsOf(a: ToolDecl["annotations"]): IrAnnotations | undefined {
  if (!a) return undefined;
  const out: Mutable<IrAnnotations> = {};
  for (const key of ["readOnly", "destructive", "idempotent", "openWorld"] as const) {
    if (typeof a[key] === "boolean") out[key] = a[key];
  }
  return Object.keys(out).length > 0 ? Object.freeze(out) : undefined;
}
