/**
 * One argument check for the meta tools every planner path adds beside the real ones (tool search's
 * `search_tools` / `describe_tool` / `call_tool`, code mode's `search` / `describe` / `run_code`).
 * Their schemas are tiny and fixed (a string, an enum or a bounded integer per field), and the
 * runtime has no schema library, so this is hand-written once, here, rather than once per plug-in.
 * Its issues are the same `FieldIssue` values a generated validator gives, so a model gets the same
 * `correct_call` failures as for any tool.
 */
import type { FieldIssue } from "../../failure/failure.js";
import type { Decoded } from "../../schema/codec.js";

/** One field of a meta tool's input schema, read from the schema's own `properties`. */
export interface MetaField {
  readonly type: "string" | "integer";
  /** The allowed strings. */
  readonly enum?: readonly string[];
  /** Integer bounds (inclusive). Default 1 and no upper bound. */
  readonly minimum?: number;
  readonly maximum?: number;
}

/** Options of `createMetaArgsDecoder`. */
export interface MetaArgsOptions {
  /**
   * Fields declared as JSON object *text* (strict provider schemas cannot describe an open object)
   * that also take an object, since a model that sends one anyway is understood rather than refused.
   */
  readonly objectAsText?: readonly string[];
}

/**
 * A payload decoder for a meta tool: an object, every `required` field present, no field outside
 * `properties`, each of its type, enum and integer range. The value is passed through unchanged.
 */
export function createMetaArgsDecoder(
  properties: { readonly [name: string]: MetaField },
  required: readonly string[],
  options: MetaArgsOptions = {},
): (value: unknown) => Decoded<unknown> {
  const objectAsText = new Set(options.objectAsText ?? []);
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { ok: false, issues: [{ field: "", constraint: "invalid_field_type", expected: "object" }] };
    const v = value as { readonly [key: string]: unknown };
    const issues: FieldIssue[] = [];
    for (const r of required) if (v[r] === undefined) issues.push({ field: r, constraint: "missing_field" });
    for (const key of Object.keys(v)) {
      const field = Object.hasOwn(properties, key) ? properties[key] : undefined;
      const actual = v[key];
      if (field === undefined) issues.push({ field: key, constraint: "unknown_field" });
      else if (objectAsText.has(key) && typeof actual === "object" && actual !== null && !Array.isArray(actual)) continue;
      else if (field.enum !== undefined && !field.enum.includes(actual as string))
        issues.push({ field: key, constraint: "invalid_enum_value", allowed: [...field.enum], actual });
      else if (field.type === "string" && typeof actual !== "string")
        issues.push({ field: key, constraint: "invalid_field_type", expected: "string" });
      else if (field.type === "integer") {
        const min = field.minimum ?? 1;
        const max = field.maximum ?? Number.POSITIVE_INFINITY;
        if (!Number.isInteger(actual) || (actual as number) < min || (actual as number) > max)
          issues.push({ field: key, constraint: "invalid_range", expected: `integer ${min}..${max}` });
      }
    }
    return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
  };
}
