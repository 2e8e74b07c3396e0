/**
 * The prompts, resources and resource templates of a server scaffold: one typed handler per item
 * (`get<Prompt>Prompt(args, ctx)` with the declared arguments, `read<Resource>(ctx)`,
 * `read<Template>(params, ctx, uri)` with the template's variables) and the `prompts`,
 * `resources` and `resourceTemplates` entries of `createToolServer` that call them.
 */
import type { GeneratedFile } from "../emit/generated-file.js";
import { docText, printKey, printLiteral, stringLiteral } from "../emit/literal.js";
import type { IrSurface } from "../ir/ir.js";
import { emitSurfaceArgTypes } from "./client-surface.js";

/** What the scaffold prints for a server's surface. */
export interface ServerSurfaceLines {
  /** Members of the handlers interface. */
  readonly signatures: readonly string[];
  /** Fields of the `createToolServer({...})` call (`prompts: [...]` and so on). */
  readonly options: readonly string[];
  /** Members of the completions interface: one optional map per prompt with arguments and per template. */
  readonly completions: readonly string[];
}

const entry = (fields: readonly [string, unknown][], extra: readonly string[]) => [
  "      {",
  ...fields.map(([k, v]) => `        ${printKey(k)}: ${printLiteral(v, 8)},`),
  ...extra.map((line) => `        ${line}`),
  "      },",
];

/** Prints the argument and parameter types into `f`; returns the handler signatures and the server options. */
export function emitServerSurface(f: GeneratedFile, surface: IrSurface): ServerSurfaceLines {
  if (surface.prompts.length + surface.resources.length + surface.resourceTemplates.length === 0)
    return { signatures: [], options: [], completions: [] };
  emitSurfaceArgTypes(f, surface);
  const Ctx = f.server("SurfaceContext");
  const signatures: string[] = [];
  const options: string[] = [];
  const completions: string[] = [];
  // `completion/complete` for one prompt's arguments or one template's variables, when the author gave completers.
  const completer = (member: string, type: string, what: string) => {
    const Completer = f.server("ArgumentCompleter");
    completions.push(`  /** Completes ${docText(what)}. */`, `  readonly ${member}?: { readonly [K in keyof ${type}]?: ${Completer} };`);
    return `...(completions?.${member} ? { complete: completions.${member} as { readonly [name: string]: ${Completer} } } : {}),`;
  };
  const described = (what: { readonly description: string | undefined }, extra: readonly [string, unknown][] = []) =>
    what.description === undefined ? extra : ([["description", what.description], ...extra] as [string, unknown][]);
  if (surface.prompts.length > 0) {
    const R = f.server("GetPromptResult");
    options.push("    prompts: [");
    for (const p of surface.prompts) {
      const optional = p.arguments.every((a) => !a.required);
      signatures.push(
        `  /** ${docText(p.description ?? `Gets prompt ${JSON.stringify(p.name)}.`)} */`,
        `  ${p.memberName}(args: ${p.typeName}, ctx: ${Ctx}): ${R} | Promise<${R}>;`,
      );
      const fields: [string, unknown][] = [["name", p.name]];
      if (p.title !== undefined) fields.push(["title", p.title]);
      fields.push(...described(p));
      if (p.arguments.length > 0) fields.push(["arguments", p.arguments]);
      // The runtime checked the required arguments; the rest are optional in the type.
      const cast = optional ? "" : ` as ${p.typeName}`;
      const complete =
        p.arguments.length > 0 ? [completer(p.memberName, p.typeName, `the arguments of prompt ${JSON.stringify(p.name)}`)] : [];
      options.push(...entry(fields, [`get: (args, ctx) => handlers.${p.memberName}(args${cast}, ctx),`, ...complete]));
    }
    options.push("    ],");
  }
  const Body = surface.resources.length + surface.resourceTemplates.length > 0 ? f.server("ResourceBody") : "";
  if (surface.resources.length > 0) {
    options.push("    resources: [");
    for (const r of surface.resources) {
      signatures.push(
        `  /** ${docText(r.description ?? `Reads ${r.uri}.`)} */`,
        `  ${r.memberName}(ctx: ${Ctx}): ${Body} | Promise<${Body}>;`,
      );
      const fields: [string, unknown][] = [
        ["uri", r.uri],
        ["name", r.name],
        ...described(r, r.mimeType === undefined ? [] : [["mimeType", r.mimeType]]),
      ];
      options.push(...entry(fields, [`read: (ctx) => handlers.${r.memberName}(ctx),`]));
    }
    options.push("    ],");
  }
  if (surface.resourceTemplates.length > 0) {
    options.push("    resourceTemplates: [");
    for (const t of surface.resourceTemplates) {
      signatures.push(
        `  /** ${docText(t.description ?? `Reads ${t.uriTemplate}.`)} */`,
        `  ${t.memberName}(params: ${t.typeName}, ctx: ${Ctx}, uri: string): ${Body} | Promise<${Body}>;`,
      );
      const fields: [string, unknown][] = [
        ["uriTemplate", t.uriTemplate],
        ["name", t.name],
        ...described(t, t.mimeType === undefined ? [] : [["mimeType", t.mimeType]]),
      ];
      // An optional part of the template ({?rev}) may be absent from the URI: its parameter is then "".
      const params = t.variables.map((v) => `${printKey(v)}: variables[${stringLiteral(v)}] ?? ""`).join(", ");
      const complete = completer(t.memberName, t.typeName, `the variables of ${t.uriTemplate}`);
      options.push(...entry(fields, [`read: (uri, variables, ctx) => handlers.${t.memberName}({ ${params} }, ctx, uri),`, complete]));
    }
    options.push("    ],");
  }
  return { signatures, options, completions };
}
