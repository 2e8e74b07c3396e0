/**
 * Schema certification at generation time (`toolwright gen --providers openai,anthropic,gemini`):
 * each tool's input schema is rewritten per provider by `@toolwright/runtime/providers`; a rewrite
 * that cannot keep the schema faithful is a design error naming the toolset, tool and field, a
 * harmless loss is a warning.
 */
import { providerSchema, SCHEMA_PROVIDERS, type SchemaProvider } from "@toolwright/runtime/providers";
import { DesignError } from "../errors.js";
import type { IrDesign } from "../ir/ir.js";

/** Parses `--providers openai,anthropic,gemini` (or `all`). Throws a TypeError naming an unknown provider. */
export function parseProviders(list: string | readonly string[] | undefined): SchemaProvider[] {
  const raw = (typeof list === "string" ? [list] : (list ?? []))
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const out = new Set<SchemaProvider>();
  for (const name of raw) {
    if (name === "all") for (const p of SCHEMA_PROVIDERS) out.add(p);
    else if ((SCHEMA_PROVIDERS as readonly string[]).includes(name)) out.add(name as SchemaProvider);
    else throw new TypeError(`--providers: unknown provider ${JSON.stringify(name)} (known: ${SCHEMA_PROVIDERS.join(", ")}, all)`);
  }
  return SCHEMA_PROVIDERS.filter((p) => out.has(p));
}

/**
 * Certifies every toolset tool's input schema for `providers`. Returns the warnings (one line each,
 * naming toolset, tool, field and provider); throws a `DesignError` listing every error of the first
 * tool that has any.
 */
export function certifyProviders(ir: IrDesign, providers: readonly SchemaProvider[]): string[] {
  const warnings: string[] = [];
  for (const ts of ir.toolsets) {
    for (const tool of ts.tools) {
      const errors: string[] = [];
      for (const provider of providers) {
        for (const note of providerSchema(tool.input.json, provider).notes) {
          const field = note.field === "" ? "" : ` field ${JSON.stringify(note.field)}`;
          if (note.severity === "error") errors.push(`${provider}:${field} ${note.message}`);
          else if (note.severity === "warning")
            warnings.push(
              `${ir.file} toolset ${JSON.stringify(ts.name)} tool ${JSON.stringify(tool.name)}${field} (${provider}): ${note.message}`,
            );
        }
      }
      if (errors.length > 0)
        throw new DesignError(
          { file: ir.file, toolset: ts.name, tool: tool.name },
          `the input schema cannot be represented faithfully for ${errors.length === 1 ? "a provider" : "these providers"}:\n  ${errors.join("\n  ")}`,
        );
    }
  }
  return warnings;
}
