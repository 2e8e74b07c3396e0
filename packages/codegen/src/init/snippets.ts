/**
 * The source text `init` and `add` write for one server: its `externalServer(...)` declaration
 * reading the connection from an `mcp.json`, and the toolset that uses it.
 */
import { isAbsolute, relative, sep } from "node:path";
import { nameProblem } from "@toolwright/dsl";
import { stringLiteral } from "../emit/literal.js";
import { camelName } from "../emit/names.js";
import { FileError } from "../errors.js";

/** The DSL functions the snippets call; a server identifier must not shadow them. */
export const DSL_IMPORTS = ["design", "externalServer", "fromMCP", "mcpJson", "toolset"] as const;

/** A free identifier for a server's constant: `memory`, `myServer`, `designServer` (never a DSL import), `memory2`. */
export function serverIdentifier(name: string, taken: ReadonlySet<string>): string {
  let base = camelName(name);
  if ((DSL_IMPORTS as readonly string[]).includes(base) || base === "default") base = `${base}Server`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
  return id;
}

/**
 * How a design refers to an `mcp.json`: `mcpJson()` for the project's own, the path from the
 * design's folder for a file inside the project, the absolute path for one outside (Claude Desktop's).
 */
export function mcpJsonCall(
  designDir: string,
  projectDir: string,
  file: string,
  entry: string | undefined,
  quote: string,
  local: (name: string) => string = (n) => n,
): string {
  const inProject = !relative(projectDir, file).startsWith("..") && !isAbsolute(relative(projectDir, file));
  const path = inProject ? relative(designDir, file).split(sep).join("/") : file.split(sep).join("/");
  const q = (text: string) => quoted(text, quote);
  const options = entry === undefined ? "" : `, { entry: ${q(entry)} }`;
  if (path === ".toolwright/mcp.json" && options === "") return `${local("mcpJson")}()`;
  return `${local("mcpJson")}(${q(path)}${options})`;
}

/** A string literal in the file's quote style (`stringLiteral`, the one escaping helper). */
export function quoted(text: string, quote: string): string {
  return stringLiteral(text, quote === "'" ? "'" : '"');
}

/** `externalServer("memory", mcpJson())`. */
export function serverExpression(name: string, call: string, quote: string, local: (name: string) => string = (n) => n): string {
  return `${local("externalServer")}(${quoted(name, quote)}, ${call})`;
}

/** `toolset("memory", fromMCP(memory))`. */
export function toolsetExpression(name: string, identifier: string, quote: string, local: (name: string) => string = (n) => n): string {
  return `${local("toolset")}(${quoted(name, quote)}, ${local("fromMCP")}(${identifier}))`;
}

/**
 * Refuses a server name from an `mcp.json` that the design loader would refuse (`externalServer`
 * takes no control characters or line separators), before `init` or `add` writes it: the same rule
 * and the same words for both. Throws `FileError` naming the file and the server.
 */
export function checkConfigName(file: string, name: string): void {
  const problem = nameProblem(name);
  if (problem !== undefined) throw new FileError(file, `the server name ${problem}; rename it there (a design cannot declare it)`, name);
}
