/**
 * The default answer of a mocked tool, computed once at generation time so the generated mock holds
 * it as a literal: the same schema gives the same value on every run (no randomness, no clock).
 *
 * - a tool with an output schema answers the schema's own example (`examples[0]`, `default` or
 *   `const` at its root: the design's words), or else a sample of the schema;
 * - a tool without one answers text.
 *
 * Samples come from openapi-sampler (Redocly's, well kept and deterministic by design: it walks the
 * schema and takes examples, defaults, enums, formats and bounds, with no random source). It knows
 * OpenAPI better than every corner of JSON Schema 2020-12 (a `null` branch of `anyOf`, some
 * patterns), so the first fix below handles `null` branches, and the generated mock checks every
 * answer (this one too) with the precompiled output validator: a sample that misses the schema
 * fails the call, naming the field, and asks for a handler, rather than passing silently.
 */
import { sample } from "openapi-sampler";
import type { IrTool } from "../ir/ir.js";

/** Where an answer came from (the `MockAnswerSource` of `@toolwright/testkit`). */
export type MockAnswerFrom = "example" | "schema" | "text" | "none";

/** A tool's default mock answer. */
export interface MockAnswer {
  readonly from: MockAnswerFrom;
  readonly value: unknown;
}

type Schema = { readonly [key: string]: unknown };

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Drops `null` from type lists and `anyOf`/`oneOf` branches that are only `null`, so the sampler
 * picks the first branch that holds a value (it would otherwise print `{}` for a nullable union).
 * Pure: returns a new schema.
 */
export function withoutNullBranches(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutNullBranches);
  if (!isObject(schema)) return schema;
  const out: { [key: string]: unknown } = Object.create(null);
  for (const [key, value] of Object.entries(schema)) {
    if (key === "const" || key === "enum" || key === "examples" || key === "default") out[key] = value;
    else if (key === "type" && Array.isArray(value)) {
      const kept = value.filter((t) => t !== "null");
      out[key] = kept.length === 0 ? "null" : kept.length === 1 ? kept[0] : kept;
    } else if ((key === "anyOf" || key === "oneOf") && Array.isArray(value)) {
      const kept = value.filter((b) => !(isObject(b) && b.type === "null" && Object.keys(b).length === 1));
      out[key] = withoutNullBranches(kept.length === 0 ? value : kept);
    } else out[key] = withoutNullBranches(value);
  }
  return { ...out };
}

/** A value for `schema`: its root example, or a deterministic sample; `none` when the sampler cannot make one. */
export function sampleSchema(schema: Schema): MockAnswer {
  const examples = schema.examples;
  if (Array.isArray(examples) && examples.length > 0) return { from: "example", value: examples[0] };
  if ("default" in schema) return { from: "example", value: schema.default };
  if ("const" in schema) return { from: "example", value: schema.const };
  try {
    const fixed = withoutNullBranches(schema) as Schema;
    // The schema is its own document, so `#/$defs/...` references resolve inside it.
    const value = sample(fixed as never, { quiet: true, enablePatterns: true, skipWriteOnly: true }, fixed);
    return value === undefined ? { from: "none", value: null } : { from: "schema", value };
  } catch {
    // A schema the sampler cannot walk (say, a reference loop it will not cut): the mock asks for a handler.
    return { from: "none", value: null };
  }
}

/** The default answer of `tool` in a generated mock. */
export function mockAnswer(tool: Pick<IrTool, "output" | "id">): MockAnswer {
  if (tool.output !== undefined) return sampleSchema(tool.output.json as Schema);
  return { from: "text", value: `mock answer of ${tool.id}` };
}
