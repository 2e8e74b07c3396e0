/**
 * What every manager of a process shares for argument validation: ajv, loaded once, and the
 * validators it compiled, keyed by schema text. A many-principal manager builds one manager per
 * principal; before this, each loaded ajv again (a dynamic import, two ajv instances and their
 * meta-schemas) and compiled every tool's schema again, which was most of a principal's first-call
 * cost. Sharing is safe because a compiled validator is a pure function of the schema text and the
 * fixed ajv options: it holds no principal's data (ajv's `validate.errors` is read right after each
 * call, in the same turn), and no schema is registered by its `$id` (`addUsedSchema: false`), so
 * one server's schema can never be reached through another's `$ref`.
 */
import { createDecoder, type Decoder, type ValidateFunction } from "../schema/codec.js";

/** Compiles a JSON Schema into an ajv-style validate function (errors in ajv's shape). May throw on a schema it cannot compile. */
export type SchemaCompiler = (schema: { readonly [key: string]: unknown }) => ValidateFunction;

/** A compiled schema: the validate function (the per-call check) and its decoder (the typed path's). */
export interface Compiled {
  readonly validate: ValidateFunction;
  readonly decoder: Decoder<unknown>;
}

/** Distinct schema texts whose validators are kept for reuse (one per tool, in practice). */
export const MAX_SCHEMA_TEXTS = 4096;

/** Validators by schema text (`null`: the compiler refused the schema), bounded, oldest dropped first. */
export interface CompileCache {
  /** The entry for `schema` (compiled now if its text is new); `text` undefined: not JSON, compiled for itself. */
  get(schema: { readonly [key: string]: unknown }, text: string | undefined): Compiled | null;
}

/** Counts for tests and the bench: how often ajv was loaded and how many schemas it compiled, process-wide. */
export interface SharedValidatorStats {
  readonly loads: number;
  readonly instances: number;
  readonly compiles: number;
}

const stats = { loads: 0, instances: 0, compiles: 0 };

/** The process-wide counts (they only grow). */
export function sharedValidatorStats(): SharedValidatorStats {
  return { ...stats };
}

/** A cache over `compiler`. */
export function createCompileCache(compiler: SchemaCompiler, onCompile?: () => void): CompileCache {
  const byText = new Map<string, Compiled | null>();
  const compile = (schema: { readonly [key: string]: unknown }): Compiled | null => {
    onCompile?.();
    try {
      const validate = compiler(schema);
      return { validate, decoder: createDecoder(validate) };
    } catch {
      return null; // a schema the library cannot compile is left to the server
    }
  };
  return {
    get(schema, text) {
      if (text === undefined) return compile(schema);
      let entry = byText.get(text);
      if (entry === undefined) {
        entry = compile(schema);
        if (byText.size >= MAX_SCHEMA_TEXTS) byText.delete(byText.keys().next().value as string);
        byText.set(text, entry);
      }
      return entry;
    },
  };
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
  stats.loads++;
  try {
    const [draft7, draft2020] = await Promise.all([optional("ajv"), optional("ajv/dist/2020.js")]);
    let addFormats: ((ajv: AjvLike) => void) | undefined;
    try {
      addFormats = classOf(await optional("ajv-formats")) as unknown as (ajv: AjvLike) => void;
    } catch {
      // ajv-formats is optional too: without it formats are not checked (the server still checks them).
    }
    const make = (Ajv: AjvClass) => {
      stats.instances++;
      // addUsedSchema: false keeps compiled schemas out of the instance's `$id` table: shared by every
      // manager of the process, it must not let one server's schema answer another's `$ref`.
      const ajv = new Ajv({
        allErrors: true,
        strict: false,
        logger: false,
        addUsedSchema: false,
        validateFormats: addFormats !== undefined,
      });
      addFormats?.(ajv);
      return ajv;
    };
    let pair: [AjvLike, AjvLike] | undefined;
    let used = 0;
    return (schema) => {
      // ajv keeps every schema object it compiled: fresh instances every MAX_SCHEMA_TEXTS compiles
      // bound that (validators compiled earlier keep working; they hold their own instance).
      if (!pair || used++ >= MAX_SCHEMA_TEXTS) {
        pair = [make(classOf(draft7)), make(classOf(draft2020))];
        used = 1;
      }
      const draft = typeof schema.$schema === "string" ? schema.$schema : "";
      return (draft.includes("2020-12") || draft.includes("2019-09") ? pair[1] : pair[0]).compile(schema);
    };
  } catch {
    return undefined;
  }
}

let shared: Promise<CompileCache | undefined> | undefined;

/** ajv's compile cache, shared by every manager of the process (loaded on first use); undefined without ajv. */
export function sharedAjvCache(): Promise<CompileCache | undefined> {
  shared ??= loadAjv().then((compiler) =>
    compiler
      ? createCompileCache(compiler, () => {
          stats.compiles++;
        })
      : undefined,
  );
  return shared;
}
