/**
 * Decoders built from precompiled validators. Generated code hands in an ajv standalone validate
 * function; this file turns its errors into `FieldIssue`s so the runtime itself never needs ajv.
 */
import type { FieldIssue, IssueConstraint } from "../failure/failure.js";

/** A decoded value, or the issues that stopped it. */
export type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly FieldIssue[] };

/** Validates an unknown value as `T`. */
export type Decoder<T> = (value: unknown) => Decoded<T>;

/** The error shape ajv's standalone validators report. */
export interface ValidatorError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: { readonly [key: string]: unknown };
  readonly message?: string;
}

/** An ajv standalone validate function. */
export interface ValidateFunction {
  (value: unknown): boolean;
  errors?: readonly ValidatorError[] | null;
}

/**
 * The failing JSON Schema keyword as the constraint a model is told about. A keyword not listed
 * (type, oneOf, not, ...) is "invalid_field_type": the value has the wrong shape altogether.
 */
const KEYWORD_CONSTRAINT: { readonly [keyword: string]: IssueConstraint } = {
  required: "missing_field",
  dependentRequired: "missing_field",
  enum: "invalid_enum_value",
  const: "invalid_enum_value",
  format: "invalid_format",
  pattern: "invalid_pattern",
  minimum: "invalid_range",
  maximum: "invalid_range",
  exclusiveMinimum: "invalid_range",
  exclusiveMaximum: "invalid_range",
  multipleOf: "invalid_range",
  minLength: "invalid_length",
  maxLength: "invalid_length",
  minItems: "invalid_length",
  maxItems: "invalid_length",
  uniqueItems: "invalid_length",
  minProperties: "invalid_length",
  maxProperties: "invalid_length",
  additionalProperties: "unknown_field",
  unevaluatedProperties: "unknown_field",
};

/** Turns an ajv instance path (`/items/2/name`) into a field path (`items[2].name`). */
export function fieldPath(instancePath: string): string {
  if (instancePath === "") return "";
  let out = "";
  for (const raw of instancePath.slice(1).split("/")) {
    // RFC 6901 unescaping (~1 before ~0). A numeric segment is shown as an index; an object key
    // that is all digits reads the same, which is acceptable in a message.
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else out += out === "" ? part : `.${part}`;
  }
  return out;
}

function join(base: string, key: string): string {
  return base === "" ? key : `${base}.${key}`;
}

/** The value an error points at, to show the model what it sent (an inherited member it may reach is never `small`). */
function valueAt(root: unknown, instancePath: string): unknown {
  let node = root;
  if (instancePath === "") return node;
  for (const raw of instancePath.slice(1).split("/")) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as { [key: string]: unknown })[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node;
}

/** Whether `actual` is worth echoing: a whole 1 MB document in every failure would drown the message. */
function small(value: unknown): boolean {
  if (value === undefined) return false;
  try {
    return JSON.stringify(value).length <= 200;
  } catch {
    return false;
  }
}

/** What the keyword wanted, in words a model can act on ("at least 1", "match ^[a-z]+$"); else ajv's message. */
function expectedFor(error: ValidatorError): string | undefined {
  const p = error.params;
  switch (error.keyword) {
    case "type":
      return Array.isArray(p.type) ? p.type.join(" | ") : String(p.type);
    case "format":
      return String(p.format);
    case "pattern":
      return `match ${String(p.pattern)}`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `${String(p.comparison)} ${String(p.limit)}`;
    case "multipleOf":
      return `multiple of ${String(p.multipleOf)}`;
    case "minLength":
    case "minItems":
    case "minProperties":
      return `at least ${String(p.limit)}`;
    case "maxLength":
    case "maxItems":
    case "maxProperties":
      return `at most ${String(p.limit)}`;
    case "uniqueItems":
      return "unique items";
    default:
      return error.message;
  }
}

/** Converts validator errors into field issues, deduplicated and in report order. */
export function issuesFromErrors(errors: readonly ValidatorError[], input: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const base = fieldPath(error.instancePath);
    let field = base;
    let issue: FieldIssue;
    // ajv reports these at the parent object; the issue belongs to the missing or extra field itself.
    if (error.keyword === "required" || error.keyword === "dependentRequired") {
      field = join(base, String(error.params.missingProperty));
      issue = { field, constraint: "missing_field" };
    } else if (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties") {
      const key = String(error.params.additionalProperty ?? error.params.unevaluatedProperty);
      field = join(base, key);
      const actual = valueAt(input, `${error.instancePath}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
      issue = { field, constraint: "unknown_field", ...(small(actual) ? { actual } : {}) };
    } else {
      const constraint = KEYWORD_CONSTRAINT[error.keyword] ?? "invalid_field_type";
      const actual = valueAt(input, error.instancePath);
      const allowed = error.params.allowedValues ?? (error.keyword === "const" ? [error.params.allowedValue] : undefined);
      const expected = expectedFor(error);
      issue = {
        field,
        constraint,
        ...(Array.isArray(allowed) ? { allowed } : {}),
        ...(expected === undefined ? {} : { expected }),
        ...(small(actual) ? { actual } : {}),
      };
    }
    // allErrors reports one field several times (each anyOf branch, say); one issue per field and
    // constraint is what a model can fix.
    const key = `${issue.field}\u0000${issue.constraint}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

/**
 * The issue for a validator that threw. A validator for a recursive schema recurses with the data:
 * a hostile 100,000-level value overflows the stack. That value is invalid, never a thrown error.
 */
function thrownIssues(error: unknown): FieldIssue[] {
  const why =
    error instanceof RangeError ? "a value nested less deeply (validation overflowed the stack)" : "a value the validator can check";
  return [{ field: "", constraint: "invalid_field_type", expected: why }];
}

/**
 * The issues of the last failed run of `validate`, and its `errors` cleared: one validate function
 * may serve many principals' calls (the manager shares compiled schemas process-wide), and ajv's
 * errors name the caller's property names, which must not outlive the call that produced them.
 */
function takeIssues(validate: ValidateFunction, value: unknown): FieldIssue[] {
  const issues = issuesFromErrors(validate.errors ?? [], value);
  validate.errors = null;
  return issues;
}

/** Wraps a precompiled validate function as a decoder. Never throws. */
export function createDecoder<T>(validate: ValidateFunction): Decoder<T> {
  return (value) => {
    let valid: boolean;
    try {
      valid = validate(value);
    } catch (error) {
      return { ok: false, issues: thrownIssues(error) };
    }
    if (valid) return { ok: true, value: value as T };
    return { ok: false, issues: takeIssues(validate, value) };
  };
}

/**
 * The issues `validate` finds in `value`, or undefined when it passes: a decoder's verdict without
 * a result object (the manager checks every call's arguments). Never throws.
 */
export function issuesOf(validate: ValidateFunction, value: unknown): readonly FieldIssue[] | undefined {
  let valid: boolean;
  try {
    valid = validate(value);
  } catch (error) {
    return thrownIssues(error);
  }
  return valid ? undefined : takeIssues(validate, value);
}
