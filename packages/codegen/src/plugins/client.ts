/**
 * Client plugin: `create<Toolset>Client(caller)` with one camelCase method per tool, and typed
 * request builders (`<toolset>Requests`) that planners hand to `runtime.execute`.
 */
import { fileHeader } from "../emit/generated-file.js";
import { docName, docText } from "../emit/literal.js";
import type { IrDesign, IrTool } from "../ir/ir.js";
import type { Plugin } from "./plugin.js";
import { specName, toolsetNames } from "./specs.js";

function methodDoc(tool: IrTool): string {
  const text = tool.description ?? tool.title ?? `Calls ${JSON.stringify(tool.name)}.`;
  return `/** ${docText(tool.nameNote === undefined ? text : `${text} (${tool.nameNote})`)} */`;
}

/** Emits `<toolset>/client.gen.ts` and `<toolset>/requests.gen.ts`. */
export const clientPlugin: Plugin = {
  name: "client",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const n = toolsetNames(ts);
      const f = out.file(`${ts.dirName}/client.gen.ts`, fileHeader(ir.file, ts.name));
      const Caller = f.runtime("Caller");
      const CallOptions = f.runtime("CallOptions");
      const ToolResult = f.runtime("ToolResult");
      const invokeTool = f.runtime("invokeTool");
      const sig = ts.tools.map((tool) => ({
        tool,
        Payload: f.importType(`${tool.typeName}Payload`, "./types.gen.js"),
        Result: f.importType(`${tool.typeName}Result`, "./types.gen.js"),
        spec: f.importValue(specName(tool), "./specs.gen.js"),
      }));
      f.print(`/** Typed client for toolset ${docName(ts.name)}. Every method validates locally, then calls; none throws. */`);
      f.print(`export interface ${n.clientType} {`);
      for (const { tool, Payload, Result } of sig) {
        f.print(
          `  ${methodDoc(tool)}`,
          `  ${tool.memberName}(payload: ${Payload}, options?: ${CallOptions}): Promise<${ToolResult}<${Result}>>;`,
        );
      }
      f.print("}", "");
      f.print(
        `/** Creates the typed client for toolset ${docName(ts.name)} over \`caller\`. */`,
        `export function ${n.client}(caller: ${Caller}): ${n.clientType} {`,
        "  return {",
        ...sig.map(({ tool, spec }) => `    ${tool.memberName}: (payload, options) => ${invokeTool}(caller, ${spec}, payload, options),`),
        "  };",
        "}",
      );

      const r = out.file(`${ts.dirName}/requests.gen.ts`, fileHeader(ir.file, ts.name));
      const ToolRequest = r.declare(`${ts.pascalName}ToolRequest`);
      const rsig = ts.tools.map((tool) => ({ tool, Payload: r.importType(`${tool.typeName}Payload`, "./types.gen.js") }));
      r.print(
        `/** A typed request for \`runtime.execute\`: the tool id and its payload. */`,
        `export interface ${ToolRequest}<Id extends string, P> {`,
        "  readonly tool: Id;",
        "  readonly arguments: P;",
        "}",
        "",
        `/** Request builders for toolset ${docName(ts.name)}, one per tool. */`,
        `export interface ${n.requestsType} {`,
      );
      for (const { tool, Payload } of rsig) {
        r.print(
          `  ${methodDoc(tool)}`,
          `  ${tool.memberName}(payload: ${Payload}): ${ToolRequest}<${JSON.stringify(tool.id)}, ${Payload}>;`,
        );
      }
      r.print(
        "}",
        "",
        `/** Builds typed requests for planners: \`runtime.execute(${n.requests}.${sig[0]?.tool.memberName ?? "tool"}(payload))\`. */`,
        `export const ${n.requests}: ${n.requestsType} = {`,
        ...rsig.map(({ tool }) => `  ${tool.memberName}: (payload) => ({ tool: ${JSON.stringify(tool.id)}, arguments: payload }),`),
        "};",
      );
    }
  },
};

/** Emits `<toolset>/register.gen.ts`. */
export const registerPlugin: Plugin = {
  name: "register",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const n = toolsetNames(ts);
      const f = out.file(`${ts.dirName}/register.gen.ts`, fileHeader(ir.file, ts.name));
      const Caller = f.runtime("Caller");
      const Runtime = f.runtime("Runtime");
      const specs = f.importValue(n.specs, "./specs.gen.js");
      f.print(
        `/** Registers every tool of toolset ${docName(ts.name)} with \`runtime\`, calling through \`caller\`. */`,
        `export function ${n.register}(runtime: ${Runtime}, caller: ${Caller}): void {`,
        `  runtime.registerToolset({ toolset: ${JSON.stringify(ts.name)}, specs: ${specs}, caller });`,
        "}",
      );
      if (ts.source === "lock" && ts.toolFingerprints) {
        const checkDrift = f.runtime("checkDrift");
        const catalogue = f.importValue(n.catalogue, "./specs.gen.js");
        f.print(
          "",
          `/** Reports drift of the live server from the pulled lock, field by field: warn, fail, or block-changed (hides the changed tools from \`options.runtime\`). */`,
          `export function ${n.checkDrift}(caller: ${Caller}, options?: ${f.runtime("DriftOptions")}): Promise<${f.runtime("DriftReport")}> {`,
          `  return ${checkDrift}(caller, ${catalogue}, options);`,
          "}",
        );
      }
    }
  },
};
