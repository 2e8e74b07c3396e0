/**
 * Loading `mcp.json`: the global file (XDG config) and the project file (`.toolwright/mcp.json`)
 * are read, checked, merged (the project wins by server name) and `${VAR}` references expanded.
 */

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { prototypeFree } from "../schema/prototype-free.js";
import { expandVariables } from "../transport/http-headers.js";
import { copyOutboundPolicy } from "../transport/outbound.js";
import type { CollisionPolicy, McpConfig, RawServerConfig, ServerConfig } from "./config-types.js";
import { pointerSegment, type ValidRawServer, validateConfigFile } from "./config-validate.js";
import { JsoncError, parseJsonc, visibleText } from "./jsonc.js";

/** A bad config file or an unset variable: says which file, which field and why. */
export class McpConfigError extends Error {
  constructor(
    message: string,
    /** The file, or `"inline"`. */
    readonly file: string,
    /** JSON pointer of the bad field (`""` for the whole file). */
    readonly pointer: string,
    /** The unset variable, for expansion errors. */
    readonly variable?: string,
  ) {
    // Text from the file (names, keys) may hold a BOM or a zero-width character: shown as U+XXXX, never raw.
    super(visibleText(message));
    this.name = "McpConfigError";
  }
}

/** Called for an unset `${VAR}` without default; returns the value to use instead of failing. */
export type OnMissingVariable = (
  variable: string,
  where: { readonly server: string; readonly file: string; readonly pointer: string },
) => string;

/** Options for `loadMcpConfig`. */
export interface LoadMcpConfigOptions {
  /** Directory holding `.toolwright/mcp.json`. */
  readonly projectDir?: string;
  /** Environment used for `${VAR}` expansion and for locating the global file. Default `process.env`. */
  readonly env?: { readonly [key: string]: string | undefined };
  /** Handles unset variables; without it an unset variable is an error. */
  readonly onMissing?: OnMissingVariable;
  /** Directory holding the global `mcp.json`. Default `$XDG_CONFIG_HOME/toolwright` or `~/.config/toolwright`. */
  readonly globalDir?: string;
}

/** The global config directory for an environment. */
export function globalConfigDir(env: { readonly [key: string]: string | undefined } = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && xdg !== "" ? xdg : join(env.HOME ?? homedir(), ".config"), "toolwright");
}

/** The project config file for a directory. */
export function projectConfigPath(projectDir: string): string {
  return join(projectDir, ".toolwright", "mcp.json");
}

/** The one `${VAR}` expander (generated callers and HTTP headers use it too). */
export { expandVariables };

/** Context for resolving one entry. */
export interface ResolveContext {
  readonly file: string;
  readonly env: { readonly [key: string]: string | undefined };
  readonly onMissing?: OnMissingVariable;
}

/** Expands variables in one checked entry and fixes its transport. Throws `McpConfigError` on an unset variable. */
export function resolveServerEntry(name: string, raw: RawServerConfig, context: ResolveContext): ServerConfig {
  const base = `/mcpServers/${pointerSegment(name)}`;
  const expand = (text: string, pointer: string) =>
    expandVariables(text, context.env, (variable) => {
      if (context.onMissing) return context.onMissing(variable, { server: name, file: context.file, pointer });
      throw new McpConfigError(
        `${context.file}: server "${name}" uses \${${variable}} at ${pointer}, but ${variable} is not set (write \${${variable}:-default} to give a default)`,
        context.file,
        pointer,
        variable,
      );
    });
  const expandMap = (map: { readonly [key: string]: string } | undefined, field: string) => {
    // Keys come from the user's file: "__proto__" or "constructor" must stay plain data.
    const out = prototypeFree<{ [key: string]: string }>({});
    for (const [k, v] of Object.entries(map ?? {})) out[k] = expand(v, `${base}/${field}/${pointerSegment(k)}`);
    return out;
  };
  // Only what the entry sets is copied: an absent field must stay absent (not undefined), so the
  // defaults stay with whoever reads the config, and connectionKey compares what was written.
  const r = raw as ValidRawServer;
  const common = {
    ...(r.enabled !== undefined || r.disabled !== undefined ? { enabled: r.enabled ?? !r.disabled } : {}),
    ...(r.autoStart !== undefined ? { autoStart: r.autoStart } : {}),
    ...(r.era !== undefined ? { era: r.era } : {}),
    ...(r.connectTimeoutMs !== undefined ? { connectTimeoutMs: r.connectTimeoutMs } : {}),
    ...(r.requestTimeoutMs !== undefined ? { requestTimeoutMs: r.requestTimeoutMs } : {}),
    ...(r.probeTimeoutMs !== undefined ? { probeTimeoutMs: r.probeTimeoutMs } : {}),
    ...(r.allowTools !== undefined ? { allowTools: r.allowTools } : {}),
    ...(r.denyTools !== undefined ? { denyTools: r.denyTools } : {}),
    ...(r.lifecycle !== undefined ? { lifecycle: r.lifecycle } : {}),
    ...(r.autoApprove !== undefined ? { autoApprove: r.autoApprove } : {}),
    ...(r.trusted !== undefined ? { trusted: r.trusted } : {}),
    ...(r.collisionPolicy !== undefined ? { collisionPolicy: r.collisionPolicy } : {}),
    ...(r.limits !== undefined ? { limits: r.limits } : {}),
    ...(r.type !== undefined ? { type: r.type } : {}),
    source: context.file,
  };
  // Variables expand in command, args, env values, cwd, url and headers alike, as Claude Code and
  // Cursor do: real configs point `command` at `${VENV}/bin/server`.
  if (r.command !== undefined) {
    const command = expand(r.command, `${base}/command`);
    // A variable set to "" would otherwise surface as a spawn error that names no variable.
    if (command.trim() === "") {
      throw new McpConfigError(
        `${context.file}: server "${name}" has an empty command at ${base}/command after expanding ${JSON.stringify(r.command)}`,
        context.file,
        `${base}/command`,
      );
    }
    return {
      ...common,
      transport: "stdio",
      command,
      args: (r.args ?? []).map((a, i) => expand(a, `${base}/args/${i}`)),
      env: expandMap(r.env, "env"),
      ...(r.cwd !== undefined ? { cwd: expand(r.cwd, `${base}/cwd`) } : {}),
    };
  }
  return {
    ...common,
    transport: "http",
    url: expand(r.url as string, `${base}/url`),
    headers: expandMap(r.headers, "headers"),
    ...(r.outbound !== undefined ? { outbound: copyOutboundPolicy(r.outbound) } : {}),
  };
}

/** A parsed, checked file before expansion. */
export interface ParsedConfigFile {
  readonly file: string;
  readonly servers: { readonly [name: string]: RawServerConfig };
  readonly collisionPolicy?: CollisionPolicy;
  readonly warnings: readonly string[];
  /** `vscode` when the servers sat under `servers` (VS Code's file), else `mcpServers`. */
  readonly dialect: "mcpServers" | "vscode";
}

const isRecord = (v: unknown): v is { [key: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);

/** VS Code and Cursor write `${env:NAME}`; the one expander reads `${NAME}`. Maps stay prototype-free. */
function envReferences(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, "${$1}");
  if (Array.isArray(value)) return value.map(envReferences);
  if (!isRecord(value)) return value;
  const out: { [key: string]: unknown } = Object.create(null);
  for (const [k, v] of Object.entries(value)) out[k] = envReferences(v);
  return out;
}

/**
 * Parses and checks the text of one file: the one `mcp.json` reader (manager, approve, init, pull,
 * gen, add). JSON with a BOM, comments and trailing commas, as Claude, Cursor and VS Code accept it;
 * VS Code's `servers` key and `${env:NAME}` references. Throws `McpConfigError` naming the file and
 * the line and column (syntax) or the field (JSON pointer).
 */
export function parseConfigText(text: string, file: string): ParsedConfigFile {
  let value: unknown;
  try {
    value = parseJsonc(text);
  } catch (error) {
    if (!(error instanceof JsoncError)) throw error;
    throw new McpConfigError(`${file}: invalid JSON at line ${error.line}, column ${error.column}: ${error.reason}`, file, "");
  }
  const vscode = isRecord(value) && value.mcpServers === undefined && value.servers !== undefined;
  // VS Code's file is checked as if its `servers` were `mcpServers`; pointers name the key it really has.
  const checked = isRecord(value)
    ? prototypeFree({ ...value, mcpServers: envReferences(vscode ? value.servers : value.mcpServers) })
    : value;
  const key = (pointer: string) => (vscode ? pointer.replace(/^\/mcpServers(?=\/|$)/, "/servers") : pointer);
  const warnings: string[] = [];
  const issues = validateConfigFile(checked, warnings).map((i) => ({ ...i, pointer: key(i.pointer) }));
  // One error, the first issue in full and a few more by pointer: enough to fix a file in one go
  // without a wall of text.
  const first = issues[0];
  if (first) {
    const more =
      issues.length > 1
        ? ` (and ${issues.length - 1} more: ${issues
            .slice(1, 4)
            .map((i) => i.pointer || "/")
            .join(", ")})`
        : "";
    throw new McpConfigError(`${file}: ${first.pointer || "/"} ${first.message}${more}`, file, first.pointer);
  }
  const object = checked as { mcpServers?: { [name: string]: RawServerConfig }; collisionPolicy?: CollisionPolicy };
  return {
    file,
    servers: object.mcpServers ?? prototypeFree({}),
    ...(object.collisionPolicy ? { collisionPolicy: object.collisionPolicy } : {}),
    warnings: warnings.map((w) => `${file}: ${key(w)}`),
    dialect: vscode ? "vscode" : "mcpServers",
  };
}

/** The file's text; undefined when it does not exist (every layer is optional), an error for anything else. */
function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new McpConfigError(`${file}: cannot read: ${(error as Error).message}`, file, "");
  }
}

/** The files `loadMcpConfig` reads, global first. */
export function configFiles(options: LoadMcpConfigOptions = {}): string[] {
  const env = options.env ?? process.env;
  const files = [join(options.globalDir ?? globalConfigDir(env), "mcp.json")];
  if (options.projectDir !== undefined) files.push(projectConfigPath(options.projectDir));
  return files;
}

/**
 * Reads the global and project `mcp.json`, project winning by server name. Each server records the
 * file it came from in `source`. Missing files are fine; bad ones throw `McpConfigError`.
 */
export function loadMcpConfig(options: LoadMcpConfigOptions = {}): McpConfig {
  const env = options.env ?? process.env;
  const merged = new Map<string, { raw: RawServerConfig; file: string }>();
  const files: string[] = [];
  const warnings: string[] = [];
  let collisionPolicy: CollisionPolicy | undefined;
  for (const file of configFiles(options)) {
    const text = readIfPresent(file);
    if (text === undefined) continue;
    const parsed = parseConfigText(text, file);
    files.push(file);
    warnings.push(...parsed.warnings);
    if (parsed.collisionPolicy) collisionPolicy = parsed.collisionPolicy;
    // Later files win by name, whole entry: the project file replaces a global server, never merges fields into it.
    for (const [name, raw] of Object.entries(parsed.servers)) merged.set(name, { raw, file });
  }
  // Expansion after merging: an entry the project file replaced cannot fail for its own unset variables.
  const mcpServers = prototypeFree<{ [name: string]: ServerConfig }>({});
  for (const [name, { raw, file }] of merged) {
    mcpServers[name] = resolveServerEntry(name, raw, { file, env, ...(options.onMissing ? { onMissing: options.onMissing } : {}) });
  }
  return { mcpServers, ...(collisionPolicy ? { collisionPolicy } : {}), files, warnings };
}

/** Parses one config text (inline, not from disk) into a resolved config. */
export function parseMcpConfig(
  text: string,
  options: Omit<LoadMcpConfigOptions, "projectDir" | "globalDir"> & { file?: string } = {},
): McpConfig {
  const file = options.file ?? "inline";
  const parsed = parseConfigText(text, file);
  const env = options.env ?? process.env;
  const mcpServers = prototypeFree<{ [name: string]: ServerConfig }>({});
  for (const [name, raw] of Object.entries(parsed.servers)) {
    mcpServers[name] = resolveServerEntry(name, raw, { file, env, ...(options.onMissing ? { onMissing: options.onMissing } : {}) });
  }
  return {
    mcpServers,
    ...(parsed.collisionPolicy ? { collisionPolicy: parsed.collisionPolicy } : {}),
    files: [file],
    warnings: parsed.warnings,
  };
}
