/**
 * DPoP (RFC 9449): a per-provider ES256 key, and a fresh proof JWT per HTTP request, bound to the
 * method, the URL (without query or fragment), the access token (`ath`) and a server nonce.
 * WebCrypto only.
 */
import type { webcrypto } from "node:crypto";
import type { CryptoKey } from "./jwt.js";
import { base64url, base64urlText, randomString } from "./oauth-util.js";

/** A DPoP key pair; the public half travels in each proof's `jwk` header. */
export interface DpopKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: { readonly kty: string; readonly crv: string; readonly x: string; readonly y: string };
}

/** Creates a non-extractable ES256 signing key and its public JWK. */
export async function createDpopKey(): Promise<DpopKey> {
  const pair = (await globalThis.crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const jwk = await globalThis.crypto.subtle.exportKey("jwk", pair.publicKey);
  const privateKey = await globalThis.crypto.subtle.importKey(
    "jwk",
    await globalThis.crypto.subtle.exportKey("jwk", pair.privateKey),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  return { privateKey, publicJwk: { kty: "EC", crv: "P-256", x: String(jwk.x), y: String(jwk.y) } };
}

/** `ath`: base64url(SHA-256(access token)). */
export async function accessTokenHash(token: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return base64url(new Uint8Array(digest));
}

/** A DPoP proof for one request. `htu` drops any query and fragment (RFC 9449 §4.2). */
export async function createDpopProof(
  key: DpopKey,
  request: { readonly method: string; readonly url: string; readonly accessToken?: string; readonly nonce?: string },
): Promise<string> {
  const url = new URL(request.url);
  const htu = `${url.protocol}//${url.host}${url.pathname}`;
  const header = base64urlText(JSON.stringify({ typ: "dpop+jwt", alg: "ES256", jwk: key.publicJwk }));
  const claims = {
    jti: randomString(16),
    htm: request.method.toUpperCase(),
    htu,
    iat: Math.floor(Date.now() / 1000),
    ...(request.accessToken ? { ath: await accessTokenHash(request.accessToken) } : {}),
    ...(request.nonce ? { nonce: request.nonce } : {}),
  };
  const payload = base64urlText(JSON.stringify(claims));
  const signature = await globalThis.crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" },
    key.privateKey as webcrypto.CryptoKey,
    new TextEncoder().encode(`${header}.${payload}`),
  );
  return `${header}.${payload}.${base64url(new Uint8Array(signature))}`;
}
