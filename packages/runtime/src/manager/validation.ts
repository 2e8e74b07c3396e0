/**
 * Argument validation on the manager path: `manager.callTool` checks arguments against the live
 * `inputSchema` before sending, with the same field issues the generated codecs give. The runtime
 * has no dependencies, so the JSON Schema library is `ajv`, an optional peer loaded with a dynamic
 * import only on this path; without it (or with `validateArguments: "off"`) the server validates.
 */

import type { FieldIssue } from "../failure/failure.js";
import { createDecoder, type Decoder, issuesOf, type ValidateFunction } from "../schema/codec.js";

/** Compiles a JSON Schema into an ajv-style validate function (errors in ajv's shape). May throw on a schema it cannot compile. */
export type SchemaCompiler = (schema: { readonly [key: string]: unknown }) => ValidateFunction;

/** `"auto"` (default): ajv when installed, else none; `"off"`: none; or your own compiler. */
export type ArgumentValidation = "auto" | "off" | SchemaCompiler;

/** What the validator is using. */
export type ValidationMode = "ajv" | "custom" | "unavailable" | "off";

/** The manager's validator. */
export interface ArgumentValidator {
  /** Loads the library once (a no-op after the first call). */
  ready(): Promise<ValidationMode>;
  /** The decoder for a schema, once `ready()` has resolved; undefined when validation is off or the schema did not compile. */
  decoderFor(schema: { readonly [key: string]: unknown }): Decoder<unknown> | undefined;
  /** `check` without the promise: issues or undefined once the library is loaded, `false` while it is not (then use `check`). */
  checkNow(schema: { readonly [key: string]: unknown }, args: unknown): readonly FieldIssue[] | undefined | false;
  /** Issues for `args`, or undefined when they pass (or cannot be checked). */
  check(schema: { readonly [key: string]: unknown }, args: unknown): Promise<readonly FieldIssue[] | undefined>;
}

type AjvLike = { compile(schema: object): ValidateFunction };
type AjvClass = new (options: object) => AjvLike;

/** A module name the compiler does not resolve: ajv stays an optional peer, never a dependency. */
const optional = (name: string): Promise<unknown> => import(/* @vite-ignore */ name);

function classOf(mod: unknown): AjvClass {
  const m = mod as { default?: { default?: unknown } | unknown };
  const d = m.default as { default?: unknown } | undefined;
  return (typeof d === "function" ? d : (d?.default ?? mod)) as AjvClass;
}

async function loadAjv(): Promise<SchemaCompiler | undefined> {
  try {
    const [draft7, draft2020] = await Promise.all([optional("ajv"), optional("ajv/dist/2020.js")]);
    let addFormats: ((ajv: AjvLike) => void) | undefined;
    try {
      addFormats = classOf(await optional("ajv-formats")) as unknown as (ajv: AjvLike) => void;
    } catch {
      // ajv-formats is optional too: without it formats are not checked (the server still checks them).
    }
    const make = (Ajv: AjvClass) => {
      const ajv = new Ajv({ allErrors: true, strict: false, logger: false, validateFormats: addFormats !== undefined });
      addFormats?.(ajv);
      return ajv;
    };
    const ajv7 = make(classOf(draft7));
    const ajv2020 = make(classOf(draft2020));
    return (schema) => {
      const draft = typeof schema.$schema === "string" ? schema.$schema : "";
      return (draft.includes("2020-12") || draft.includes("2019-09") ? ajv2020 : ajv7).compile(schema);
    };
  } catch {
    return undefined;
  }
}

/** A compiled schema: the validate function (the per-call check) and its decoder (the typed path's). */
interface Compiled {
  readonly validate: ValidateFunction;
  readonly decoder: Decoder<unknown>;
}

/** Distinct schema texts whose validators are kept for reuse (one per tool, in practice). */
export const MAX_SCHEMA_TEXTS = 4096;

/** Creates the validator for a manager. */
export function createArgumentValidator(setting: ArgumentValidation = "auto"): ArgumentValidator {
  let compiler: SchemaCompiler | undefined;
  let mode: ValidationMode | undefined = setting === "off" ? "off" : typeof setting === "function" ? "custom" : undefined;
  if (typeof setting === "function") compiler = setting;
  let loading: Promise<ValidationMode> | undefined;
  // Compiled once per schema object: the validate function (for the fast path) and its decoder.
  const compiled = new WeakMap<object, Compiled | null>();
  // And once per schema text: a reconnect or list_changed lists the same schemas as new objects,
  // which then keep the validator V8 has already optimised (and ajv, which keeps every schema object
  // it compiled, does not compile and keep a copy per listing).
  const byText = new Map<string, Compiled | null>();
  const compile = (schema: { readonly [key: string]: unknown }): Compiled | null => {
    try {
      const validate = (compiler as SchemaCompiler)(schema);
      return { validate, decoder: createDecoder(validate) };
    } catch {
      return null; // a schema the library cannot compile is left to the server
    }
  };
  const compiledFor = (schema: { readonly [key: string]: unknown }) => {
    if (!compiler) return undefined;
    const hit = compiled.get(schema);
    if (hit !== undefined) return hit ?? undefined;
    let text: string | undefined;
    try {
      text = JSON.stringify(schema);
    } catch {
      text = undefined; // not JSON (a custom client's cyclic object): compiled for this object only
    }
    let entry = text === undefined ? undefined : byText.get(text);
    if (entry === undefined) {
      entry = compile(schema);
      if (text !== undefined) {
        // Bounded: the oldest text goes first once a manager has seen very many distinct schemas.
        if (byText.size >= MAX_SCHEMA_TEXTS) byText.delete(byText.keys().next().value as string);
        byText.set(text, entry);
      }
    }
    compiled.set(schema, entry);
    return entry ?? undefined;
  };

  const validator: ArgumentValidator = {
    ready() {
      if (mode !== undefined) return Promise.resolve(mode);
      loading ??= loadAjv().then((c) => {
        compiler = c;
        mode = c ? "ajv" : "unavailable";
        return mode;
      });
      return loading;
    },
    decoderFor: (schema) => compiledFor(schema)?.decoder,
    checkNow(schema, args) {
      if (mode === undefined) return false;
      // A compiled schema is found in one lookup; only a new (or uncompilable) one goes on to compile.
      const entry = compiled.get(schema) ?? compiledFor(schema);
      if (!entry) return undefined;
      // One validator call, and no result object when the arguments pass.
      return issuesOf(entry.validate, args);
    },
    check(schema, args) {
      if (mode === undefined) return validator.ready().then(() => validator.check(schema, args));
      return Promise.resolve(validator.checkNow(schema, args) || undefined);
    },
  };
  return validator;
}
