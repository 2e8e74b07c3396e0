/**
 * Reads an `mcp.json` for codegen through the manager's own reader (`parseConfigText` of
 * `@toolwright/runtime/manager`), so init, add, pull, gen, approve and the manager accept and
 * refuse the same files: BOM, comments and trailing commas, VS Code's `servers` key and
 * `${env:VAR}` references are all handled there, once.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, posix, relative, resolve, sep, win32 } from "node:path";
import { MCP_JSON_APPS, type McpJsonApp, type McpJsonConnectionDecl } from "@toolwright/dsl";
import { type ParsedConfigFile, parseConfigText } from "@toolwright/runtime/manager";
import { FileError } from "../errors.js";

/** A read file: the manager's parsed form, with the dialect it was written in. */
export type McpJsonFile = ParsedConfigFile;

/**
 * Reads one file. `label` is how messages name it. Throws `FileError` for a missing or
 * unreadable file and the manager's `McpConfigError` (file, line and column, or JSON pointer) for a bad one.
 */
export function readMcpJson(path: string, label: string): McpJsonFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FileError(label, code === "ENOENT" ? "file not found" : `cannot read: ${(error as Error).message}`);
  }
  return parseConfigText(text, label);
}

/** The environment the per-platform places are found from (HOME, APPDATA, XDG_CONFIG_HOME). */
export type PlaceEnv = { readonly [key: string]: string | undefined };

/** A well-known place an `mcp.json` lives. */
export interface KnownMcpJson {
  /** `project`, `cursor`, `vscode`, `claude-code` or `claude`. */
  readonly kind: string;
  readonly path: string;
}

function homeOf(env: PlaceEnv): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** Claude Desktop's config file on `platform` (default this one), found from `env`. */
export function claudeDesktopConfig(env: PlaceEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const home = homeOf(env);
  // Paths for another platform are built with that platform's separator, so a test on Linux gets the Windows path right.
  const p = platform === "win32" ? win32 : posix;
  if (platform === "darwin") return p.join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
  if (platform === "win32") return p.join(env.APPDATA || p.join(home, "AppData", "Roaming"), "Claude", "claude_desktop_config.json");
  return p.join(env.XDG_CONFIG_HOME || p.join(home, ".config"), "Claude", "claude_desktop_config.json");
}

/** Where `app`'s own config lives on `platform`. */
export function appMcpJson(app: McpJsonApp, env: PlaceEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  switch (app) {
    case "claude-desktop":
      return claudeDesktopConfig(env, platform);
  }
}

/**
 * The absolute path an `mcpJson()` declaration names for whoever loads the design: an app's
 * per-platform place, `~/...` under their home, or a path relative to the design's folder.
 */
export function mcpJsonPath(
  decl: McpJsonConnectionDecl,
  designDir: string,
  env: PlaceEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (decl.app !== undefined) return appMcpJson(decl.app, env, platform);
  const file = decl.file ?? ".toolwright/mcp.json";
  if (file === "~" || file.startsWith("~/")) return join(homeOf(env), file.slice(1));
  return isAbsolute(file) ? file : resolve(designDir, file);
}

/**
 * How a design should name a file outside its project so that it means the same file for anyone:
 * `{ app }` for an application's own config, `~/...` for one under the home directory, undefined
 * when neither applies (the absolute path is then the only name).
 */
export function portableMcpJson(
  file: string,
  env: PlaceEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): { readonly app: McpJsonApp } | { readonly path: string } | undefined {
  for (const app of MCP_JSON_APPS) if (resolve(appMcpJson(app, env, platform)) === resolve(file)) return { app };
  const home = resolve(homeOf(env));
  const rel = relative(home, resolve(file));
  if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return { path: `~/${rel.split(sep).join("/")}` };
  return undefined;
}

/** The files `init` looks for, in order: the project's own, Cursor's, VS Code's, Claude Code's, Claude Desktop's. */
export function knownMcpJsonFiles(projectDir: string, env: PlaceEnv = process.env): KnownMcpJson[] {
  return [
    { kind: "project", path: join(projectDir, ".toolwright", "mcp.json") },
    { kind: "cursor", path: join(projectDir, ".cursor", "mcp.json") },
    { kind: "vscode", path: join(projectDir, ".vscode", "mcp.json") },
    { kind: "claude-code", path: join(projectDir, ".mcp.json") },
    { kind: "claude", path: claudeDesktopConfig(env) },
  ];
}
