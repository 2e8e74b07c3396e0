/**
 * Small OAuth helpers with no dependencies: base64url, random strings, PKCE S256 (WebCrypto, built
 * into Node and browsers), `WWW-Authenticate` parsing, and the error type every OAuth step throws.
 */

/** Why an OAuth step failed. `code` is stable; `message` never holds secrets. */
export class OAuthError extends Error {
  constructor(
    readonly code:
      | "discovery_failed"
      | "resource_mismatch"
      | "issuer_mismatch"
      | "pkce_unsupported"
      | "registration_failed"
      | "authorization_failed"
      | "state_mismatch"
      | "iss_mismatch"
      | "token_request_failed"
      | "retry_limit"
      | "outbound_refused"
      | "bad_configuration"
      | "reauthorization_required"
      | "token_store_failed",
    message: string,
    /** The authorization server's RFC 6749 §5.2 `error` code when it refused a request (`invalid_grant`, `invalid_client`...). */
    readonly serverError?: string,
  ) {
    super(message);
    this.name = "OAuthError";
  }
}

/** Encodes bytes as base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Encodes a UTF-8 string as base64url. */
export function base64urlText(text: string): string {
  return base64url(new TextEncoder().encode(text));
}

/** A random URL-safe string with `bytes` bytes of entropy. */
export function randomString(bytes = 32): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A PKCE pair using S256 (RFC 7636). */
export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
  readonly method: "S256";
}

/** Creates a PKCE verifier (43+ chars) and its S256 challenge. */
export async function createPkce(): Promise<Pkce> {
  // 48 random bytes are 64 base64url characters: inside RFC 7636's 43..128, with 384 bits of entropy.
  const verifier = randomString(48);
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)), method: "S256" };
}

/** One challenge from a `WWW-Authenticate` header: its scheme and auth-params (lower-cased names). */
export interface WwwAuthenticateChallenge {
  readonly scheme: string;
  readonly params: { readonly [name: string]: string };
}

/** Parses a `WWW-Authenticate` header into challenges (RFC 9110 §11.6.1); tolerant of odd spacing. */
export function parseWwwAuthenticate(header: string | null | undefined): WwwAuthenticateChallenge[] {
  const out: { scheme: string; params: { [name: string]: string } }[] = [];
  if (!header) return out;
  let i = 0;
  const n = header.length;
  // A small scanner rather than a regex: challenges and their params share commas
  // (`Bearer realm="a, b", error="x", DPoP algs="ES256"`), and quoted strings may hold commas.
  const skip = () => {
    while (i < n && (header[i] === " " || header[i] === "\t" || header[i] === ",")) i++;
  };
  const token = () => {
    const start = i;
    // RFC 9110 §5.6.2 tchar.
    while (i < n && /[!#$%&'*+\-.^_`|~0-9A-Za-z]/.test(header[i] as string)) i++;
    return header.slice(start, i);
  };
  while (i < n) {
    skip();
    const word = token();
    if (!word) {
      // Not a token (a stray quote or "="): skipped, so a malformed header cannot stall the loop.
      i++;
      continue;
    }
    let j = i;
    while (j < n && header[j] === " ") j++;
    // token "=" means an auth-param; a token alone starts the next challenge (its scheme).
    if (header[j] === "=" && out.length > 0) {
      // An auth-param of the current challenge.
      i = j + 1;
      while (i < n && header[i] === " ") i++;
      let value = "";
      if (header[i] === '"') {
        i++;
        while (i < n && header[i] !== '"') {
          // quoted-pair: a backslash escapes the next character.
          if (header[i] === "\\" && i + 1 < n) i++;
          value += header[i];
          i++;
        }
        i++;
      } else {
        const start = i;
        while (i < n && header[i] !== "," && header[i] !== " ") i++;
        value = header.slice(start, i);
      }
      (out[out.length - 1] as { params: { [name: string]: string } }).params[word.toLowerCase()] = value;
      continue;
    }
    out.push({ scheme: word, params: {} });
  }
  return out;
}

/** The Bearer (or DPoP, RFC 9449) challenge of a header, if any. */
export function bearerChallenge(header: string | null | undefined): WwwAuthenticateChallenge | undefined {
  // Scheme names are case-insensitive (RFC 9110 §11.1); a server may offer both, the first wins.
  return parseWwwAuthenticate(header).find((c) => c.scheme.toLowerCase() === "bearer" || c.scheme.toLowerCase() === "dpop");
}

/** `application/x-www-form-urlencoded` body from defined entries. */
export function formBody(fields: { readonly [key: string]: string | undefined }): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) params.set(key, value);
  return params.toString();
}

/** Splits a space-separated scope string into a de-duplicated list. */
export function scopeList(scope: string | undefined | null): string[] {
  // RFC 6749 §3.3: scope tokens are space-delimited and their order carries no meaning.
  return [...new Set((scope ?? "").split(/\s+/).filter(Boolean))];
}
