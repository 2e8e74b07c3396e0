/**
 * `mcp_register`: a built-in tool an agent calls to add a server to the project or global
 * `mcp.json`. It checks the arguments, writes the file atomically, connects, and registers tools.
 */
import { join } from "node:path";
import { type Caller, callerFunc } from "../caller/caller.js";
import type { ToolResult } from "../caller/tool-spec.js";
import type { FieldIssue } from "../failure/failure.js";
import { failureFromFault, failureFromInvalidInput, failureFromLocal } from "../failure/failure-mapping.js";
import type { ToolDescriptor } from "../protocol/mcp-types.js";
import { globalConfigDir, McpConfigError, projectConfigPath, resolveServerEntry } from "./config-load.js";
import type { RawServerConfig } from "./config-types.js";
import { validateServerEntry } from "./config-validate.js";
import { writeServerEntry } from "./config-write.js";
import type { McpManager } from "./manager-types.js";

/** The tool's wire name. */
export const MCP_REGISTER_TOOL = "mcp_register";

/** What a successful registration returns. */
export interface RegisterOutcome {
  readonly server: string;
  readonly file: string;
  readonly created: boolean;
  readonly toolCount: number;
  /** Exposed names of the new tools. */
  readonly tools: readonly string[];
}

/** Options for `createMcpRegisterTool`. */
export interface McpRegisterToolOptions {
  readonly manager: McpManager;
  /** Directory holding `.toolwright/mcp.json` (scope `project`). */
  readonly projectDir: string;
  /** Directory holding the global `mcp.json` (scope `global`). */
  readonly globalDir?: string;
  /**
   * Variables an agent's `${VAR}` references may expand from. Default: none. The arguments come from
   * the agent, so the parent's environment is never reachable unless the embedder hands it over.
   */
  readonly env?: { readonly [key: string]: string | undefined };
  /**
   * Asked before anything is written: registering a server lets the agent start a program. A false
   * answer (or a throw) is a `canceled` failure. Required: pass `"allow-all"` to accept every valid
   * request unattended, so that running agent-chosen programs is always a visible decision.
   */
  readonly confirm: McpRegisterConfirm | "allow-all";
}

/** Decides whether an agent may register a server. */
export type McpRegisterConfirm = (request: {
  readonly name: string;
  readonly scope: "project" | "global";
  readonly file: string;
  readonly entry: RawServerConfig;
}) => boolean | Promise<boolean>;

/** The built-in tool. */
export interface McpRegisterTool {
  readonly descriptor: ToolDescriptor;
  call(args: unknown): Promise<ToolResult<RegisterOutcome>>;
  /** The tool as a `Caller` answering `tools/call` for `mcp_register`. */
  readonly caller: Caller;
}

const strings = { type: "array", items: { type: "string" } } as const;
const stringMap = { type: "object", additionalProperties: { type: "string" } } as const;

/** The tool's descriptor, as a model sees it. */
export const MCP_REGISTER_DESCRIPTOR: ToolDescriptor = {
  name: MCP_REGISTER_TOOL,
  description:
    "Register an MCP server in the project or global mcp.json, connect it, and make its tools available. Use type stdio with command/args/env, or type http with url/headers. Values may use ${VAR} references.",
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
      scope: { type: "string", enum: ["project", "global"] },
      type: { type: "string", enum: ["stdio", "http"] },
      command: { type: "string" },
      args: strings,
      env: stringMap,
      cwd: { type: "string" },
      url: { type: "string" },
      headers: stringMap,
      autoApprove: { type: "boolean" },
      replace: { type: "boolean" },
    },
    required: ["name", "scope", "type"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
};

const ALLOWED = new Set(Object.keys((MCP_REGISTER_DESCRIPTOR.inputSchema as { properties: object }).properties));

function checkArgs(args: unknown): FieldIssue[] {
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return [{ field: "", constraint: "invalid_field_type", expected: "object" }];
  const a = args as { [key: string]: unknown };
  const issues: FieldIssue[] = [];
  for (const key of Object.keys(a)) if (!ALLOWED.has(key)) issues.push({ field: key, constraint: "unknown_field" });
  if (a.name === undefined) issues.push({ field: "name", constraint: "missing_field" });
  else if (typeof a.name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(a.name)) {
    issues.push({ field: "name", constraint: "invalid_pattern", expected: "^[A-Za-z0-9_-]{1,64}$", actual: a.name });
  }
  if (a.scope === undefined) issues.push({ field: "scope", constraint: "missing_field" });
  else if (a.scope !== "project" && a.scope !== "global")
    issues.push({ field: "scope", constraint: "invalid_enum_value", allowed: ["project", "global"], actual: a.scope });
  if (a.type === undefined) issues.push({ field: "type", constraint: "missing_field" });
  else if (a.type !== "stdio" && a.type !== "http")
    issues.push({ field: "type", constraint: "invalid_enum_value", allowed: ["stdio", "http"], actual: a.type });
  if (a.type === "stdio" && a.command === undefined) issues.push({ field: "command", constraint: "missing_field" });
  if (a.type === "http" && a.url === undefined) issues.push({ field: "url", constraint: "missing_field" });
  for (const key of ["autoApprove", "replace"]) {
    if (a[key] !== undefined && typeof a[key] !== "boolean")
      issues.push({ field: key, constraint: "invalid_field_type", expected: "boolean" });
  }
  if (issues.length > 0) return issues;
  // Field-level checks shared with config files (pointer /args/0 becomes field args[0]).
  const warnings: string[] = [];
  for (const issue of validateServerEntry(entryOf(a), "", warnings)) {
    const field = issue.pointer
      .slice(1)
      .replace(/\/(\d+)(?=\/|$)/g, "[$1]")
      .replace(/\//g, ".");
    issues.push({ field, constraint: "invalid_field_type", expected: issue.message });
  }
  return issues;
}

function entryOf(a: { [key: string]: unknown }): RawServerConfig {
  const out: { [key: string]: unknown } = { type: a.type };
  for (const key of ["command", "args", "env", "cwd", "url", "headers", "autoApprove"]) if (a[key] !== undefined) out[key] = a[key];
  return out as RawServerConfig;
}

const EXAMPLE = JSON.stringify({ name: "memory", scope: "project", type: "stdio", command: "node", args: ["server.js"] });

/** Creates the `mcp_register` tool bound to a manager. */
export function createMcpRegisterTool(options: McpRegisterToolOptions): McpRegisterTool {
  async function call(args: unknown): Promise<ToolResult<RegisterOutcome>> {
    const issues = checkArgs(args);
    // Without a person confirming, an agent must not exempt the server it adds from approval.
    const confirm = typeof options.confirm === "function" ? options.confirm : undefined;
    if (!confirm && (args as { autoApprove?: unknown } | null)?.autoApprove === true) {
      issues.push({
        field: "autoApprove",
        constraint: "invalid_enum_value",
        allowed: [false],
        actual: true,
        expected: "false: autoApprove needs a confirm hook (an agent cannot exempt its own server from approval)",
      });
    }
    if (issues.length > 0)
      return { ok: false, failure: failureFromInvalidInput(issues, args, EXAMPLE, { tool: MCP_REGISTER_TOOL, server: "toolwright" }) };
    const a = args as { [key: string]: unknown } & { name: string; scope: "project" | "global" };
    // The arguments are the evidence a correction needs, so they are in every failure's context.
    const context = { tool: MCP_REGISTER_TOOL, server: a.name, input: args, exampleJson: EXAMPLE };
    const env = options.env ?? process.env;
    const file =
      a.scope === "project" ? projectConfigPath(options.projectDir) : join(options.globalDir ?? globalConfigDir(env), "mcp.json");
    const entry = entryOf(a);
    if (confirm) {
      const allowed = await Promise.resolve()
        .then(() => confirm({ name: a.name, scope: a.scope, file, entry }))
        .catch(() => false);
      if (allowed !== true)
        return {
          ok: false,
          failure: failureFromLocal("not_approved", `${a.name}: registering "${a.name}" was not confirmed`, context),
        };
    }
    let resolved: ReturnType<typeof resolveServerEntry>;
    let created: boolean;
    try {
      // Resolve before writing: an unset variable must not leave a half-usable entry behind.
      // Untrusted input: expanding from process.env would let the agent route any parent secret
      // (past the child-env allowlist) to a program or URL of its choice.
      resolved = resolveServerEntry(a.name, entry, { file, env: options.env ?? {} });
      created = writeServerEntry(file, a.name, entry, { replace: a.replace === true }).created;
    } catch (error) {
      // An invalid entry can be corrected; a file that cannot be written cannot, whatever the arguments.
      if (error instanceof McpConfigError) return { ok: false, failure: failureFromLocal("config_rejected", error.message, context) };
      const message = `cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`;
      return { ok: false, failure: failureFromLocal("config_write_failed", message, context) };
    }
    const status = await options.manager.addServer(a.name, resolved);
    if (!status.connected) {
      const message = `registered "${a.name}" in ${file}, but connecting failed: ${status.error ?? status.state}`;
      return {
        ok: false,
        failure: failureFromFault(
          { type: "transport", code: "EXIT", message, ...(status.stderrTail ? { stderrTail: status.stderrTail } : {}) },
          context,
        ),
      };
    }
    const tools = options.manager
      .tools()
      .filter((t) => t.server === a.name)
      .map((t) => t.exposedName);
    const value: RegisterOutcome = { server: a.name, file, created, toolCount: tools.length, tools };
    const text = JSON.stringify(value);
    return { ok: true, value, content: [{ type: "text", text }], structured: value };
  }
  return {
    descriptor: MCP_REGISTER_DESCRIPTOR,
    call,
    caller: callerFunc("toolwright", async (request) => {
      if (request.name !== MCP_REGISTER_TOOL) {
        return {
          ok: false,
          failure: failureFromLocal(
            "tool_unavailable",
            `toolwright: unknown tool ${request.name} (this caller offers ${MCP_REGISTER_TOOL})`,
            {
              tool: request.name,
              server: "toolwright",
            },
          ),
        };
      }
      const result = await call(request.arguments);
      if (!result.ok) return result;
      return { ok: true, value: { content: result.content, structuredContent: result.structured } };
    }),
  };
}
