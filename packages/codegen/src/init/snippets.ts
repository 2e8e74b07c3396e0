/**
 * The source text `init` and `add` write for one server: its `externalServer(...)` declaration
 * reading the connection from an `mcp.json`, and the toolset that uses it.
 */
import { isAbsolute, relative, sep } from "node:path";
import { nameProblem } from "@toolwright/dsl";
import { stringLiteral } from "../emit/literal.js";
import { camelName } from "../emit/names.js";
import { FileError } from "../errors.js";
import { type PlaceEnv, portableMcpJson } from "../mcp-json/read-mcp-json.js";

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
 * design's folder for a file inside the project; for one outside, the application
 * (`{ app: "claude-desktop" }`) or a `~/` path, found per machine when loaded, so the design holds
 * no one's home directory. Only a file outside both keeps its absolute path.
 */
export function mcpJsonCall(
  designDir: string,
  projectDir: string,
  file: string,
  entry: string | undefined,
  quote: string,
  local: (name: string) => string = (n) => n,
  env: PlaceEnv = process.env,
): string {
  const q = (text: string) => quoted(text, quote);
  const options = entry === undefined ? "" : `, { entry: ${q(entry)} }`;
  const inProject = !relative(projectDir, file).startsWith("..") && !isAbsolute(relative(projectDir, file));
  const portable = inProject ? undefined : portableMcpJson(file, env);
  if (portable !== undefined && "app" in portable) return `${local("mcpJson")}({ app: ${q(portable.app)} }${options})`;
  const path = inProject ? relative(designDir, file).split(sep).join("/") : (portable?.path ?? file.split(sep).join("/"));
  if (path === ".toolwright/mcp.json" && options === "") return `${local("mcpJson")}()`;
  return `${local("mcpJson")}(${q(path)}${options})`;
}

/** How the design's comments name the file: its path in the project, `Claude Desktop's config`, `~/...`. */
export function mcpJsonLabel(projectDir: string, file: string, env: PlaceEnv = process.env): string {
  const rel = relative(projectDir, file);
  if (!rel.startsWith("..") && !isAbsolute(rel)) return rel.split(sep).join("/");
  const portable = portableMcpJson(file, env);
  if (portable === undefined) return file.split(sep).join("/");
  return "app" in portable ? `${portable.app} config` : portable.path;
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
