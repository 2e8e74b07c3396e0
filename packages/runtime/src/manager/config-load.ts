/**
 * Loading `mcp.json`: the global file (XDG config) and the project file (`.toolwright/mcp.json`)
 * are read, checked, merged (the project wins by server name) and `${VAR}` references expanded.
 */

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { prototypeFree } from "../schema/prototype-free.js";
import { copyOutboundPolicy } from "../transport/outbound.js";
import type { CollisionPolicy, McpConfig, RawServerConfig, ServerConfig } from "./config-types.js";
import { pointerSegment, type ValidRawServer, validateConfigFile } from "./config-validate.js";

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
    super(message);
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

/** `${NAME}` or `${NAME:-default}` (shell syntax, as Claude's and Cursor's files use it); NAME as a POSIX variable name. */
const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}` and `${VAR:-default}` in one string. */
export function expandVariables(
  text: string,
  env: { readonly [key: string]: string | undefined },
  onMissing: (variable: string) => string,
): string {
  return text.replace(VAR, (_match, name: string, fallback: string | undefined) => {
    // Own properties only: `${constructor}` or `${__proto__}` must not read Object.prototype.
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    // The shell's `:-` rule: the default also replaces a variable that is set but empty.
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    if (value !== undefined) return value;
    return onMissing(name);
  });
}

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
  // Variables expand in args, env values, cwd, url and headers (as documented); the command is used
  // as written.
  if (r.command !== undefined) {
    return {
      ...common,
      transport: "stdio",
      command: r.command,
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
}

/** Line and column of a character offset. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `line ${line}, column ${offset - before.lastIndexOf("\n")}`;
}

/** Parses and checks the text of one file. Throws `McpConfigError` naming the file and the field. */
export function parseConfigText(text: string, file: string): ParsedConfigFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // V8 names an offset ("at position 42"); a line and column is what an editor can jump to.
    const at = /position (\d+)/.exec(message);
    const where = at ? ` at ${lineColumn(text, Number(at[1]))}` : "";
    throw new McpConfigError(`${file}: invalid JSON${where}: ${message}`, file, "");
  }
  const warnings: string[] = [];
  const issues = validateConfigFile(value, warnings);
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
  const object = value as { mcpServers?: { [name: string]: RawServerConfig }; collisionPolicy?: CollisionPolicy };
  return {
    file,
    servers: object.mcpServers ?? {},
    ...(object.collisionPolicy ? { collisionPolicy: object.collisionPolicy } : {}),
    warnings: warnings.map((w) => `${file}: ${w}`),
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
