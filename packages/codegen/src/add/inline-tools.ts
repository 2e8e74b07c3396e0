/**
 * A pulled catalogue as DSL builder code for `toolwright add --inline`: one `t.tool(...)` per
 * pulled tool, read through the same `toolFromListing` the lock path uses, then one `t.prompt`,
 * `t.resource` or `t.resourceTemplate` per pulled item (through `surfaceFromLock`), so the inlined
 * toolset resolves to what the lock would have given.
 */
import { printKey, printLiteral, stringLiteral } from "../emit/literal.js";
import { toolFromListing } from "../resolve/lock.js";
import { type LockedSurface, surfaceFromLock } from "../resolve/lock-surface.js";
import { schemaToDsl } from "./schema-to-dsl.js";

/** The builder callback's body and the DSL functions it calls. */
export interface InlineTools {
  /** `(t) => {\n  t.tool(...);\n}`. */
  readonly code: string;
  readonly uses: ReadonlySet<string>;
}

/** Prints `(t) => { t.tool(...) ... }` for the listed tools and surface; `local` maps DSL names to the file's names. */
export function inlineTools(
  listed: readonly unknown[],
  eol: string,
  local: (name: string) => string,
  pulledSurface: LockedSurface = {},
): InlineTools {
  const uses = new Set<string>();
  const tools = listed.map((entry, i) => {
    const decl = toolFromListing(entry, i);
    const lines: string[] = [];
    if (decl.title !== undefined) lines.push(`    title: ${stringLiteral(decl.title)},`);
    if (decl.description !== undefined) lines.push(`    description: ${stringLiteral(decl.description)},`);
    for (const key of ["input", "output"] as const) {
      if (decl[key] === undefined) continue;
      const converted = schemaToDsl(decl[key], 4, local);
      for (const u of converted.uses) uses.add(u);
      lines.push(`    ${key}: ${converted.code},`);
    }
    if (decl.annotations)
      lines.push(`    annotations: ${printLiteral(decl.annotations, 4).replace(/\n\s*/g, " ").replace(/,\s*}/, " }")},`);
    if (decl.meta) lines.push(`    ${printKey("meta")}: ${printLiteral(decl.meta, 4)},`);
    return [`  t.tool(${stringLiteral(decl.name)}, {`, ...lines, "  });"].join("\n");
  });
  const { surface } = surfaceFromLock(pulledSurface);
  const definition = (fields: { readonly [key: string]: unknown }) => printLiteral(fields, 2);
  for (const { kind: _kind, name, arguments: args, ...rest } of surface.prompts ?? [])
    tools.push(`  t.prompt(${stringLiteral(name)}, ${definition(args.length > 0 ? { ...rest, arguments: args } : rest)});`);
  for (const { kind: _kind, uri, ...rest } of surface.resources ?? [])
    tools.push(`  t.resource(${stringLiteral(uri)}, ${definition(rest)});`);
  for (const { kind: _kind, uriTemplate, ...rest } of surface.resourceTemplates ?? [])
    tools.push(`  t.resourceTemplate(${stringLiteral(uriTemplate)}, ${definition(rest)});`);
  return { code: `(t) => {\n${tools.join("\n")}\n}`.split("\n").join(eol), uses };
}
