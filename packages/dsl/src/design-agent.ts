/**
 * Agents: the toolsets (or subsets of them) an agent may use, and its run policy.
 */
import { checkName } from "./design-tool.js";
import type { AgentDecl, RunPolicyDecl, ToolsetDecl, ToolsetUse } from "./design-types.js";
import { type Duration, toMilliseconds } from "./duration.js";
import { fail, isPlainObject, locate, show } from "./errors.js";
/** What `agent()` accepts as `runPolicy`: durations may be ms or strings such as "30s" or "2m". */
export interface RunPolicyInput {
  readonly maxToolCalls?: number;
  readonly maxConsecutiveFailedToolCalls?: number;
  readonly timeBudget?: Duration;
  readonly toolTimeout?: Duration;
}

// The tools a toolset is known to have at declaration time, or undefined when they come from a lock.
function knownTools(ts: ToolsetDecl): Set<string> | undefined {
  const names = new Set(ts.tools.map((t) => t.name));
  const decl = ts.provider.kind === "mcp" ? ts.provider.decl : undefined;
  if (decl?.kind === "mcp-server") for (const t of decl.tools) names.add(t.name);
  if (ts.provider.kind === "external-mcp" || decl?.kind === "mcp-server") return names;
  return undefined;
}

/** Restricts a toolset to a subset of tools for an agent. Unknown names fail when the tools are known. */
export function use<N extends string>(ts: ToolsetDecl<N>, options?: { readonly tools?: readonly NoInfer<N>[] }): ToolsetUse {
  if (!isPlainObject(ts) || ts.kind !== "toolset") fail("use()", `expects a toolset(...); got ${show(ts)}`);
  const where = `use(toolset "${ts.name}")`;
  const tools = options?.tools;
  if (tools === undefined) return Object.freeze({ kind: "use", toolset: ts });
  if (!Array.isArray(tools) || tools.length === 0) fail(where, "tools must be a non-empty array of tool names (omit it to use every tool)");
  const seen = new Set<string>();
  const known = knownTools(ts);
  for (const name of tools as readonly unknown[]) {
    if (typeof name !== "string") fail(where, `tool names must be strings; got ${show(name)}`);
    if (seen.has(name)) fail(where, `tool "${name}" is listed twice`);
    seen.add(name);
    if (known && !known.has(name)) fail(where, `unknown tool "${name}" (known: ${[...known].join(", ") || "none"})`);
  }
  return Object.freeze({ kind: "use", toolset: ts, tools: Object.freeze([...tools]) });
}

function normalizePolicy(where: string, policy: unknown): RunPolicyDecl {
  if (!isPlainObject(policy)) fail(where, "runPolicy must be an object");
  const out: { -readonly [K in keyof RunPolicyDecl]: number } = {};
  for (const [key, value] of Object.entries(policy)) {
    if (value === undefined) continue;
    if (key === "maxToolCalls" || key === "maxConsecutiveFailedToolCalls") {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
        fail(where, `runPolicy.${key} must be a positive integer; got ${show(value)}`);
      out[key] = value;
    } else if (key === "timeBudget" || key === "toolTimeout") {
      out[key] = toMilliseconds(`${where}: runPolicy.${key}`, value);
    } else {
      fail(where, `unknown runPolicy option "${key}" (allowed: maxToolCalls, maxConsecutiveFailedToolCalls, timeBudget, toolTimeout)`);
    }
  }
  return Object.freeze(out);
}

/** Declares an agent: the toolsets (or subsets) it may use and its run policy. */
export function agent(
  name: string,
  options: { readonly use: readonly (ToolsetDecl | ToolsetUse)[]; readonly runPolicy?: RunPolicyInput; readonly description?: string },
): AgentDecl {
  checkName("agent()", "the agent name", name);
  return locate({ agent: name }, () => buildAgent(name, options));
}

function buildAgent(
  name: string,
  options: { readonly use: readonly (ToolsetDecl | ToolsetUse)[]; readonly runPolicy?: RunPolicyInput; readonly description?: string },
): AgentDecl {
  const where = `agent "${name}"`;
  if (!isPlainObject(options) || !Array.isArray(options.use))
    fail(where, "options must be { use: [toolset, use(toolset, {...})], runPolicy? }");
  const uses = options.use.map((u: unknown, i) => {
    if (isPlainObject(u) && u.kind === "use") return u as unknown as ToolsetUse;
    if (isPlainObject(u) && u.kind === "toolset") return use(u as unknown as ToolsetDecl);
    return fail(where, `use[${i}] must be a toolset(...) or use(toolset, {...}); got ${show(u)}`);
  });
  const names = new Set<string>();
  for (const u of uses) {
    if (names.has(u.toolset.name)) fail(where, `toolset "${u.toolset.name}" is used twice`);
    names.add(u.toolset.name);
  }
  if (options.description !== undefined && typeof options.description !== "string") fail(where, "description must be a string");
  return Object.freeze({
    kind: "agent",
    name,
    uses: Object.freeze(uses),
    ...(options.runPolicy === undefined ? {} : { runPolicy: normalizePolicy(where, options.runPolicy) }),
    ...(options.description === undefined ? {} : { description: options.description }),
  });
}
