/**
 * Agents plugin: `agents/<agent>.gen.ts` with the agent's run policy and `register<Agent>Agent`,
 * which registers ONLY the tools of the agent's subsets (goa-ai ignores subsets; we honour them).
 */
import { fileHeader } from "../emit/generated-file.js";
import { docName, printKey, printLiteral } from "../emit/literal.js";
import type { IrDesign } from "../ir/ir.js";
import { exportedNames } from "./index-file.js";
import type { Plugin } from "./plugin.js";
import { specName } from "./specs.js";

/** Emits one module per agent plus `agents/index.ts`. */
export const agentsPlugin: Plugin = {
  name: "agents",
  emit(ir: IrDesign, out) {
    if (ir.agents.length === 0) return;
    const index: string[] = [];
    for (const agent of ir.agents) {
      const path = `agents/${agent.fileName}.gen.ts`;
      const f = out.file(path, fileHeader(ir.file, undefined));
      const Caller = f.runtime("Caller");
      const Runtime = f.runtime("Runtime");
      const ToolSpec = f.runtime("ToolSpec");
      const createRuntime = f.runtime("createRuntime");
      const RuntimeOptions = f.runtime("RuntimeOptions");
      const used = agent.uses.length > 0;
      const label = docName(agent.name);
      f.print(
        `/** Run policy of agent ${label}; durations are milliseconds. */`,
        `export const ${agent.camelName}RunPolicy = ${printLiteral(agent.runPolicy ?? {})} as const;`,
        "",
        `/** The callers agent ${label} needs: one per toolset it uses. */`,
        `export interface ${agent.pascalName}Callers {`,
        ...agent.uses.map((u) => `  readonly ${u.toolset.memberName}: ${Caller};`),
        "}",
        "",
      );
      const lists = agent.uses.map((u) => {
        const specs = u.tools.map((t) => f.importValue(specName(t), `../${u.toolset.dirName}/specs.gen.js`));
        return { u, specs };
      });
      f.print(
        `/** The tools agent ${label} may call, per toolset (subsets applied). */`,
        `export const ${agent.camelName}Tools: { readonly [toolset: string]: readonly ${ToolSpec}[] } = ${f.runtime("prototypeFree")}({`,
        ...lists.map(({ u, specs }) => `  ${printKey(u.toolset.name)}: [${specs.join(", ")}],`),
        "});",
        "",
        `/** Registers the tools agent ${label} may call, and no others, with \`runtime\`. */`,
        `export function register${agent.pascalName}Agent(${used ? "" : "_"}runtime: ${Runtime}, ${used ? "" : "_"}callers: ${agent.pascalName}Callers): void {`,
        ...lists.map(
          ({ u, specs }) =>
            `  runtime.registerToolset({ toolset: ${JSON.stringify(u.toolset.name)}, specs: [${specs.join(", ")}], caller: callers.${u.toolset.memberName} });`,
        ),
        "}",
        "",
        `/** Creates a runtime that enforces agent ${label}'s run policy and knows only its tools. */`,
        `export function create${agent.pascalName}Runtime(callers: ${agent.pascalName}Callers, options: Omit<${RuntimeOptions}, "policy"> = {}): ${Runtime} {`,
        `  const runtime = ${createRuntime}({ ...options, policy: ${agent.camelName}RunPolicy });`,
        `  register${agent.pascalName}Agent(runtime, callers);`,
        "  return runtime;",
        "}",
      );
      const { types, values } = exportedNames(out.text(path)!);
      const from = JSON.stringify(`./${agent.fileName}.gen.js`);
      index.push(`export type { ${types.sort().join(", ")} } from ${from};`, `export { ${values.sort().join(", ")} } from ${from};`);
    }
    out.file("agents/index.ts", fileHeader(ir.file, undefined)).print(...index);
  },
};
