/**
 * The typed prompt and resource readers of a generated client: `get<Prompt>Prompt(args)` with an
 * argument type from the declared arguments, `read<Resource>()`, and `read<Template>(params)` whose
 * parameters are the RFC 6570 template's variables (expanded by the runtime's `expandTemplate`).
 */
import type { GeneratedFile } from "../emit/generated-file.js";
import { docName, docText, printKey, stringLiteral } from "../emit/literal.js";
import type { IrSurface } from "../ir/ir.js";

/** What the client plugin prints for a toolset's surface. */
export interface SurfaceLines {
  /** True when the toolset declares any prompt, resource or template. */
  readonly any: boolean;
  /** Interface members. */
  readonly signatures: readonly string[];
  /** Object literal members of the client. */
  readonly members: readonly string[];
}

const doc = (text: string | undefined, fallback: string) => `  /** ${docText(text ?? fallback)} */`;

/**
 * Prints `<Prompt>PromptArgs` (one string per declared argument, optional unless required) and
 * `<Template>Params` (one string per RFC 6570 variable), exported: the client and the server scaffold share them.
 */
export function emitSurfaceArgTypes(f: GeneratedFile, surface: IrSurface): void {
  for (const p of surface.prompts) {
    f.print(
      `/** Arguments of prompt ${docName(p.name)}. */`,
      `${f.export("type", p.typeName)} = {`,
      ...p.arguments.flatMap((a) => [
        ...(a.description ? [`  /** ${docText(a.description)} */`] : []),
        `  readonly ${printKey(a.name)}${a.required ? "" : "?"}: string;`,
      ]),
      "};",
      "",
    );
  }
  for (const t of surface.resourceTemplates) {
    f.print(
      `/** Parameters of ${docText(t.uriTemplate)}. */`,
      `${f.export("type", t.typeName)} = {`,
      ...t.variables.map((v) => `  readonly ${printKey(v)}: string;`),
      "};",
      "",
    );
  }
}

/** Prints the argument and parameter types and returns the client's signatures and members. */
export function emitSurfaceTypes(f: GeneratedFile, surface: IrSurface): SurfaceLines {
  const any = surface.prompts.length + surface.resources.length + surface.resourceTemplates.length > 0;
  if (!any) return { any, signatures: [], members: [] };
  const CallOptions = f.runtime("CallOptions");
  const SurfaceResult = f.runtime("SurfaceResult");
  const GetPromptResult = surface.prompts.length > 0 ? f.runtime("GetPromptResult") : "";
  const ResourceContents = surface.resources.length + surface.resourceTemplates.length > 0 ? f.runtime("ResourceContents") : "";
  const getPrompt = surface.prompts.length > 0 ? f.runtime("getPromptVia") : "";
  const read = surface.resources.length + surface.resourceTemplates.length > 0 ? f.runtime("readResourceVia") : "";
  const signatures: string[] = [];
  const members: string[] = [];
  emitSurfaceArgTypes(f, surface);
  for (const p of surface.prompts) {
    const Args = p.typeName;
    const optional = p.arguments.every((a) => !a.required);
    signatures.push(
      doc(p.description, `Gets prompt ${JSON.stringify(p.name)}.`),
      `  ${p.memberName}(args${optional ? "?" : ""}: ${Args}, options?: ${CallOptions}): Promise<${SurfaceResult}<${GetPromptResult}>>;`,
    );
    members.push(
      `    ${p.memberName}: (args, options) => ${getPrompt}(caller, ${stringLiteral(p.name)}, (args ?? {}) as { readonly [name: string]: string }, options),`,
    );
  }
  for (const r of surface.resources) {
    signatures.push(
      doc(r.description, `Reads ${r.uri}.`),
      `  ${r.memberName}(options?: ${CallOptions}): Promise<${SurfaceResult}<readonly ${ResourceContents}[]>>;`,
    );
    members.push(`    ${r.memberName}: (options) => ${read}(caller, ${stringLiteral(r.uri)}, options),`);
  }
  if (surface.resourceTemplates.length > 0) {
    const expand = f.runtime("expandTemplate");
    for (const t of surface.resourceTemplates) {
      const Params = t.typeName;
      signatures.push(
        doc(t.description, `Reads ${t.uriTemplate}.`),
        `  ${t.memberName}(params: ${Params}, options?: ${CallOptions}): Promise<${SurfaceResult}<readonly ${ResourceContents}[]>>;`,
      );
      members.push(
        `    ${t.memberName}: (params, options) => ${read}(caller, ${expand}(${stringLiteral(t.uriTemplate)}, params), options),`,
      );
    }
  }
  return { any, signatures, members };
}
