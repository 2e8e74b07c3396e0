/**
 * Declaration-time checks for one tool definition. The code generator's resolver validates the
 * whole design again (with the design file's name); these checks catch typos where they are made.
 */
import type { createSurfaceCollector } from "./design-surface.js";
import type { ToolDecl, ToolDefinition, ToolsetBuilder } from "./design-types.js";
import { assertJson, fail, isPlainObject, locate, problemOf, show } from "./errors.js";
import { isSchema, type JsonSchema } from "./schema.js";

const DEFINITION_KEYS = [
  "title",
  "description",
  "input",
  "output",
  "annotations",
  "tags",
  "examples",
  "requiresConfirmation",
  "meta",
  "task",
];
const ANNOTATION_KEYS = ["readOnly", "destructive", "idempotent", "openWorld"];

function schemaJson(where: string, what: string, value: unknown): JsonSchema {
  if (isSchema(value)) return value.json;
  if (isPlainObject(value)) {
    assertJson(where, what, value);
    return value;
  }
  return fail(where, `${what} must be a schema builder such as object({...}) or a JSON Schema object; got ${show(value)}`);
}

// An object schema, a named type, or raw JSON without `type` is accepted; only a clear non-object
// type is rejected here (a named type is checked by the resolver once its definition is known).
function checkObjectSchema(where: string, what: string, json: JsonSchema): void {
  const type = json.type;
  if (type === undefined || type === "object" || (Array.isArray(type) && type.includes("object"))) return;
  fail(where, `${what} must describe an object (MCP requires type "object"); got type ${JSON.stringify(type)}`);
}

/** Checks a tool definition; `where` reads like `toolset "docs", tool "search"`. */
export function checkToolDefinition(where: string, definition: unknown): void {
  if (!isPlainObject(definition)) fail(where, `the definition must be an object such as { input: object({...}) }; got ${show(definition)}`);
  for (const key of Object.keys(definition)) {
    if (!DEFINITION_KEYS.includes(key)) fail(where, `unknown field "${key}" (allowed: ${DEFINITION_KEYS.join(", ")})`);
  }
  const d = definition as { [key: string]: unknown };
  if (d.input === undefined) fail(where, "input is required; use object({}) for a tool without arguments");
  checkObjectSchema(where, "input", schemaJson(where, "input", d.input));
  if (d.output !== undefined) checkObjectSchema(where, "output", schemaJson(where, "output", d.output));
  for (const key of ["title", "description"] as const) {
    if (d[key] !== undefined && typeof d[key] !== "string") fail(where, `${key} must be a string; got ${show(d[key])}`);
  }
  if (d.annotations !== undefined) {
    if (!isPlainObject(d.annotations)) fail(where, "annotations must be an object such as { readOnly: true }");
    for (const [key, value] of Object.entries(d.annotations)) {
      if (!ANNOTATION_KEYS.includes(key)) fail(where, `unknown annotation "${key}" (allowed: ${ANNOTATION_KEYS.join(", ")})`);
      if (typeof value !== "boolean") fail(where, `annotation ${key} must be a boolean; got ${show(value)}`);
    }
  }
  if (d.tags !== undefined) {
    if (!Array.isArray(d.tags) || d.tags.some((t) => typeof t !== "string" || t === ""))
      fail(where, "tags must be an array of non-empty strings");
  }
  if (d.examples !== undefined) {
    if (!Array.isArray(d.examples)) fail(where, "examples must be an array of example payloads");
    assertJson(where, "examples", d.examples);
    d.examples.forEach((example, i) => {
      if (!isPlainObject(example)) fail(where, `example ${i + 1} must be an object payload; got ${show(example)}`);
    });
  }
  if (d.requiresConfirmation !== undefined && typeof d.requiresConfirmation !== "boolean")
    fail(where, "requiresConfirmation must be a boolean");
  if (d.meta !== undefined) {
    if (!isPlainObject(d.meta)) fail(where, "meta must be an object");
    assertJson(where, "meta", d.meta);
  }
  if (d.task !== undefined) {
    const task = d.task as { [key: string]: unknown };
    if (!isPlainObject(task) || (task.support !== "optional" && task.support !== "required"))
      fail(where, `task must be { support: "optional" | "required", start?: "immediate" | "after-input" }; got ${show(d.task)}`);
    if (task.start !== undefined && task.start !== "immediate" && task.start !== "after-input")
      fail(where, `task.start must be "immediate" or "after-input"; got ${show(task.start)}`);
    for (const key of Object.keys(task))
      if (key !== "support" && key !== "start") fail(where, `unknown task field "${key}" (allowed: support, start)`);
  }
}

// C0 and C1 control characters, DEL, and the line and paragraph separators: none belongs in a name,
// and each ends a line somewhere (a terminal, a log, a `//` comment in generated code).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject.
const NAME_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * What is wrong with a tool, toolset, server or agent name (`contains control character U+000A`),
 * or `undefined` when it is acceptable. The design loader and `toolwright init`/`add` apply this
 * one rule, so a name one of them accepts is accepted by all.
 */
export function nameProblem(name: string): string | undefined {
  const bad = NAME_FORBIDDEN.exec(name)?.[0];
  if (bad === undefined) return undefined;
  const code = `U+${bad.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  return bad === "\u2028" || bad === "\u2029" ? `contains line separator ${code}` : `contains control character ${code}`;
}

/** Checks a tool or server name: a non-empty string without control characters or line separators. */
export function checkName(where: string, what: string, name: unknown): asserts name is string {
  if (typeof name !== "string" || name.trim() === "") fail(where, `${what} must be a non-empty string; got ${show(name)}`);
  const problem = nameProblem(name);
  if (problem !== undefined) fail(where, `${what} ${show(name)} ${problem}`);
}

/** `externalServer` overrides: the pulled lock brings the server's prompts and resources; saying so beats dropping them. */
function notHere(where: string) {
  const refuse = (what: string) => () =>
    fail(where, `${what} is declared in a toolset(...) or an mcpServer(...), not here (toolwright pull records a live server's own)`);
  return { prompt: refuse("a prompt"), resource: refuse("a resource"), resourceTemplate: refuse("a resource template") };
}

/** Collects the tools of a build callback or array, failing on duplicates. Internal to the DSL. */
export function collectTools(
  where: string,
  build: unknown,
  onDescription: (text: string) => void,
  surface: Pick<ReturnType<typeof createSurfaceCollector>, "prompt" | "resource" | "resourceTemplate"> = notHere(where),
): ToolDecl[] {
  const tools: ToolDecl[] = [];
  const names = new Set<string>();
  const add = (decl: ToolDecl) =>
    locate({ tool: decl.name }, () => {
      // A standalone tool(...) could not say which toolset it is in; this is where it is reported.
      const problem = problemOf(decl);
      if (problem) fail(`${where}, ${problem.where}`, problem.detail);
      if (names.has(decl.name)) fail(where, `tool "${decl.name}" is declared twice`);
      names.add(decl.name);
      tools.push(decl);
    });
  if (typeof build === "function") {
    build({
      tool: (toolName: string, definition: ToolDefinition) => {
        checkName(where, "the tool name", toolName);
        locate({ tool: toolName }, () => checkToolDefinition(`${where}, tool "${toolName}"`, definition));
        add(Object.freeze({ ...definition, kind: "tool", name: toolName }));
      },
      description: (text: string) => {
        if (typeof text !== "string") fail(where, "description must be a string");
        onDescription(text);
      },
      prompt: surface.prompt,
      resource: surface.resource,
      resourceTemplate: surface.resourceTemplate,
    } satisfies ToolsetBuilder);
  } else if (Array.isArray(build)) {
    build.forEach((decl: unknown, i) => {
      if (!isPlainObject(decl) || decl.kind !== "tool") fail(where, `tools[${i}] must be made with tool(name, {...}); got ${show(decl)}`);
      add(decl as unknown as ToolDecl);
    });
  } else if (build !== undefined) {
    fail(where, `the third argument must be a build function or an array of tool(...); got ${show(build)}`);
  }
  return tools;
}
