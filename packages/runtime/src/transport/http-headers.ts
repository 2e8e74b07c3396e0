/**
 * Static HTTP header handling for callers: `${VAR}` and `${VAR:-default}` expansion from an
 * environment, and lower-casing so later code can merge and strip headers by name.
 */

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}` / `${VAR:-default}` in one value. An unset variable without a default throws, naming it and `where`. */
export function expandEnv(value: string, env: { readonly [name: string]: string | undefined }, where: string): string {
  return value.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
    const found = Object.hasOwn(env, name) ? env[name] : undefined;
    if (fallback !== undefined) return found === undefined || found === "" ? fallback : found;
    if (found === undefined) throw new Error(`${where}: environment variable ${name} is not set`);
    return found;
  });
}

/**
 * {@link expandEnv} over this process's environment, read when called. Generated caller factories
 * call this rather than `expandEnv(value, process.env, where)` so the code `toolwright gen` writes
 * names no Node global and type-checks without `@types/node` (`"types": []`, as `tsc --init` sets).
 */
export function expandProcessEnv(value: string, where: string): string {
  return expandEnv(value, process.env, where);
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Expands and lower-cases a header map. Throws on an invalid name, a CR/LF in a value, or an unset variable. */
export function prepareHeaders(
  headers: { readonly [name: string]: string } | undefined,
  env: { readonly [name: string]: string | undefined },
): { [name: string]: string } {
  const out = Object.create(null) as { [name: string]: string };
  for (const [name, raw] of Object.entries(headers ?? {})) {
    if (!TOKEN.test(name) || name === "__proto__") throw new Error(`header ${JSON.stringify(name)}: not a valid header name`);
    const value = expandEnv(String(raw), env, `header ${name}`);
    if (/[\r\n\0]/.test(value)) throw new Error(`header ${name}: value contains a line break`);
    out[name.toLowerCase()] = value;
  }
  return out;
}
