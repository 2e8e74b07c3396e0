/**
 * Hand-built tool specs with tiny decoders for runtime unit and property tests (no codegen, no ajv).
 */

import type { FieldIssue, ToolSpec } from "@toolwright/runtime";
import type { Decoder } from "@toolwright/runtime/caller";

type FieldType = "string" | "integer" | "boolean";

/** A decoder for a closed object with typed fields; `required` lists the mandatory ones. */
export function objectDecoder(
  fields: { readonly [name: string]: FieldType },
  required: readonly string[] = [],
): Decoder<{ [key: string]: unknown }> {
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { ok: false, issues: [{ field: "", constraint: "invalid_field_type", expected: "object" }] };
    const issues: FieldIssue[] = [];
    const record = value as { [key: string]: unknown };
    for (const name of required) if (!(name in record)) issues.push({ field: name, constraint: "missing_field" });
    for (const [name, v] of Object.entries(record)) {
      const type = fields[name];
      if (!type) issues.push({ field: name, constraint: "unknown_field", allowed: Object.keys(fields) });
      else if (type === "integer" ? !Number.isInteger(v) : typeof v !== type)
        issues.push({ field: name, constraint: "invalid_field_type", expected: type, actual: v });
    }
    return issues.length > 0 ? { ok: false, issues } : { ok: true, value: record };
  };
}

/** A spec for toolset `toolset`, wire name `name`, with the given fields. */
export function spec(
  toolset: string,
  name: string,
  fields: { readonly [name: string]: FieldType },
  extra: Partial<ToolSpec> = {},
): ToolSpec {
  return {
    id: `${toolset}.${name}`,
    toolset,
    name,
    providerName: `${toolset}_${name}`.replace(/[^A-Za-z0-9_-]/g, "_"),
    inputSchema: { type: "object" },
    decodePayload: objectDecoder(fields, Object.keys(fields).slice(0, 1)),
    ...extra,
  };
}
