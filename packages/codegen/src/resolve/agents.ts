/**
 * Agents: the toolsets (or subsets) each agent uses and its run policy, checked against the
 * resolved toolsets. A subset naming an unknown tool is a design error naming agent, toolset and tool.
 */
import type { AgentDecl } from "@toolwright/dsl";
import { camelName, fileStem, pascalName } from "../emit/names.js";
import { DesignError, type DesignLocation } from "../errors.js";
import type { IrAgent, IrAgentUse, IrRunPolicy, IrTool, IrToolset } from "../ir/ir.js";
import { agentSymbols, checkClashes } from "./symbols.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Resolves the design's agents against its resolved toolsets (by name). */
export function resolveAgents(decls: readonly AgentDecl[], toolsets: Map<string, IrToolset>, file: string): IrAgent[] {
  const agents: IrAgent[] = [];
  const names = new Map<string, string>();
  for (const a of decls) {
    const loc = { file, agent: a.name };
    if (typeof a.name !== "string" || a.name === "") throw new DesignError({ file }, "an agent has an empty name");
    // Keyed by file stem, not name: "my-agent" and "my_agent" would write the same module.
    const fileName = fileStem(a.name);
    if (names.has(fileName)) throw new DesignError(loc, `duplicate agent name (collides with ${JSON.stringify(names.get(fileName))})`);
    names.set(fileName, a.name);
    const uses: IrAgentUse[] = [];
    const usedToolsets = new Set<string>();
    for (const u of a.uses) {
      const name = u.toolset?.name;
      const ts = toolsets.get(name);
      if (!ts) throw new DesignError({ ...loc, toolset: String(name) }, "uses a toolset that is not in the design's toolsets");
      // Twice would expose each tool twice to the model under one provider name.
      if (usedToolsets.has(ts.name)) throw new DesignError({ ...loc, toolset: ts.name }, "uses the same toolset twice");
      usedToolsets.add(ts.name);
      // A subset keeps the order it names (the order the model sees); without one, the whole toolset.
      let tools: readonly IrTool[] = ts.tools;
      if (u.tools !== undefined) {
        const chosen: IrTool[] = [];
        for (const toolName of u.tools) {
          const tool = ts.tools.find((t) => t.name === toolName);
          if (!tool)
            throw new DesignError({ ...loc, toolset: ts.name, tool: toolName }, "the subset names a tool the toolset does not have");
          if (chosen.includes(tool)) throw new DesignError({ ...loc, toolset: ts.name, tool: toolName }, "the subset names the tool twice");
          chosen.push(tool);
        }
        tools = chosen;
      }
      uses.push(Object.freeze({ kind: "use", toolset: ts, tools: Object.freeze(tools), subset: u.tools !== undefined }));
    }
    const named = { camelName: camelName(a.name), pascalName: pascalName(a.name), fileName };
    agents.push(
      Object.freeze({
        kind: "agent",
        name: a.name,
        description: a.description,
        ...named,
        symbols: agentSymbols(named),
        uses: Object.freeze(uses),
        runPolicy: runPolicyOf(a.runPolicy, loc),
        toString: () => `agent ${a.name}`,
      }),
    );
  }
  // agents/index.ts re-exports every agent module side by side.
  checkClashes(
    agents.flatMap((a) => Object.values(a.symbols).map((s) => [s, a] as const)),
    (a) => ({ file, agent: a.name }),
    String,
  );
  return agents;
}

/**
 * The agent's run limits, each a non-negative finite number: they become literals in the agent
 * module and limits the runtime enforces, so NaN or a negative budget must fail here, named.
 */
function runPolicyOf(p: AgentDecl["runPolicy"], loc: DesignLocation): IrRunPolicy | undefined {
  if (!p) return undefined;
  const out: Mutable<IrRunPolicy> = {};
  for (const key of ["maxToolCalls", "maxConsecutiveFailedToolCalls", "timeBudget", "toolTimeout"] as const) {
    const v = p[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new DesignError(loc, `runPolicy.${key} must be a non-negative number`);
    out[key] = v;
  }
  return Object.freeze(out);
}
