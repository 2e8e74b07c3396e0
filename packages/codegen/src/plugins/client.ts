/**
 * Client plugin: `create<Toolset>Client(caller)` with one camelCase method per tool (plus typed
 * prompt and resource readers, client-surface.ts), and typed request builders (`<toolset>Requests`)
 * that planners hand to `runtime.execute`.
 */
import { fileHeader } from "../emit/generated-file.js";
import { docName, docText, stringLiteral } from "../emit/literal.js";
import type { IrDesign, IrTool } from "../ir/ir.js";
import { emitSurfaceTypes } from "./client-surface.js";
import type { Plugin } from "./plugin.js";

function methodDoc(tool: IrTool): string {
  const text = tool.description ?? tool.title ?? `Calls ${JSON.stringify(tool.name)}.`;
  return `/** ${docText(tool.nameNote === undefined ? text : `${text} (${tool.nameNote})`)} */`;
}

/** Emits `<toolset>/client.gen.ts` and `<toolset>/requests.gen.ts`. */
export const clientPlugin: Plugin = {
  name: "client",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const n = ts.symbols;
      const f = out.file(n.client.file, fileHeader(ir.file, ts.name));
      const Caller = f.runtime("Caller");
      const CallOptions = f.runtime("CallOptions");
      const ToolResult = f.runtime("ToolResult");
      const invokeTool = f.runtime("invokeTool");
      const sig = ts.tools.map((tool) => ({
        tool,
        Payload: f.import(tool.symbols.payload),
        Result: f.import(tool.symbols.result),
        spec: f.import(tool.symbols.spec),
      }));
      const surface = emitSurfaceTypes(f, ts.surface);
      f.print(`/** Typed client for toolset ${docName(ts.name)}. Every method validates locally, then calls; none throws. */`);
      f.print(`${f.export("interface", n.clientType.name)} {`);
      for (const { tool, Payload, Result } of sig) {
        f.print(
          `  ${methodDoc(tool)}`,
          `  ${tool.memberName}(payload: ${Payload}, options?: ${CallOptions}): Promise<${ToolResult}<${Result}>>;`,
        );
      }
      f.print(...surface.signatures, "}", "");
      f.print(
        `/** Creates the typed client for toolset ${docName(ts.name)} over \`caller\`. */`,
        `${f.export("function", n.client.name)}(caller: ${Caller}): ${n.clientType.name} {`,
        "  return {",
        ...sig.map(({ tool, spec }) => `    ${tool.memberName}: (payload, options) => ${invokeTool}(caller, ${spec}, payload, options),`),
        ...surface.members,
        "  };",
        "}",
      );

      const r = out.file(n.requests.file, fileHeader(ir.file, ts.name));
      const ToolRequest = n.toolRequest.name;
      const rsig = ts.tools.map((tool) => ({ tool, Payload: r.import(tool.symbols.payload) }));
      r.print(
        `/** A typed request for \`runtime.execute\`: the tool id and its payload. */`,
        `${r.export("interface", ToolRequest)}<Id extends string, P> {`,
        "  readonly tool: Id;",
        "  readonly arguments: P;",
        "}",
        "",
        `/** Request builders for toolset ${docName(ts.name)}, one per tool. */`,
        `${r.export("interface", n.requestsType.name)} {`,
      );
      for (const { tool, Payload } of rsig) {
        r.print(
          `  ${methodDoc(tool)}`,
          `  ${tool.memberName}(payload: ${Payload}): ${ToolRequest}<${stringLiteral(tool.id)}, ${Payload}>;`,
        );
      }
      r.print(
        "}",
        "",
        `/** Builds typed requests for planners: \`runtime.execute(${n.requests.name}.${sig[0]?.tool.memberName ?? "tool"}(payload))\`. */`,
        `${r.export("const", n.requests.name)}: ${n.requestsType.name} = {`,
        ...rsig.map(({ tool }) => `  ${tool.memberName}: (payload) => ({ tool: ${stringLiteral(tool.id)}, arguments: payload }),`),
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
      const n = ts.symbols;
      const f = out.file(n.register.file, fileHeader(ir.file, ts.name));
      const Caller = f.runtime("Caller");
      const Runtime = f.runtime("Runtime");
      const specs = f.import(n.specs);
      f.print(
        `/** Registers every tool of toolset ${docName(ts.name)} with \`runtime\`, calling through \`caller\`. */`,
        `${f.export("function", n.register.name)}(runtime: ${Runtime}, caller: ${Caller}): void {`,
        `  runtime.registerToolset({ toolset: ${stringLiteral(ts.name)}, specs: ${specs}, caller });`,
        "}",
      );
      if (ts.source === "lock" && ts.toolFingerprints) {
        const checkDrift = f.runtime("checkDrift");
        const catalogue = f.import(n.catalogue);
        f.print(
          "",
          `/** Reports drift of the live server from the pulled lock, field by field: warn, fail, or block-changed (hides the changed tools from \`options.runtime\`). */`,
          `${f.export("function", n.checkDrift.name)}(caller: ${Caller}, options?: ${f.runtime("DriftOptions")}): Promise<${f.runtime("DriftReport")}> {`,
          `  return ${checkDrift}(caller, ${catalogue}, options);`,
          "}",
        );
      }
    }
  },
};
