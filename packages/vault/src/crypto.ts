/**
 * Encryption at rest for the vault: AES-256-GCM from node:crypto (an authenticated cipher in the
 * platform, so no dependency and nothing hand-rolled), a fresh 96-bit nonce per write, the key id
 * kept beside each row, and associated data that binds a row to its place (principal and resource
 * for tokens, issuer for clients): a row copied under another principal fails authentication
 * instead of handing that principal someone else's grant.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** One encryption key the application supplies: an id (stored per row) and 32 bytes (raw, or base64). */
export interface VaultKey {
  readonly id: string;
  readonly key: Uint8Array | string;
}

/** Why a vault operation failed. Messages name the principal, resource or key id, never a secret. */
export class VaultError extends Error {
  constructor(
    readonly code: "bad_key" | "key_missing" | "decrypt_failed" | "bad_option" | "migration_failed",
    message: string,
  ) {
    super(message);
    this.name = "VaultError";
  }
}

/** The keys in use: the active one encrypts, every one decrypts (older keys stay until `rotate()` is done). */
export interface KeyRing {
  readonly activeId: string;
  seal(plaintext: string, aad: string): { readonly keyId: string; readonly sealed: Buffer };
  /** Decrypts; `where` names the row for the error ("principal \"alice\", resource https://..."). */
  open(keyId: string, sealed: Buffer, aad: string, where: string): string;
  has(keyId: string): boolean;
}

const NONCE = 12;
const TAG = 16;
const KEY_ID = /^[A-Za-z0-9._:-]{1,64}$/;

function keyBytes(key: VaultKey): Buffer {
  const bytes = typeof key.key === "string" ? Buffer.from(key.key, "base64") : Buffer.from(key.key);
  if (bytes.length !== 32) {
    throw new VaultError("bad_key", `vault key "${key.id}" must be 32 bytes (AES-256), got ${bytes.length}`);
  }
  return bytes;
}

/** Builds the key ring: the first key is the active one. Throws on an empty ring, a bad id or length, or a repeated id. */
export function createKeyRing(keys: readonly VaultKey[]): KeyRing {
  if (!Array.isArray(keys) || keys.length === 0)
    throw new VaultError("bad_option", "vault: `keys` needs at least one key (the first encrypts)");
  const byId = new Map<string, Buffer>();
  for (const key of keys) {
    if (typeof key?.id !== "string" || !KEY_ID.test(key.id)) {
      throw new VaultError("bad_key", `vault: key id ${JSON.stringify(String(key?.id)).slice(0, 80)} must be 1-64 of A-Z a-z 0-9 . _ : -`);
    }
    if (byId.has(key.id)) throw new VaultError("bad_key", `vault: key id "${key.id}" appears twice`);
    byId.set(key.id, keyBytes(key));
  }
  const activeId = (keys[0] as VaultKey).id;
  return {
    activeId,
    has: (keyId) => byId.has(keyId),
    seal(plaintext, aad) {
      const nonce = randomBytes(NONCE);
      const cipher = createCipheriv("aes-256-gcm", byId.get(activeId) as Buffer, nonce);
      cipher.setAAD(Buffer.from(aad, "utf8"));
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return { keyId: activeId, sealed: Buffer.concat([nonce, cipher.getAuthTag(), body]) };
    },
    open(keyId, sealed, aad, where) {
      const key = byId.get(keyId);
      if (!key) throw new VaultError("key_missing", `vault: ${where} is encrypted with key "${keyId}", which is not in the key ring`);
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, NONCE));
        decipher.setAAD(Buffer.from(aad, "utf8"));
        decipher.setAuthTag(sealed.subarray(NONCE, NONCE + TAG));
        return Buffer.concat([decipher.update(sealed.subarray(NONCE + TAG)), decipher.final()]).toString("utf8");
      } catch {
        // GCM says only "unable to authenticate": a wrong key under the right id, or a row moved or altered.
        throw new VaultError(
          "decrypt_failed",
          `vault: cannot decrypt ${where} with key "${keyId}" (wrong key for that id, or the row was copied or altered)`,
        );
      }
    },
  };
}

/** Associated data of a token row: its principal and resource. */
export function tokenAad(principal: string, resource: string): string {
  return `toolwright-vault/1\u0000tokens\u0000${principal}\u0000${resource}`;
}

/** Associated data of a client row: its issuer. */
export function clientAad(issuer: string): string {
  return `toolwright-vault/1\u0000client\u0000${issuer}`;
}

/** How a row is named in errors (JSON-quoted, so odd characters cannot forge the message). */
export function tokenWhere(principal: string, resource: string): string {
  return `the tokens of principal ${JSON.stringify(principal)} for resource ${JSON.stringify(resource)}`;
}

/** How a client row is named in errors. */
export function clientWhere(issuer: string): string {
  return `the client registration at ${JSON.stringify(issuer)}`;
}
