/**
 * A pseudonym of the principal for telemetry, opt-in: spans and events may carry
 * `toolwright.principal.hash`, a truncated HMAC-SHA256 of the principal's id under a key the
 * application supplies (or whatever the application's own function returns), so that one user's
 * calls can be grouped in traces without the id itself (often an email address) ever being
 * written there. Without the key nothing is added. Web Crypto only (the `node:crypto` import is
 * types only): the runtime's root entry stays free of Node built-ins.
 */
import type { webcrypto } from "node:crypto";
import { type Principal, principalKey } from "../caller/principal.js";

/** The span attribute (and event field `principalHash`) that carries the pseudonym. */
export const PRINCIPAL_HASH_ATTRIBUTE = "toolwright.principal.hash";

/** How principals are pseudonymized in telemetry (`TelemetryOptions.principalHash`): an HMAC key or a function. */
export type PrincipalHashOption = string | Uint8Array | ((principal: Principal) => string | Promise<string>);

/** Computes the attribute for a call's principal; undefined adds nothing. Never throws. */
export type PrincipalHasher = (principal: Principal | undefined) => Promise<string | undefined>;

/** Hex characters kept from the HMAC: 64 bits, enough to tell users apart in a trace store. */
const HASH_HEX = 16;
/** Pseudonyms remembered per runtime (one HMAC per principal, not per call). */
const CACHE_LIMIT = 4096;
const SAFE_VALUE = /^[A-Za-z0-9_.:-]{1,128}$/;

function keyBytes(key: string | Uint8Array): Uint8Array {
  const bytes = typeof key === "string" ? new TextEncoder().encode(key) : key;
  if (!(bytes instanceof Uint8Array) || bytes.length < 16) {
    throw new TypeError("telemetry.principalHash: the key must be at least 16 bytes (a string or a Uint8Array)");
  }
  return new Uint8Array(bytes); // a copy: the caller changing its buffer later changes nothing here
}

async function hmacHex(key: Promise<webcrypto.CryptoKey>, id: string): Promise<string> {
  const mac = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", await key, new TextEncoder().encode(id)));
  let hex = "";
  for (const byte of mac.subarray(0, HASH_HEX / 2)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** The hasher of `option`, or undefined without one. Throws a TypeError for a key that is too short. */
export function createPrincipalHasher(option: PrincipalHashOption | undefined): PrincipalHasher | undefined {
  if (option === undefined) return undefined;
  const cache = new Map<string, string | undefined>();
  let compute: (principal: Principal, id: string) => Promise<string | undefined>;
  if (typeof option === "function") {
    compute = async (principal, id) => {
      const value = await option({ ...principal });
      // The application's function must pseudonymize: the id itself (or an unsafe string) is dropped.
      return typeof value === "string" && value !== id && SAFE_VALUE.test(value) ? value : undefined;
    };
  } else {
    const raw = keyBytes(option);
    let key: Promise<webcrypto.CryptoKey> | undefined;
    compute = (_principal, id) => {
      key ??= globalThis.crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return hmacHex(key, id);
    };
  }
  return async (principal) => {
    if (principal === undefined) return undefined;
    try {
      const id = principalKey(principal);
      if (cache.has(id)) return cache.get(id);
      const value = await compute(principal, id);
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(id, value);
      return value;
    } catch {
      // Telemetry never fails a call: a bad principal or a throwing function adds nothing.
      return undefined;
    }
  };
}
