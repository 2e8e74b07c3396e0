/**
 * Static HTTP header handling for callers: `${VAR}` and `${VAR:-default}` expansion from an
 * environment, and lower-casing so later code can merge and strip headers by name.
 */

/** `${NAME}` or `${NAME:-default}` (shell syntax, as Claude's and Cursor's files use it); NAME as a POSIX variable name. */
const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * The one `${VAR}` expander: mcp.json entries (manager, pull, approve), generated callers and
 * HTTP headers all expand through it. One pass (a value is never re-expanded); the shell's `:-`
 * rule (the default also replaces a set but empty variable); an unset variable without a default
 * is handed to `onMissing`, whose answer is used (or which throws).
 */
export function expandVariables(
  text: string,
  env: { readonly [key: string]: string | undefined },
  onMissing: (variable: string) => string,
): string {
  return text.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
    // Own properties only: `${constructor}` or `${__proto__}` must not read Object.prototype.
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    if (value !== undefined) return value;
    return onMissing(name);
  });
}

/** Expands `${VAR}` / `${VAR:-default}` in one value. An unset variable without a default throws, naming it and `where`. */
export function expandEnv(value: string, env: { readonly [name: string]: string | undefined }, where: string): string {
  return expandVariables(value, env, (name) => {
    throw new Error(`${where}: environment variable ${name} is not set`);
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
