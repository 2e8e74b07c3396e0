/**
 * Specs plugin: `<toolset>/specs.gen.ts` with one `ToolSpec` per tool (id, wire name, provider-safe
 * name, schemas, example JSON, annotations, field descriptions, decoders), the toolset's spec list,
 * and lookups by wire name, id and provider-safe name.
 */

import { providerSchema } from "@toolwright/runtime/providers";
import { fileHeader } from "../emit/generated-file.js";
import { docName, docText, printKey, printLiteral, stringLiteral } from "../emit/literal.js";
import type { IrDesign, IrToolset } from "../ir/ir.js";
import type { Plugin } from "./plugin.js";

/** Emits `<toolset>/specs.gen.ts`. */
export const specsPlugin: Plugin = {
  name: "specs",
  emit(ir: IrDesign, out) {
    for (const ts of ir.toolsets) {
      const n = ts.symbols;
      const f = out.file(n.specs.file, fileHeader(ir.file, ts.name));
      const ToolSpec = f.runtime("ToolSpec");
      const createDecoder = f.runtime("createDecoder");
      f.print(
        `/** The toolset name, as declared in the design. */`,
        `${f.export("const", n.toolsetName.name)} = ${stringLiteral(ts.name)};`,
        "",
      );
      if (ts.source === "lock" && ts.toolFingerprints) {
        const ExpectedCatalogue = f.runtime("ExpectedCatalogue");
        f.print(
          "/** The catalogue pulled into the lock (`toolwright pull`): fingerprints, instructions and entries that `checkDrift` compares with the live server. */",
          `${f.export("const", n.catalogue.name)}: ${ExpectedCatalogue} = {`,
          `  server: ${stringLiteral(ts.server)},`,
          `  toolset: ${stringLiteral(ts.name)},`,
          `  fingerprint: ${printLiteral(ts.fingerprint ?? null)},`,
          `  tools: ${f.runtime("prototypeFree")}(${printLiteral(ts.toolFingerprints, 2)}),`,
          ...(ts.instructions === undefined ? [] : [`  instructions: ${printLiteral(ts.instructions)},`]),
          `  snapshots: ${f.runtime("prototypeFree")}(${printLiteral({ ...ts.snapshots }, 2)}),`,
          ...surfaceCatalogue(ts, f.runtime("prototypeFree")),
          "};",
          "",
        );
      }
      for (const tool of ts.tools) {
        const Payload = f.import(tool.symbols.payload);
        const Result = f.import(tool.symbols.result);
        const validatePayload = f.import(tool.symbols.validatePayload);
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
        if (tool.examplesJson !== undefined) fields.push(["examplesJson", tool.examplesJson]);
        if (Object.keys(tool.fieldDescriptions).length > 0) fields.push(["fieldDescriptions", tool.fieldDescriptions]);
        if (tool.requiresConfirmation !== undefined) fields.push(["requiresConfirmation", tool.requiresConfirmation]);
        if (tool.meta !== undefined) fields.push(["meta", tool.meta]);
        if (ir.providers && ir.providers.length > 0)
          fields.push(["providerSchemas", Object.fromEntries(ir.providers.map((p) => [p, providerSchema(tool.input.json, p).schema]))]);
        const doc = tool.description ?? tool.title ?? `The ${tool.name} tool.`;
        f.print(
          `/** ${docText(`Spec of ${JSON.stringify(tool.name)}: ${doc}`)} */`,
          `${f.export("const", tool.symbols.spec.name)}: ${ToolSpec}<${Payload}, ${Result}> = {`,
          ...fields.map(([k, v]) =>
            k === "fieldDescriptions"
              ? `  ${k}: ${f.runtime("prototypeFree")}(${printLiteral(v, 2)}),`
              : `  ${printKey(k)}: ${printLiteral(v, 2)},`,
          ),
          `  decodePayload: ${createDecoder}<${Payload}>(${validatePayload}),`,
        );
        if (tool.symbols.validateResult) {
          const validateResult = f.import(tool.symbols.validateResult);
          f.print(`  decodeResult: ${createDecoder}<${Result}>(${validateResult}),`);
        }
        f.print("};", "");
      }
      f.print(
        `/** Every spec of toolset ${docName(ts.name)}, in design order. */`,
        `${f.export("const", n.specs.name)}: readonly ${ToolSpec}[] = [${ts.tools.map((t) => t.symbols.spec.name).join(", ")}];`,
        "",
        `/** Specs by wire name, typed per tool. */`,
        // Spelled out (not "as const") so the file also compiles under isolatedDeclarations.
        `${f.export("const", n.specMap.name)}: {`,
        ...ts.tools.map((t) => `  readonly ${printKey(t.name)}: typeof ${t.symbols.spec.name};`),
        `} = ${f.runtime("prototypeFree")}({`,
        ...ts.tools.map((t) => `  ${printKey(t.name)}: ${t.symbols.spec.name},`),
        "});",
        "",
        `const byKey: ReadonlyMap<string, ${ToolSpec}> = new Map(${n.specs.name}.flatMap((s) => [[s.name, s], [s.id, s], [s.providerName, s]] as const));`,
        "",
        `/** Looks up a spec of toolset ${docName(ts.name)} by wire name, id or provider-safe name. */`,
        `${f.export("function", n.find.name)}(name: string): ${ToolSpec} | undefined {`,
        "  return byKey.get(name);",
        "}",
      );
    }
  },
};

/** The pulled prompts, resources and templates of the drift catalogue: fingerprints and entries per list the lock records. */
function surfaceCatalogue(ts: IrToolset, prototypeFree: string): string[] {
  const pinned = ts.surfaceFingerprints;
  if (!pinned) return [];
  const lists = (["prompts", "resources", "resourceTemplates"] as const).filter((list) => pinned[list] !== undefined);
  return [
    "  surface: {",
    ...lists.map((list) => `    ${list}: ${prototypeFree}(${printLiteral({ ...pinned[list] }, 4)}),`),
    "    snapshots: {",
    ...lists.map((list) => `      ${list}: ${prototypeFree}(${printLiteral({ ...pinned.snapshots[list] }, 6)}),`),
    "    },",
    "  },",
  ];
}
