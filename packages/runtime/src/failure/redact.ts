/**
 * Secret redaction with no dependency on the failure type: secret-looking keys, bearer tokens in
 * text, and the registry of concrete secret values (env values, header tokens) that no failure
 * may carry. failure.ts re-exports all of it, so importers keep one entry.
 */

const isObject = (v: unknown): v is { readonly [key: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);

// A key is secret when, ignoring case, `-` and `_`, it ends with one of these words ("maxTokens" is not).
const SECRET_KEY = /(authori[sz]ation|auth|token|secret|passw(or)?d|passphrase|apikey|cookie|credentials?|privatekey|sessionid|signature)$/;
const isSecretKey = (key: string) => SECRET_KEY.test(key.toLowerCase().replace(/[-_\s]/g, ""));

/** The text that replaces a secret value. */
export const REDACTED = "[redacted]";

/** Copies a JSON-like value, replacing the values of secret-looking keys (token, password, apiKey...). */
export function redactSecrets(value: unknown, depth = 0): unknown {
  // Too deep to inspect is not shown: it cannot be proven free of secrets (and recursion stays bounded).
  if (depth > 64) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  if (!isObject(value)) return value;
  const out: { [key: string]: unknown } = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty keeps a "__proto__" key as data instead of changing the prototype.
    Object.defineProperty(out, k, {
      value: isSecretKey(k) ? REDACTED : redactSecrets(v, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Removes bearer tokens and `key=value` secrets from free text (messages, stderr). */
export function redactText(text: string): string {
  return text
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${REDACTED}`)
    .replace(/\b([A-Za-z_-]*(?:token|secret|password|passwd|api[-_]?key))\b(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, `$1$2${REDACTED}`);
}

/** Turns any value into plain JSON data (undefined dropped, bigint and cycles stringified), with secrets redacted. */
export function toJsonValue(value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  } catch {
    try {
      // A cycle (or a throwing toJSON): keep what String() says rather than lose the value.
      text = JSON.stringify(String(value));
    } catch {
      text = JSON.stringify(`[unserializable ${typeof value}]`);
    }
  }
  return redactSecrets(text === undefined ? null : JSON.parse(text));
}

/** Replaces every occurrence of the given values (longest first) with `[redacted]`. */
export function redactValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of values) if (out.includes(value)) out = out.split(value).join(REDACTED);
  return out;
}

/** Copies a JSON-like value with `values` replaced in every string, keys included. */
export function redactValuesIn<T>(value: T, values: readonly string[]): T {
  return values.length === 0 ? value : (redactValuesDeep(value, values, 0) as T);
}

function redactValuesDeep(value: unknown, values: readonly string[], depth: number): unknown {
  if (typeof value === "string") return redactValues(value, values);
  if (depth > 64) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactValuesDeep(v, values, depth + 1));
  if (!isObject(value)) return value;
  const out: { [key: string]: unknown } = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, redactValues(k, values), {
      value: redactValuesDeep(v, values, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

// Values handed to servers as secrets (allowlisted env values, configured header tokens), counted
// by the callers holding them. Every failure the mapping builds is scrubbed of all of them, so a
// secret cannot come back through a path that forgot to redact (isError text, error data, stderr).
const secretCounts = new Map<string, number>();
let secretList: readonly string[] = [];

// Longest first: a secret that contains another registered one is replaced whole, no tail left showing.
function resort(): void {
  secretList = [...secretCounts.keys()].sort((a, b) => b.length - a.length);
}

// Shared by every caller with no secrets: a closure made in registerSecretValues would keep its scope alive.
const NOTHING_TO_RELEASE = (): void => {};

/** Registers secret values no failure may carry, until the returned release function runs. */
export function registerSecretValues(values: readonly string[]): () => void {
  const own = [...new Set(values.filter((v) => v !== ""))];
  if (own.length === 0) return NOTHING_TO_RELEASE;
  for (const v of own) secretCounts.set(v, (secretCounts.get(v) ?? 0) + 1);
  resort();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const v of own) {
      const n = (secretCounts.get(v) ?? 1) - 1;
      if (n <= 0) secretCounts.delete(v);
      else secretCounts.set(v, n);
    }
    resort();
  };
}

/** The registered secret values, longest first, so a secret that contains another is replaced whole. */
export function registeredSecretValues(): readonly string[] {
  return secretList;
}
