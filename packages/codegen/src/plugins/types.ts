/**
 * Types plugin: `<toolset>/types.gen.ts` with a payload and a result type per tool, printed by
 * json-schema-to-typescript. `$ref`s are replaced by named types before printing, so shared and
 * recursive definitions are declared once and the printer never resolves anything itself.
 */
import type { JsonSchema } from "@toolwright/dsl";
import { compile } from "json-schema-to-typescript";
import { type ExportRecord, fileHeader, isTypeExport } from "../emit/generated-file.js";
import { docName } from "../emit/literal.js";
import { pascalName } from "../emit/names.js";
import type { IrDesign, IrSchema, IrTool, IrToolset } from "../ir/ir.js";
import { resolvePointer } from "../resolve/schema.js";
import type { Plugin } from "./plugin.js";

type Node = { [key: string]: unknown };

const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);
const DROPPED = new Set(["title", "$defs", "definitions", "$id", "$schema", "$comment", "$anchor", "$dynamicAnchor"]);

/** Named definitions shared by every schema of one toolset. */
interface TypeRegistry {
  /** Type name → canonical JSON of the definition it stands for. */
  readonly defs: Map<string, string>;
  /** Declarations still to print, in first-use order. */
  readonly pending: {
    readonly name: string;
    readonly schema: JsonSchema;
    readonly names: Map<string, string>;
    readonly root: JsonSchema;
  }[];
  readonly taken: Set<string>;
}

function defsOf(schema: JsonSchema): [string, string, unknown][] {
  const out: [string, string, unknown][] = [];
  for (const keyword of ["$defs", "definitions"]) {
    const defs = schema[keyword];
    if (typeof defs === "object" && defs !== null) for (const [k, v] of Object.entries(defs)) out.push([keyword, k, v]);
  }
  return out;
}

/** Names the definitions of `schema`, registering new ones; returns ref → type name. */
function nameDefinitions(schema: JsonSchema, rootName: string, registry: TypeRegistry): Map<string, string> {
  const names = new Map<string, string>([["#", rootName]]);
  for (const [keyword, key, def] of defsOf(schema)) {
    const canonical = JSON.stringify(def);
    let name = pascalName(key);
    if (registry.taken.has(name) && registry.defs.get(name) !== canonical) name = `${rootName}${pascalName(key)}`;
    let n = 2;
    const base = name;
    while (registry.taken.has(name) && registry.defs.get(name) !== canonical) name = `${base}${n++}`;
    names.set(`#/${keyword}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, name);
    if (!registry.taken.has(name)) {
      registry.taken.add(name);
      registry.defs.set(name, canonical);
      registry.pending.push({ name, schema: def as JsonSchema, names, root: schema });
    }
  }
  return names;
}

/** Rewrites a schema for printing: refs become `tsType` names, titles and 2020-only spellings go. */
function forPrinting(node: unknown, root: JsonSchema, names: Map<string, string>, inlining: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => forPrinting(n, root, names, inlining));
  if (typeof node !== "object" || node === null) return node;
  const n = node as Node;
  if (typeof n.$ref === "string") {
    const ref = decodeURIComponent(n.$ref);
    const named = names.get(ref) ?? names.get(n.$ref);
    const description = typeof n.description === "string" ? { description: n.description } : {};
    if (named !== undefined) return { tsType: named, ...description };
    // A pointer into the middle of the schema: print the target inline, once per path.
    if (inlining.has(ref)) return { tsType: "unknown", ...description };
    inlining.add(ref);
    const target = forPrinting(resolvePointer(root, ref), root, names, inlining);
    inlining.delete(ref);
    return { ...(target as Node), ...description };
  }
  const out: Node = {};
  for (const [k, v] of Object.entries(n)) {
    if (DROPPED.has(k) || k === "tsType" || k === "tsEnumNames") continue;
    out[k] = DATA_KEYWORDS.has(k)
      ? v
      : k === "properties" || k === "patternProperties"
        ? mapValues(v, root, names, inlining)
        : forPrinting(v, root, names, inlining);
  }
  const tags = constraintTags(n);
  if (tags.length > 0) out.description = [typeof out.description === "string" ? out.description : "", ...tags].join("\n").trim();
  if (Array.isArray(out.prefixItems)) {
    // The printer knows tuples by their draft-07 spelling.
    const rest = out.items;
    out.items = out.prefixItems;
    delete out.prefixItems;
    out.additionalItems = rest ?? true;
  }
  return out;
}

const CONSTRAINT_KEYWORDS = [
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "default",
];

/** JSDoc tags for constraints a TypeScript type cannot express (`@format email`, `@minimum 0`). */
function constraintTags(node: Node): string[] {
  const tags: string[] = [];
  for (const key of CONSTRAINT_KEYWORDS) {
    const value = node[key];
    if (value === undefined || (typeof value === "object" && value !== null)) continue;
    tags.push(`@${key} ${typeof value === "string" && key !== "format" && key !== "pattern" ? JSON.stringify(value) : String(value)}`);
  }
  const examples = node.examples;
  if (Array.isArray(examples) && examples.length > 0) {
    const text = JSON.stringify(examples[0]);
    if (text !== undefined && text.length <= 120) tags.push(`@example ${text}`);
  }
  return tags;
}

function mapValues(v: unknown, root: JsonSchema, names: Map<string, string>, inlining: Set<string>): unknown {
  if (typeof v !== "object" || v === null) return v;
  const out: Node = {};
  for (const [k, child] of Object.entries(v)) out[k] = forPrinting(child, root, names, inlining);
  return out;
}

// json-schema-to-typescript rewrites root names (`U691cPayload` → `U691CPayload`); print under a
// placeholder and put the exact name back, so every file agrees on it.
const PLACEHOLDER = "ToolwrightRootTypePlaceholder";

/** Declares an export and returns the text that opens it (`GeneratedFile.export`). */
export type ExportAs = (kind: ExportRecord["kind"], name: string) => string;

const plainExport: ExportAs = (kind, name) => `export ${kind} ${name}`;

async function print(schema: unknown, name: string, exportAs: ExportAs): Promise<string> {
  const text = await compile(schema as Parameters<typeof compile>[0], PLACEHOLDER, {
    bannerComment: "",
    declareExternallyReferenced: true,
    ignoreMinAndMaxItems: true,
    unknownAny: true,
    strictIndexSignatures: false,
    // Prettier would be 85% of the printing time; `indent` below is enough for this output.
    format: false,
    $refOptions: { resolve: { external: false } } as Parameters<typeof compile>[2] extends infer O
      ? O extends { $refOptions?: infer R }
        ? R
        : never
      : never,
  });
  // The printer declares exactly one name, the placeholder; declare it through `exportAs`.
  let declared = 0;
  const opened = text.replace(new RegExp(`^export (interface|type) ${PLACEHOLDER}\\b`, "m"), (_m, kind: "interface" | "type") => {
    declared++;
    return exportAs(kind, name);
  });
  if (declared !== 1) throw new Error(`internal: json-schema-to-typescript did not declare ${name}`);
  return indent(opened.replace(new RegExp(`\\b${PLACEHOLDER}\\b`, "g"), name).trim());
}

/** Brace and bracket balance of one line (parentheses only group unions), ignoring string literals. */
function brackets(line: string): { readonly leadingClosers: number; readonly net: number } {
  let net = 0;
  let leading = 0;
  let quote = "";
  let start = true;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote !== "") {
      if (ch === "\\") i++;
      else if (ch === quote) quote = "";
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "`") {
      quote = ch;
      start = false;
    } else if (ch === "{" || ch === "[") {
      net++;
      start = false;
    } else if (ch === "}" || ch === "]") {
      net--;
      if (start) leading++;
    } else if (ch !== " " && ch !== ")" && ch !== "(") {
      start = false;
    }
  }
  return { leadingClosers: leading, net };
}

/** Indents json-schema-to-typescript's unformatted output by bracket depth, two spaces a level. */
export function indent(text: string): string {
  let depth = 0;
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") {
      out.push("");
      continue;
    }
    if (line.startsWith("/*") || line.startsWith("*")) {
      out.push(`${"  ".repeat(depth)}${line.startsWith("*") ? " " : ""}${line}`);
      continue;
    }
    const { leadingClosers, net } = brackets(line);
    out.push(`${"  ".repeat(Math.max(0, depth - leadingClosers))}${line}`);
    depth = Math.max(0, depth + net);
  }
  return out.join("\n");
}

async function typeFor(schema: IrSchema, name: string, registry: TypeRegistry, doc: string, exportAs: ExportAs): Promise<string> {
  const names = nameDefinitions(schema.json, name, registry);
  const printable = forPrinting(schema.json, schema.json, names, new Set()) as Node;
  const description = typeof printable.description === "string" ? printable.description : "";
  return print({ ...printable, description: description === "" ? doc : `${doc}\n\n${description}` }, name, exportAs);
}

function toolDoc(tool: IrTool, what: "Payload" | "Result"): string {
  const about = tool.description ?? tool.title;
  const head = what === "Payload" ? `Payload of ${JSON.stringify(tool.name)}` : `Structured result of ${JSON.stringify(tool.name)}`;
  return about === undefined ? `${head}.` : `${head}: ${about}`;
}

/** The printed types of one tool: its payload, and its result when it declares an output schema. */
export interface ToolTypeParts {
  readonly tool: IrTool;
  readonly payload: string;
  /** Absent when the tool declares no output schema. */
  readonly result: string | undefined;
}

/** A toolset's types, printed but not yet joined: per tool, then the shared definitions in first-use order. */
export interface ToolsetTypeParts {
  readonly tools: readonly ToolTypeParts[];
  readonly definitions: readonly { readonly name: string; readonly text: string }[];
}

/**
 * Prints the types of `tools` (default: the toolset's, in declaration order). `reserved` names are
 * never given to a shared definition (code mode reserves the globals its declarations use, such as
 * `Promise`, so no schema `$defs` key can shadow them).
 */
export async function printToolsetTypeParts(
  ts: IrToolset,
  exportAs: ExportAs = plainExport,
  options: {
    readonly tools?: readonly IrTool[];
    readonly reserved?: readonly string[];
    /** The JSDoc head of a payload or result type (default: "Payload of <name>: <description>"). */
    readonly doc?: (tool: IrTool, what: "Payload" | "Result") => string;
  } = {},
): Promise<ToolsetTypeParts> {
  // Type names the toolset's other modules export: index.ts re-exports them all side by side.
  const reserved = Object.values(ts.symbols).filter((s) => isTypeExport(s.declare));
  const registry: TypeRegistry = {
    defs: new Map(),
    pending: [],
    taken: new Set([...reserved.map((s) => s.name), ...(options.reserved ?? [])]),
  };
  for (const tool of ts.tools) {
    registry.taken.add(tool.symbols.payload.name);
    registry.taken.add(tool.symbols.result.name);
  }
  // The prompt and template types client.gen.ts exports beside these in the index.
  for (const item of [...ts.surface.prompts, ...ts.surface.resourceTemplates]) registry.taken.add(item.typeName);
  const tools: ToolTypeParts[] = [];
  const doc = options.doc ?? toolDoc;
  for (const tool of options.tools ?? ts.tools) {
    const { payload, result } = tool.symbols;
    tools.push({
      tool,
      payload: await typeFor(tool.input, payload.name, registry, doc(tool, "Payload"), exportAs),
      result: tool.output ? await typeFor(tool.output, result.name, registry, doc(tool, "Result"), exportAs) : undefined,
    });
  }
  const definitions: { name: string; text: string }[] = [];
  // Definitions may name further definitions; print until none are left.
  for (let i = 0; i < registry.pending.length; i++) {
    const def = registry.pending[i]!;
    // Refs inside a definition are relative to the document it came from.
    definitions.push({ name: def.name, text: await print(forPrinting(def.schema, def.root, def.names, new Set()), def.name, exportAs) });
  }
  return { tools, definitions };
}

/** Prints every type of one toolset, declaring each export through `exportAs`. */
export async function printToolsetTypes(ts: IrToolset, exportAs: ExportAs = plainExport): Promise<string> {
  const { tools, definitions } = await printToolsetTypeParts(ts, exportAs);
  const parts: string[] = [];
  for (const { tool, payload, result } of tools) {
    parts.push(payload);
    if (result !== undefined) parts.push(result);
    else
      parts.push(
        `/** What ${docName(tool.name)} returns: its text content, joined by newlines (it declares no output schema). */\n${exportAs("type", tool.symbols.result.name)} = string;`,
      );
  }
  for (const def of definitions) parts.push(def.text);
  return parts.join("\n\n");
}

/** Emits `<toolset>/types.gen.ts`. */
export const typesPlugin: Plugin = {
  name: "types",
  async emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const f = out.file(`${ts.dirName}/types.gen.ts`, fileHeader(ir.file, ts.name));
      f.print(await printToolsetTypes(ts, (kind, name) => f.export(kind, name)));
    }
  },
};
