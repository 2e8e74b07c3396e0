/**
 * Specs plugin: `<toolset>/specs.gen.ts` with one `ToolSpec` per tool (id, wire name, provider-safe
 * name, schemas, example JSON, annotations, field descriptions, decoders), the toolset's spec list,
 * and lookups by wire name, id and provider-safe name.
 */

import { providerSchema } from "@toolwright/runtime/providers";
import { fileHeader } from "../emit/generated-file.js";
import { docName, docText, printKey, printLiteral } from "../emit/literal.js";
import { toolsetNames } from "../emit/toolset-names.js";
import type { IrDesign, IrTool } from "../ir/ir.js";
import type { Plugin } from "./plugin.js";
import { validatorName } from "./validators.js";

export { toolsetNames };

/** The spec constant name for a tool: `getSumSpec`. */
export function specName(tool: IrTool): string {
  return `${tool.localName}Spec`;
}

/** Emits `<toolset>/specs.gen.ts`. */
export const specsPlugin: Plugin = {
  name: "specs",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const f = out.file(`${ts.dirName}/specs.gen.ts`, fileHeader(ir.file, ts.name));
      const n = toolsetNames(ts);
      const ToolSpec = f.runtime("ToolSpec");
      const createDecoder = f.runtime("createDecoder");
      f.print(`/** The toolset name, as declared in the design. */`, `export const ${n.toolsetName} = ${JSON.stringify(ts.name)};`, "");
      if (ts.source === "lock" && ts.toolFingerprints) {
        const ExpectedCatalogue = f.runtime("ExpectedCatalogue");
        f.print(
          "/** The catalogue pulled into the lock (`toolwright pull`): fingerprints, instructions and entries that `checkDrift` compares with the live server. */",
          `export const ${n.catalogue}: ${ExpectedCatalogue} = {`,
          `  server: ${JSON.stringify(ts.server)},`,
          `  toolset: ${JSON.stringify(ts.name)},`,
          `  fingerprint: ${JSON.stringify(ts.fingerprint ?? null)},`,
          `  tools: ${f.runtime("prototypeFree")}(${printLiteral(ts.toolFingerprints, 2)}),`,
          ...(ts.instructions === undefined ? [] : [`  instructions: ${JSON.stringify(ts.instructions)},`]),
          `  snapshots: ${f.runtime("prototypeFree")}(${printLiteral({ ...ts.snapshots }, 2)}),`,
          "};",
          "",
        );
      }
      for (const tool of ts.tools) {
        const Payload = f.importType(`${tool.typeName}Payload`, "./types.gen.js");
        const Result = f.importType(`${tool.typeName}Result`, "./types.gen.js");
        const validatePayload = f.importValue(validatorName(tool.typeName, "Payload"), "./validators.gen.js");
        const fields: [string, unknown][] = [
          ["id", tool.id],
          ["toolset", ts.name],
          ["name", tool.name],
          ["providerName", tool.providerName],
        ];
        if (tool.title !== undefined) fields.push(["title", tool.title]);
        if (tool.description !== undefined) fields.push(["description", tool.description]);
        fields.push(["inputSchema", tool.input.json]);
        if (tool.output) fields.push(["outputSchema", tool.output.json]);
        if (tool.annotations) fields.push(["annotations", tool.annotations]);
        if (tool.tags) fields.push(["tags", tool.tags]);
        if (tool.exampleJson !== undefined) fields.push(["exampleJson", tool.exampleJson]);
        if (Object.keys(tool.fieldDescriptions).length > 0) fields.push(["fieldDescriptions", tool.fieldDescriptions]);
        if (tool.requiresConfirmation !== undefined) fields.push(["requiresConfirmation", tool.requiresConfirmation]);
        if (tool.meta !== undefined) fields.push(["meta", tool.meta]);
        if (ir.providers && ir.providers.length > 0)
          fields.push(["providerSchemas", Object.fromEntries(ir.providers.map((p) => [p, providerSchema(tool.input.json, p).schema]))]);
        const doc = tool.description ?? tool.title ?? `The ${tool.name} tool.`;
        f.print(
          `/** ${docText(`Spec of ${JSON.stringify(tool.name)}: ${doc}`)} */`,
          `export const ${specName(tool)}: ${ToolSpec}<${Payload}, ${Result}> = {`,
          ...fields.map(([k, v]) =>
            k === "fieldDescriptions"
              ? `  ${k}: ${f.runtime("prototypeFree")}(${printLiteral(v, 2)}),`
              : `  ${printKey(k)}: ${printLiteral(v, 2)},`,
          ),
          `  decodePayload: ${createDecoder}<${Payload}>(${validatePayload}),`,
        );
        if (tool.output) {
          const validateResult = f.importValue(validatorName(tool.typeName, "Result"), "./validators.gen.js");
          f.print(`  decodeResult: ${createDecoder}<${Result}>(${validateResult}),`);
        }
        f.print("};", "");
      }
      f.print(
        `/** Every spec of toolset ${docName(ts.name)}, in design order. */`,
        `export const ${n.specs}: readonly ${ToolSpec}[] = [${ts.tools.map(specName).join(", ")}];`,
        "",
        `/** Specs by wire name, typed per tool. */`,
        // Spelled out (not "as const") so the file also compiles under isolatedDeclarations.
        `export const ${n.specMap}: {`,
        ...ts.tools.map((t) => `  readonly ${printKey(t.name)}: typeof ${specName(t)};`),
        `} = ${f.runtime("prototypeFree")}({`,
        ...ts.tools.map((t) => `  ${printKey(t.name)}: ${specName(t)},`),
        "});",
        "",
        `const byKey: ReadonlyMap<string, ${ToolSpec}> = new Map(${n.specs}.flatMap((s) => [[s.name, s], [s.id, s], [s.providerName, s]] as const));`,
        "",
        `/** Looks up a spec of toolset ${docName(ts.name)} by wire name, id or provider-safe name. */`,
        `export function ${n.find}(name: string): ${ToolSpec} | undefined {`,
        "  return byKey.get(name);",
        "}",
      );
    }
  },
};
