/**
 * Code-mode plugin: `<toolset>/code-mode.gen.ts`, the API a model programs against in code mode,
 * as plain data (issue 27). Per toolset:
 *
 * - `declarations`: one `declare namespace <toolset> { ... }` with a payload type, a result type
 *   (from `outputSchema`; `unknown` where a tool declares none) and an async function per tool,
 *   JSDoc from the description, annotations and example;
 * - `prelude`: the `ToolError` every tool function throws (the same text in every module);
 * - a progressive layout: `index` (one line per tool: its signature and a one-line summary) and
 *   `details` (the full, self-contained declaration of one tool), each with its o200k token count,
 *   so a model can search and describe instead of reading everything.
 *
 * Tools are sorted by wire name and nothing depends on time or paths, so the text is the same on
 * every run and provider prompt caches stay warm. Text from the lock reaches the declarations only
 * through `docText` (JSDoc) and json-schema-to-typescript (types); names only through the resolver's
 * identifiers. The module imports nothing: the code-mode package reads it structurally.
 */
import { fileHeader } from "../emit/generated-file.js";
import { docName, docText, printLiteral } from "../emit/literal.js";
import type { IrDesign, IrTool, IrToolset } from "../ir/ir.js";
import { countTokens } from "../tokens/count.js";
import { CODE_MODE_GLOBALS, codeModePrelude, LOWER_CASE_GLOBALS } from "./code-mode-prelude.js";
import type { Plugin } from "./plugin.js";
import { printToolsetTypeParts } from "./types.js";

/** One line of the index: what `search` shows for a tool. */
export interface CodeModeIndexEntry {
  /** Wire name: `get-sum`. */
  readonly tool: string;
  /** Function name in the namespace: `getSum`. */
  readonly name: string;
  /** `everything.getSum(input: GetSumPayload): Promise<GetSumResult>`. */
  readonly signature: string;
  /** First sentence of the description (or the title), on one line; empty when it has neither. */
  readonly summary: string;
  /** The text shown to a model: the signature, then `// summary`. */
  readonly line: string;
  /** o200k tokens of `line`. */
  readonly tokens: number;
}

/** The code-mode API of one toolset, as printed into `code-mode.gen.ts`. */
export interface CodeModeApiData {
  readonly toolset: string;
  /** The global namespace the program calls tools through: `everything.getSum(...)`. */
  readonly namespace: string;
  /** `ToolError` and its kinds (identical in every module). */
  readonly prelude: string;
  readonly preludeTokens: number;
  /** The whole toolset as one `declare namespace`. */
  readonly declarations: string;
  readonly tokens: number;
  /** One entry per tool, sorted by wire name. */
  readonly index: readonly CodeModeIndexEntry[];
  /** Function name → the tool's self-contained declaration (types it uses included). */
  readonly details: { readonly [name: string]: { readonly text: string; readonly tokens: number } };
  /** Function name → wire name. */
  readonly bindings: { readonly [name: string]: string };
}

/** The namespace a toolset's tools are called through: its member name, kept off the globals. */
export function codeModeNamespace(ts: Pick<IrToolset, "memberName">): string {
  return LOWER_CASE_GLOBALS.has(ts.memberName) ? `${ts.memberName}_` : ts.memberName;
}

const byName = (a: IrTool, b: IrTool) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Every identifier in `text`: enough to find which shared definitions a printed type names. */
const identifiers = (text: string) => new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? []);

/** `description` or `title`, first sentence, one line, at most 120 characters. */
export function summaryOf(tool: Pick<IrTool, "description" | "title">): string {
  // U+0085 (NEL) is not `\s` in JavaScript, but some readers end a line there.
  const text = (tool.description ?? tool.title ?? "").replace(/[\s\u0085]+/g, " ").trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  return sentence.length <= 120 ? sentence : `${sentence.slice(0, 119)}…`;
}

/** A tool's input is optional when its payload requires no field (`input?:`). */
function inputOptional(tool: IrTool): boolean {
  const json = tool.input.json as { required?: unknown; anyOf?: unknown; oneOf?: unknown; allOf?: unknown };
  if (json.anyOf !== undefined || json.oneOf !== undefined || json.allOf !== undefined) return false;
  return !Array.isArray(json.required) || json.required.length === 0;
}

function signatureOf(tool: IrTool): { readonly params: string; readonly returns: string } {
  const input = `input${inputOptional(tool) ? "?" : ""}: ${tool.symbols.payload.name}`;
  return { params: `(${input})`, returns: `Promise<${tool.output ? tool.symbols.result.name : "unknown"}>` };
}

function annotationWords(tool: IrTool): string[] {
  const a = tool.annotations;
  if (a === undefined) return [];
  return [
    ...(a.readOnly ? ["read-only"] : []),
    ...(a.destructive ? ["destructive"] : []),
    ...(a.idempotent ? ["idempotent"] : []),
    ...(a.openWorld ? ["open-world"] : []),
  ];
}

/** The JSDoc and declaration of a tool's function. */
function functionDeclaration(tool: IrTool, namespace: string): string {
  const lines: string[] = [];
  const about = tool.description ?? tool.title;
  if (about !== undefined && about.trim() !== "") lines.push(docText(about.trim()));
  const words = annotationWords(tool);
  lines.push(`Tool ${docName(tool.name)}${words.length > 0 ? ` (${words.join(", ")})` : ""}.`);
  if (tool.exampleJson !== undefined) lines.push(`@example await ${namespace}.${tool.memberName}(${docText(tool.exampleJson)})`);
  const { params, returns } = signatureOf(tool);
  return `/**\n * ${lines.join("\n * ")}\n */\nexport function ${tool.memberName}${params}: ${returns};`;
}

/**
 * One-line JSDoc comments on one line: `/** Page size *\/` rather than three lines, about a fifth
 * fewer tokens in a model's context. The text inside was escaped when printed (it holds no `*\/`),
 * and moving it onto the opening line keeps it inside the same comment.
 */
export function compactComments(text: string): string {
  return text.replace(/\/\*\*\n[ \t]* \* ([^\n]*)\n[ \t]* \*\//g, (_m, line: string) => `/** ${line.trimEnd()} */`);
}

const indentBy = (text: string, pad: string) =>
  text
    .split("\n")
    .map((line) => (line === "" ? line : `${pad}${line}`))
    .join("\n");

function namespaceBlock(namespace: string, doc: string | undefined, parts: readonly string[]): string {
  const head = doc === undefined ? "" : `/** ${doc} */\n`;
  return `${head}declare namespace ${namespace} {\n${indentBy(parts.join("\n\n"), "  ")}\n}\n`;
}

/** Builds the code-mode API of one toolset. */
export async function buildCodeModeApi(ts: IrToolset): Promise<CodeModeApiData> {
  const namespace = codeModeNamespace(ts);
  const tools = [...ts.tools].sort(byName);
  // `export` inside `declare namespace` makes `everything.EchoPayload` nameable by the program.
  const { tools: printed, definitions } = await printToolsetTypeParts(ts, (kind, name) => `export ${kind} ${name}`, {
    tools,
    reserved: CODE_MODE_GLOBALS,
    // The function's JSDoc carries the description; saying it again on its types would double its tokens.
    doc: (tool, what) => `${what === "Payload" ? "Input" : "Result"} of ${namespace}.${tool.memberName}.`,
  });
  const defText = new Map(definitions.map((d) => [d.name, compactComments(d.text)]));
  const defOrder = new Map(definitions.map((d, i) => [d.name, i]));
  // Which shared definitions a text needs, transitively (a definition may name others).
  const needs = (texts: readonly string[]): string[] => {
    const found = new Set<string>();
    const queue = [...texts];
    while (queue.length > 0) {
      for (const id of identifiers(queue.pop()!)) {
        const def = defText.get(id);
        if (def === undefined || found.has(id)) continue;
        found.add(id);
        queue.push(def);
      }
    }
    return [...found].sort((a, b) => defOrder.get(a)! - defOrder.get(b)!);
  };
  const toolsetDoc = `Toolset ${docName(ts.name)}${ts.description ? `: ${docText(ts.description)}` : ""}`;
  const whole: string[] = [];
  const index: CodeModeIndexEntry[] = [];
  const details: { [name: string]: { text: string; tokens: number } } = {};
  const bindings: { [name: string]: string } = {};
  for (const { tool, payload, result } of printed) {
    const own = [payload, ...(result === undefined ? [] : [result]), functionDeclaration(tool, namespace)].map(compactComments);
    whole.push(...own);
    const text = namespaceBlock(namespace, toolsetDoc, [...own.slice(0, -1), ...needs(own).map((n) => defText.get(n)!), own.at(-1)!]);
    details[tool.memberName] = { text, tokens: countTokens(text) };
    bindings[tool.memberName] = tool.name;
    const { params, returns } = signatureOf(tool);
    const signature = `${namespace}.${tool.memberName}${params}: ${returns}`;
    const summary = summaryOf(tool);
    const line = summary === "" ? signature : `${signature} // ${summary}`;
    index.push({ tool: tool.name, name: tool.memberName, signature, summary, line, tokens: countTokens(line) });
  }
  for (const def of definitions) whole.push(defText.get(def.name)!);
  const declarations = namespaceBlock(namespace, toolsetDoc, whole);
  const prelude = codeModePrelude();
  return {
    toolset: ts.name,
    namespace,
    prelude,
    preludeTokens: countTokens(prelude),
    declarations,
    tokens: countTokens(declarations),
    index,
    details,
    bindings,
  };
}

/**
 * The type of the exported object, written out in each module so it imports nothing and still
 * compiles under `isolatedDeclarations` (the same shape as `CodeModeApi` in `@toolwright/code-mode`).
 */
const API_TYPE = [
  "interface CodeModeApiData {",
  "  readonly toolset: string;",
  "  readonly namespace: string;",
  "  readonly prelude: string;",
  "  readonly preludeTokens: number;",
  "  readonly declarations: string;",
  "  readonly tokens: number;",
  "  readonly index: readonly {",
  "    readonly tool: string;",
  "    readonly name: string;",
  "    readonly signature: string;",
  "    readonly summary: string;",
  "    readonly line: string;",
  "    readonly tokens: number;",
  "  }[];",
  "  readonly details: { readonly [name: string]: { readonly text: string; readonly tokens: number } };",
  "  readonly bindings: { readonly [name: string]: string };",
  "}",
].join("\n");

/** Emits `<toolset>/code-mode.gen.ts`. */
export const codeModePlugin: Plugin = {
  name: "code-mode",
  async emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const api = await buildCodeModeApi(ts);
      const f = out.file(`${ts.dirName}/code-mode.gen.ts`, fileHeader(ir.file, ts.name));
      const type = f.declare("CodeModeApiData");
      f.print(
        "/** The shape `@toolwright/code-mode` reads (its `CodeModeApi`), written out so this module imports nothing. */",
        API_TYPE.replace("CodeModeApiData", type),
        "",
        "/**",
        ` * The code-mode API of toolset ${docName(ts.name)}: TypeScript declarations for a model's program, an index`,
        " * with one line per tool and per-tool details, each with its o200k token count. Plain data; pass it to",
        " * `@toolwright/code-mode`.",
        " */",
        `${f.export("const", ts.symbols.codeMode.name)}: ${type} = ${printLiteral(api)};`,
      );
    }
  },
};
