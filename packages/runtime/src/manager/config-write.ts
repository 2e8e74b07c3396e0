/**
 * Writing one server entry into an `mcp.json` atomically (temp file plus rename), keeping the other
 * entries, their order and the file's indentation.
 */
import { readFileSync } from "node:fs";
import { McpConfigError } from "./config-load.js";
import type { RawServerConfig } from "./config-types.js";
import { JsoncError, readJsonc } from "./jsonc.js";
import { writeFileSafe } from "./safe-write.js";

/** The indentation a JSON text uses (the first indented line), default two spaces. */
export function detectIndent(text: string): string {
  const match = /^([ \t]+)\S/m.exec(text);
  return match?.[1] ?? "  ";
}

/** Options for `writeServerEntry`. */
export interface WriteEntryOptions {
  /** Replace an entry of the same name instead of failing. */
  readonly replace?: boolean;
}

/** Adds (or replaces) `mcpServers[name]` in `file`, creating the file and its directory if needed. */
export function writeServerEntry(
  file: string,
  name: string,
  entry: RawServerConfig,
  options: WriteEntryOptions = {},
): { readonly created: boolean } {
  let text: string | undefined;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  // A file we cannot parse is never rewritten: the user's half-edited entry would be lost. The one
  // mcp.json reader (BOM, comments, trailing commas) reads it; a file with comments is not rewritten
  // either, since JSON.stringify would drop them.
  let object: { [key: string]: unknown } = {};
  let bom = "";
  if (text !== undefined && text.replace(/^\uFEFF/, "").trim() !== "") {
    let read: ReturnType<typeof readJsonc>;
    try {
      read = readJsonc(text);
    } catch (error) {
      if (!(error instanceof JsoncError)) throw error;
      throw new McpConfigError(
        `${file}: invalid JSON at line ${error.line}, column ${error.column}, not rewriting it: ${error.reason}`,
        file,
        "",
      );
    }
    if (read.comments > 0) {
      throw new McpConfigError(`${file}: has comments, not rewriting it (they would be lost); add the entry by hand`, file, "");
    }
    object = read.value as { [key: string]: unknown };
    if (read.bom) bom = "\uFEFF";
    if (typeof object !== "object" || object === null || Array.isArray(object)) {
      throw new McpConfigError(`${file}: / the file must hold a JSON object`, file, "");
    }
  }
  const servers = (object.mcpServers ?? {}) as { [key: string]: unknown };
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
    throw new McpConfigError(`${file}: /mcpServers must be an object`, file, "/mcpServers");
  }
  if (Object.hasOwn(servers, name) && !options.replace) {
    throw new McpConfigError(`${file}: server "${name}" already exists (pass replace: true to overwrite it)`, file, `/mcpServers/${name}`);
  }
  // Spread, so the other entries keep their order; a computed key makes even "__proto__" an own entry.
  object.mcpServers = { ...servers, [name]: entry };
  const indent = text === undefined ? "  " : detectIndent(text);
  const trailing = text === undefined || text.endsWith("\n") ? "\n" : "";
  // Temp file in the same directory, then rename: a reader (the manager's watcher, another client)
  // sees the old file or the new one, never half of one; never through a link out of its folder.
  // 0o600: entries can hold tokens.
  writeFileSafe(file, bom + JSON.stringify(object, null, indent) + trailing, { mode: 0o600 });
  return { created: text === undefined };
}
