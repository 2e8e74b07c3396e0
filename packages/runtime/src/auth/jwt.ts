/**
 * JWS compact signing for `private_key_jwt` client assertions (RFC 7523), with WebCrypto only.
 * Keys come as a PKCS#8 PEM ("BEGIN PRIVATE KEY") or a ready CryptoKey.
 */
import type { webcrypto } from "node:crypto";
import { base64url, base64urlText, OAuthError, randomString } from "./oauth-util.js";

/**
 * A WebCrypto key, described structurally so the published typings need neither `@types/node` nor
 * the DOM lib: Node's `webcrypto.CryptoKey` and the DOM's `CryptoKey` both fit.
 */
export interface CryptoKey {
  readonly type: string;
  readonly extractable: boolean;
  readonly algorithm: { readonly name: string };
  readonly usages: readonly string[];
}

type Params = webcrypto.AlgorithmIdentifier | webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
type SignParams = webcrypto.AlgorithmIdentifier | webcrypto.EcdsaParams | webcrypto.RsaPssParams;

/** Signing algorithms supported for client assertions. */
export type JwtAlgorithm = "ES256" | "ES384" | "RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512";

const IMPORT: { readonly [A in JwtAlgorithm]: { readonly import: Params; readonly sign: SignParams } } = {
  ES256: { import: { name: "ECDSA", namedCurve: "P-256" }, sign: { name: "ECDSA", hash: "SHA-256" } },
  ES384: { import: { name: "ECDSA", namedCurve: "P-384" }, sign: { name: "ECDSA", hash: "SHA-384" } },
  RS256: { import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, sign: { name: "RSASSA-PKCS1-v1_5" } },
  RS384: { import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-384" }, sign: { name: "RSASSA-PKCS1-v1_5" } },
  RS512: { import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-512" }, sign: { name: "RSASSA-PKCS1-v1_5" } },
  PS256: { import: { name: "RSA-PSS", hash: "SHA-256" }, sign: { name: "RSA-PSS", saltLength: 32 } },
  PS384: { import: { name: "RSA-PSS", hash: "SHA-384" }, sign: { name: "RSA-PSS", saltLength: 48 } },
  PS512: { import: { name: "RSA-PSS", hash: "SHA-512" }, sign: { name: "RSA-PSS", saltLength: 64 } },
};

/** True when `alg` is one this module can sign with. */
export function isJwtAlgorithm(alg: string): alg is JwtAlgorithm {
  return Object.hasOwn(IMPORT, alg);
}

/** Imports a PKCS#8 PEM private key for `alg`. The error never includes key material. */
export async function importPrivateKey(pem: string, alg: JwtAlgorithm): Promise<CryptoKey> {
  const match = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(pem);
  if (!match?.[1]) {
    throw new OAuthError("bad_configuration", "private key must be a PKCS#8 PEM (-----BEGIN PRIVATE KEY-----)");
  }
  const der = Uint8Array.from(atob(match[1].replace(/\s+/g, "")), (c) => c.charCodeAt(0));
  try {
    return await globalThis.crypto.subtle.importKey("pkcs8", der, IMPORT[alg].import, false, ["sign"]);
  } catch {
    throw new OAuthError("bad_configuration", `private key could not be imported for ${alg}`);
  }
}

/** Signs `payload` as a compact JWS. */
export async function signJwt(
  payload: { readonly [claim: string]: unknown },
  key: CryptoKey,
  alg: JwtAlgorithm,
  header: { readonly [name: string]: unknown } = {},
): Promise<string> {
  const head = base64urlText(JSON.stringify({ alg, typ: "JWT", ...header }));
  const body = base64urlText(JSON.stringify(payload));
  const input = new TextEncoder().encode(`${head}.${body}`);
  const signature = await globalThis.crypto.subtle.sign(IMPORT[alg].sign, key as webcrypto.CryptoKey, input);
  return `${head}.${body}.${base64url(new Uint8Array(signature))}`;
}

/** Builds a `private_key_jwt` client assertion: iss = sub = clientId, aud = the AS issuer, 5 min life. */
export async function createClientAssertion(options: {
  readonly clientId: string;
  readonly audience: string;
  readonly key: CryptoKey;
  readonly alg: JwtAlgorithm;
  readonly now?: number;
}): Promise<string> {
  const iat = Math.floor((options.now ?? Date.now()) / 1000);
  return signJwt(
    { iss: options.clientId, sub: options.clientId, aud: options.audience, iat, exp: iat + 300, jti: randomString(16) },
    options.key,
    options.alg,
  );
}
