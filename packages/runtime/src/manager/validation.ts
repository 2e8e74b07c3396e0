/**
 * Argument validation on the manager path: `manager.callTool` checks arguments against the live
 * `inputSchema` before sending, with the same field issues the generated codecs give. The runtime
 * has no dependencies, so the JSON Schema library is `ajv`, an optional peer loaded with a dynamic
 * import only on this path; without it (or with `validateArguments: "off"`) the server validates.
 */

import type { FieldIssue } from "../failure/failure.js";
import { type Decoder, issuesOf } from "../schema/codec.js";
import { type CompileCache, type Compiled, createCompileCache, type SchemaCompiler, sharedAjvCache } from "./shared-validators.js";

export { MAX_SCHEMA_TEXTS, type SchemaCompiler } from "./shared-validators.js";

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

/**
 * Creates the validator for a manager. With `"auto"`, ajv and its compiled validators are the
 * process's (`shared-validators.ts`): a thousand principals' managers compile each schema text
 * once. A custom compiler gets a cache of its own per manager (it may not be a pure function).
 */
export function createArgumentValidator(setting: ArgumentValidation = "auto"): ArgumentValidator {
  let cache: CompileCache | undefined;
  let mode: ValidationMode | undefined = setting === "off" ? "off" : typeof setting === "function" ? "custom" : undefined;
  if (typeof setting === "function") cache = createCompileCache(setting);
  let loading: Promise<ValidationMode> | undefined;
  // Per schema object: one lookup on the call path. Behind it, the cache by schema text: a reconnect
  // or list_changed lists the same schemas as new objects, which then keep the validator V8 has
  // already optimised (and ajv, which keeps every schema object it compiled, does not keep a copy
  // per listing).
  const compiled = new WeakMap<object, Compiled | null>();
  const compiledFor = (schema: { readonly [key: string]: unknown }) => {
    if (!cache) return undefined;
    const hit = compiled.get(schema);
    if (hit !== undefined) return hit ?? undefined;
    let text: string | undefined;
    try {
      text = JSON.stringify(schema);
    } catch {
      text = undefined; // not JSON (a custom client's cyclic object): compiled for this object only
    }
    const entry = cache.get(schema, text);
    compiled.set(schema, entry);
    return entry ?? undefined;
  };

  const validator: ArgumentValidator = {
    ready() {
      if (mode !== undefined) return Promise.resolve(mode);
      loading ??= sharedAjvCache().then((c) => {
        cache = c;
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
