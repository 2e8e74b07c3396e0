/**
 * Reads an `mcp.json` for codegen through the manager's own parser (`parseConfigText` of
 * `@toolwright/runtime/manager`), so the design, `pull` and the manager agree on every entry.
 * Only the dialects differ and are adapted here: VS Code's `servers` key and `${env:VAR}`
 * references, and JSON with comments (VS Code, Cursor), read with TypeScript's JSONC reader.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import { McpConfigError, type ParsedConfigFile, parseMcpConfig } from "@toolwright/runtime/manager";
import { FileError } from "../errors.js";

/** A read file: the manager's parsed form plus the dialect it was written in. */
export interface McpJsonFile extends ParsedConfigFile {
  /** `vscode` when the servers sat under `servers` (VS Code), else `mcpServers`. */
  readonly dialect: "mcpServers" | "vscode";
}

/** VS Code and Cursor write `${env:NAME}`; the manager's loader reads `${NAME}`. */
function envReferences(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, "${$1}");
  if (Array.isArray(value)) return value.map(envReferences);
  if (typeof value !== "object" || value === null) return value;
  const out: { [key: string]: unknown } = Object.create(null);
  for (const [k, v] of Object.entries(value)) out[k] = envReferences(v);
  return out;
}

/** JSON with comments and trailing commas (VS Code's format), through TypeScript's own reader (loaded only then). */
function parseJsonc(text: string, label: string): unknown {
  const { ts } = createRequire(import.meta.url)("ts-morph") as typeof import("ts-morph");
  const parsed = ts.parseConfigFileTextToJson(label, text);
  if (parsed.error) return undefined;
  return parsed.config as unknown;
}

/**
 * Reads one file. `label` is how messages name it. Throws `FileError` for a missing or
 * unreadable file and the manager's `McpConfigError` (file and JSON pointer) for a bad entry.
 */
export function readMcpJson(path: string, label: string): McpJsonFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FileError(label, code === "ENOENT" ? "file not found" : `cannot read: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = parseJsonc(text, label);
    // Not JSONC either: let the manager's parser report the line and column.
    if (value === undefined) parseMcpConfig(text, { file: label, env: {} });
  }
  const object = (typeof value === "object" && value !== null && !Array.isArray(value) ? value : {}) as { [key: string]: unknown };
  const vscode = object.mcpServers === undefined && object.servers !== undefined;
  const adapted = envReferences(vscode ? { mcpServers: object.servers } : { mcpServers: object.mcpServers });
  try {
    // Expansion is not wanted here (references stay references); an empty env keeps it side-effect free.
    const config = parseMcpConfig(JSON.stringify(adapted), { file: label, env: {}, onMissing: (name) => `\${${name}}` });
    const servers: { [name: string]: unknown } = Object.create(null);
    const raw = (adapted as { mcpServers?: { [name: string]: unknown } }).mcpServers ?? {};
    for (const name of Object.keys(config.mcpServers)) servers[name] = raw[name];
    return {
      file: label,
      servers: servers as ParsedConfigFile["servers"],
      warnings: config.warnings ?? [],
      dialect: vscode ? "vscode" : "mcpServers",
    };
  } catch (error) {
    if (error instanceof McpConfigError && vscode) {
      throw new McpConfigError(
        error.message.replace("/mcpServers/", "/servers/"),
        error.file,
        error.pointer.replace(/^\/mcpServers/, "/servers"),
      );
    }
    throw error;
  }
}

/** A well-known place an `mcp.json` lives. */
export interface KnownMcpJson {
  /** `project`, `cursor`, `vscode`, `claude-code` or `claude`. */
  readonly kind: string;
  readonly path: string;
}

/** Claude Desktop's config file on this platform. */
export function claudeDesktopConfig(env: { readonly [key: string]: string | undefined } = process.env): string {
  const home = env.HOME ?? homedir();
  if (process.platform === "darwin") return join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
  if (process.platform === "win32") return join(env.APPDATA ?? join(home, "AppData", "Roaming"), "Claude", "claude_desktop_config.json");
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "Claude", "claude_desktop_config.json");
}

/** The files `init` looks for, in order: the project's own, Cursor's, VS Code's, Claude Code's, Claude Desktop's. */
export function knownMcpJsonFiles(projectDir: string, env: { readonly [key: string]: string | undefined } = process.env): KnownMcpJson[] {
  return [
    { kind: "project", path: join(projectDir, ".toolwright", "mcp.json") },
    { kind: "cursor", path: join(projectDir, ".cursor", "mcp.json") },
    { kind: "vscode", path: join(projectDir, ".vscode", "mcp.json") },
    { kind: "claude-code", path: join(projectDir, ".mcp.json") },
    { kind: "claude", path: claudeDesktopConfig(env) },
  ];
}
