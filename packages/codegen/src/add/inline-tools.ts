/**
 * A pulled catalogue as DSL builder code for `toolwright add --inline`: one `t.tool(...)` per
 * pulled tool, read through the same `toolFromListing` the lock path uses, so the inlined toolset
 * resolves to the tools the lock would have given.
 */
import { printKey, printLiteral } from "../emit/literal.js";
import { toolFromListing } from "../resolve/lock.js";
import { schemaToDsl } from "./schema-to-dsl.js";

/** The builder callback's body and the DSL functions it calls. */
export interface InlineTools {
  /** `(t) => {\n  t.tool(...);\n}`. */
  readonly code: string;
  readonly uses: ReadonlySet<string>;
}

/** Prints `(t) => { t.tool(...) ... }` for the listed tools; `local` maps DSL names to the file's names. */
export function inlineTools(listed: readonly unknown[], eol: string, local: (name: string) => string): InlineTools {
  const uses = new Set<string>();
  const tools = listed.map((entry, i) => {
    const decl = toolFromListing(entry, i);
    const lines: string[] = [];
    if (decl.title !== undefined) lines.push(`    title: ${JSON.stringify(decl.title)},`);
    if (decl.description !== undefined) lines.push(`    description: ${JSON.stringify(decl.description)},`);
    for (const key of ["input", "output"] as const) {
      if (decl[key] === undefined) continue;
      const converted = schemaToDsl(decl[key], 4, local);
      for (const u of converted.uses) uses.add(u);
      lines.push(`    ${key}: ${converted.code},`);
    }
    if (decl.annotations)
      lines.push(`    annotations: ${printLiteral(decl.annotations, 4).replace(/\n\s*/g, " ").replace(/,\s*}/, " }")},`);
    if (decl.meta) lines.push(`    ${printKey("meta")}: ${printLiteral(decl.meta, 4)},`);
    return [`  t.tool(${JSON.stringify(decl.name)}, {`, ...lines, "  });"].join("\n");
  });
  return { code: `(t) => {\n${tools.join("\n")}\n}`.split("\n").join(eol), uses };
}
