/**
 * Catalogue fingerprints: canonical JSON and SHA-256 of everything a server shows the model (each
 * tool's whole `tools/list` entry, the server's `instructions`, and prompts and resources when a
 * caller has them). `toolwright pull` writes these into the lock; the runtime recomputes them live.
 */
/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, `undefined` members
 * dropped. Two values with the same JSON meaning give the same text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) return "null";
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const obj = value as { readonly [key: string]: unknown };
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 of a string's UTF-8 bytes, as lowercase hex. Synchronous and dependency-free. */
export function sha256Hex(text: string): string {
  const data = new TextEncoder().encode(text);
  const bitLength = data.length * 8;
  const padded = new Uint8Array(Math.ceil((data.length + 9) / 64) * 64);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as [number, number, number, number, number, number, number, number];
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const next = [a, b, c, d, e, f, g, hh];
    for (let i = 0; i < 8; i++) h[i] = (h[i]! + next[i]!) >>> 0;
  }
  return [...h].map((x) => x.toString(16).padStart(8, "0")).join("");
}

/** A listed entry that can be fingerprinted: a tool (by `name`), and any other fields it carries. */
export interface FingerprintedTool {
  readonly name: string;
  readonly [field: string]: unknown;
}

/**
 * Fields left out of fingerprints: `icons` are shown to people, never to the model, and servers
 * re-host them freely. Everything else in an entry (title, description, schemas with their nested
 * descriptions, annotations, `execution`, `_meta`) can steer the model or change behaviour.
 */
const UNPINNED_FIELDS: ReadonlySet<string> = new Set(["icons"]);

/** The part of an entry that is pinned: every field except `icons`. */
export function pinnedPart(entry: { readonly [field: string]: unknown }): { readonly [field: string]: unknown } {
  const out: { [field: string]: unknown } = Object.create(null);
  for (const key of Object.keys(entry)) if (!UNPINNED_FIELDS.has(key)) out[key] = entry[key];
  return out;
}

/** Fingerprint of one listed entry (a tool, prompt or resource): `sha256:` + hash of the canonical JSON of its pinned part. */
export function fingerprintEntry(entry: { readonly [field: string]: unknown }): string {
  return `sha256:${sha256Hex(canonicalJson(pinnedPart(entry)))}`;
}

/** Fingerprint of one `tools/list` entry: name, title, description, schemas, annotations, `_meta` and the rest (not `icons`). */
export function fingerprintTool(tool: FingerprintedTool): string {
  return fingerprintEntry(tool);
}

/** What else a server shows the model besides tools. Prompts and resources slot in as the lock gains them. */
export interface CatalogueExtras {
  /** The `instructions` of the server's `initialize` (or `server/discover`) answer. */
  readonly instructions?: string | undefined;
  /** `prompts/list` entries (keyed by `name`). */
  readonly prompts?: readonly { readonly name: string; readonly [field: string]: unknown }[] | undefined;
  /** `resources/list` entries (keyed by `uri`). */
  readonly resources?: readonly { readonly uri: string; readonly [field: string]: unknown }[] | undefined;
  /** `resources/templates/list` entries (keyed by `uriTemplate`). */
  readonly resourceTemplates?: readonly { readonly uriTemplate: string; readonly [field: string]: unknown }[] | undefined;
}

/** Fingerprints of a server's catalogue: one per tool (prompt, resource), and one for the whole server over all of them. */
export interface CatalogueFingerprints {
  readonly fingerprint: string;
  readonly tools: { readonly [tool: string]: string };
  readonly instructions?: string;
  readonly prompts?: { readonly [prompt: string]: string };
  readonly resources?: { readonly [uri: string]: string };
  readonly resourceTemplates?: { readonly [uriTemplate: string]: string };
}

function printsBy<T extends { readonly [field: string]: unknown }>(entries: readonly T[], key: (e: T) => string): { [k: string]: string } {
  // Names are the server's: "__proto__" or "constructor" must be plain keys.
  const map = Object.create(null) as { [k: string]: string };
  const sorted = [...entries].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  for (const entry of sorted) map[key(entry)] = fingerprintEntry(entry);
  return map;
}

/**
 * Fingerprints a whole catalogue (order does not matter; duplicate names keep the last entry).
 * The server fingerprint covers the tool fingerprints and, when present, the instructions,
 * prompts, resources and resource templates; absent extras leave it as it would be without them.
 */
export function fingerprintCatalogue(tools: readonly FingerprintedTool[], extras: CatalogueExtras = {}): CatalogueFingerprints {
  const map = printsBy(tools, (t) => t.name);
  const instructions = typeof extras.instructions === "string" ? `sha256:${sha256Hex(extras.instructions)}` : undefined;
  const prompts = extras.prompts ? printsBy(extras.prompts, (p) => p.name) : undefined;
  const resources = extras.resources ? printsBy(extras.resources, (r) => r.uri) : undefined;
  const resourceTemplates = extras.resourceTemplates ? printsBy(extras.resourceTemplates, (t) => t.uriTemplate) : undefined;
  const fingerprint = `sha256:${sha256Hex(canonicalJson({ tools: map, instructions, prompts, resources, resourceTemplates }))}`;
  return {
    fingerprint,
    tools: map,
    ...(instructions ? { instructions } : {}),
    ...(prompts ? { prompts } : {}),
    ...(resources ? { resources } : {}),
    ...(resourceTemplates ? { resourceTemplates } : {}),
  };
}
