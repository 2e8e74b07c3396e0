/**
 * Reading server entries whatever shape they come in: the strings of an entry with their field
 * paths, what a value is (for a `malformed-entry` message), and which parameter names are credentials.
 */

/** Entries come from servers: a hostile 100,000-level `_meta` must not overflow the walk. */
const MAX_DEPTH = 32;
/** A parameter named like a credential (`token`, `apiKey`, `client_secret`), not a count of tokens. */
const CREDENTIAL_NAME = /token|api.?key|secret|passw(?:or)?d|passphrase|credential|auth|bearer|cookie/i;
const NOT_CREDENTIAL_NAME = /max|min|count|limit|num|budget|total|length|usage/i;

/** A JSON object as the lint reads it. */
export type Json = { readonly [key: string]: unknown };
/** A plain object (not null, not an array). */
export const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
/** A parameter named like a credential, such as `token` or `apiKey` (`maxTokens` is not one). */
export const isCredentialName = (name: string) => CREDENTIAL_NAME.test(name) && !NOT_CREDENTIAL_NAME.test(name);

/** What a value is, for a message about a malformed entry. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Every string of an entry with its path; object keys are yielded too (a key is text the model reads). */
export function* strings(value: unknown, path: string, depth = 0): Generator<{ field: string; text: string; key: boolean }> {
  if (typeof value === "string") yield { field: path, text: value, key: false };
  if (depth >= MAX_DEPTH || typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* strings(value[i], `${path}[${i}]`, depth + 1);
    return;
  }
  for (const key of Object.keys(value)) {
    // Icons are URLs and data URIs the model never reads as text; base64 would only make noise.
    if (key === "icons" && depth === 0) continue;
    const child = path === "" ? key : `${path}.${key}`;
    yield { field: child, text: key, key: true };
    yield* strings((value as Json)[key], child, depth + 1);
  }
}
