/**
 * Agents plugin: `agents/<agent>.gen.ts` with the agent's run policy and `register<Agent>Agent`,
 * which registers ONLY the tools of the agent's subsets (goa-ai ignores subsets; we honour them).
 */
import { fileHeader } from "../emit/generated-file.js";
import { docName, printKey, printLiteral, stringLiteral } from "../emit/literal.js";
import type { IrDesign } from "../ir/ir.js";
import type { Plugin } from "./plugin.js";

/** Emits one module per agent plus `agents/index.ts`. */
export const agentsPlugin: Plugin = {
  name: "agents",
  emit(ir: IrDesign, out) {
    if (ir.agents.length === 0) return;
    for (const agent of ir.agents) {
      const s = agent.symbols;
      const f = out.file(s.runPolicy.file, fileHeader(ir.file, undefined));
      const Caller = f.runtime("Caller");
      const Runtime = f.runtime("Runtime");
      const ToolSpec = f.runtime("ToolSpec");
      const createRuntime = f.runtime("createRuntime");
      const RuntimeOptions = f.runtime("RuntimeOptions");
      const used = agent.uses.length > 0;
      const label = docName(agent.name);
      f.print(
        `/** Run policy of agent ${label}; durations are milliseconds. */`,
        `${f.export("const", s.runPolicy.name)} = ${printLiteral(agent.runPolicy ?? {})} as const;`,
        "",
        `/** The callers agent ${label} needs: one per toolset it uses. */`,
        `${f.export("interface", s.callers.name)} {`,
        ...agent.uses.map((u) => `  readonly ${u.toolset.memberName}: ${Caller};`),
        "}",
        "",
      );
      const lists = agent.uses.map((u) => {
        const specs = u.tools.map((t) => f.import(t.symbols.spec));
        return { u, specs };
      });
      f.print(
        `/** The tools agent ${label} may call, per toolset (subsets applied). */`,
        `${f.export("const", s.tools.name)}: { readonly [toolset: string]: readonly ${ToolSpec}[] } = ${f.runtime("prototypeFree")}({`,
        ...lists.map(({ u, specs }) => `  ${printKey(u.toolset.name)}: [${specs.join(", ")}],`),
        "});",
        "",
        `/** Registers the tools agent ${label} may call, and no others, with \`runtime\`. */`,
        `${f.export("function", s.register.name)}(${used ? "" : "_"}runtime: ${Runtime}, ${used ? "" : "_"}callers: ${s.callers.name}): void {`,
        ...lists.map(
          ({ u, specs }) =>
            `  runtime.registerToolset({ toolset: ${stringLiteral(u.toolset.name)}, specs: [${specs.join(", ")}], caller: callers.${u.toolset.memberName} });`,
        ),
        "}",
        "",
        `/** Creates a runtime that enforces agent ${label}'s run policy and knows only its tools. */`,
        `${f.export("function", s.createRuntime.name)}(callers: ${s.callers.name}, options: Omit<${RuntimeOptions}, "policy"> = {}): ${Runtime} {`,
        `  const runtime = ${createRuntime}({ ...options, policy: ${s.runPolicy.name} });`,
        `  ${s.register.name}(runtime, callers);`,
        "  return runtime;",
        "}",
      );
    }
    out.reexports(
      "agents/index.ts",
      fileHeader(ir.file, undefined),
      ir.agents.map((a) => a.symbols.runPolicy.file),
    );
  },
};
