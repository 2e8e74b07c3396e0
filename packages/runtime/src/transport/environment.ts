/**
 * The allowlisted environment for child processes. A child sees only a few baseline variables
 * (PATH, HOME, locale...) plus what its config names; never the parent's secrets.
 */
import { redactValuesIn } from "../failure/failure.js";
import type { WireFault } from "../failure/wire-fault.js";

/** Variables passed through by default when present in the parent. */
export const DEFAULT_INHERITED_ENV: readonly string[] = Object.freeze([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "TMPDIR",
  "TZ",
  "SYSTEMROOT",
]);

/**
 * An environment spec: entries are `NAME` (pass the parent's value through) or `KEY=VALUE`
 * (a literal). A record is a set of literals.
 */
export type EnvSpec = readonly string[] | { readonly [key: string]: string };

/** Builds a child environment from the baseline, the spec, and the parent environment. */
export function buildChildEnv(
  spec: EnvSpec | undefined,
  parent: NodeJS.ProcessEnv = process.env,
  inherit: readonly string[] = DEFAULT_INHERITED_ENV,
): Record<string, string> {
  // Keys come from configuration: "__proto__" must be a variable, not the map's prototype.
  const env = Object.create(null) as Record<string, string>;
  for (const name of inherit) {
    const value = Object.hasOwn(parent, name) ? parent[name] : undefined;
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  if (!spec) return env;
  if (Array.isArray(spec)) {
    for (const entry of spec as readonly string[]) {
      const eq = entry.indexOf("=");
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
      else if (eq === -1) {
        const value = Object.hasOwn(parent, entry) ? parent[entry] : undefined;
        if (value !== undefined) env[entry] = value;
      }
    }
  } else {
    for (const [key, value] of Object.entries(spec as { readonly [key: string]: string })) env[key] = value;
  }
  return env;
}

/** Values shorter than this are not treated as secrets (redacting "1" or "true" would garble text). */
const MIN_SECRET_LENGTH = 6;

/** The values a spec configures (literals and named pass-throughs): treated as secrets in failures and logs. */
export function configuredEnvValues(spec: EnvSpec | undefined, parent: NodeJS.ProcessEnv = process.env): string[] {
  if (!spec) return [];
  const values = Array.isArray(spec)
    ? (spec as readonly string[]).map((entry) =>
        entry.indexOf("=") > 0 ? entry.slice(entry.indexOf("=") + 1) : Object.hasOwn(parent, entry) ? parent[entry] : undefined,
      )
    : Object.values(spec as { readonly [key: string]: string });
  return [...new Set(values.filter((v): v is string => v !== undefined && v.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
}

/** Secret values plus their parts (`Bearer <token>`, `sid=<token>`): a server may reflect either. */
export function secretFragments(values: readonly string[]): string[] {
  const parts = values.flatMap((v) => [v, ...v.split(/[\s;=,]+/)]).filter((v) => v.length >= MIN_SECRET_LENGTH);
  return [...new Set(parts)].sort((a, b) => b.length - a.length);
}

/** A wire fault with secret values removed from its text fields (for `connect()` outcomes). */
export function redactFaultValues(fault: WireFault, values: readonly string[]): WireFault {
  return redactValuesIn(fault, values);
}
