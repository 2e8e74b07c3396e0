/**
 * Live-catalogue drift: fingerprints of a server's tools (the same canonical JSON and hash that
 * `toolwright pull` writes into the lock) and `checkDrift`, which lists the live server's tools at
 * connect time and reports per tool what was added, removed or changed since the pull.
 */
import type { Caller, CallOptions } from "./caller.js";
import type { ToolFailure } from "./failure.js";

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

/** The parts of a listed tool that make its fingerprint: name, schemas and annotations. */
export interface FingerprintedTool {
  readonly name: string;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** Fingerprint of one `tools/list` entry: `sha256:` + hash of the canonical JSON of name, schemas and annotations. */
export function fingerprintTool(tool: FingerprintedTool): string {
  const { name, inputSchema, outputSchema, annotations } = tool;
  return `sha256:${sha256Hex(canonicalJson({ name, inputSchema, outputSchema, annotations }))}`;
}

/** Fingerprints of a server's catalogue: one per tool, and one for the whole server (over the tool fingerprints). */
export interface CatalogueFingerprints {
  readonly fingerprint: string;
  readonly tools: { readonly [tool: string]: string };
}

/** Fingerprints a whole `tools/list` (order does not matter). Duplicate names keep the last entry. */
export function fingerprintCatalogue(tools: readonly FingerprintedTool[]): CatalogueFingerprints {
  const map: { [tool: string]: string } = {};
  for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) map[tool.name] = fingerprintTool(tool);
  return { fingerprint: `sha256:${sha256Hex(canonicalJson(map))}`, tools: map };
}

/** One tool that differs from the lock. */
export interface ToolDrift {
  readonly tool: string;
  /** `added`: live only; `removed`: in the lock only; `changed`: schemas or annotations differ. */
  readonly change: "added" | "removed" | "changed";
  readonly expected?: string;
  readonly actual?: string;
}

/** What `checkDrift` compares against: the lock's fingerprints as generated code carries them. */
export interface ExpectedCatalogue {
  readonly server?: string;
  readonly fingerprint?: string | null;
  readonly tools: { readonly [tool: string]: string };
}

/** Options for `checkDrift`. */
export interface DriftOptions extends CallOptions {
  /** `warn` (default): report drift through `onWarning` and succeed. `fail`: drift makes the check fail. */
  readonly policy?: "warn" | "fail";
  /** Receives one line per drifted tool under `warn`. Default: `console.warn`. */
  readonly onWarning?: (message: string, drift: ToolDrift) => void;
  /** Only these tools matter (a toolset subset); others are ignored. Default: every tool. */
  readonly tools?: readonly string[];
}

/** The outcome of a drift check. `ok` is false on drift under `fail`, or when the tools could not be listed. */
export type DriftReport =
  | { readonly ok: true; readonly server: string; readonly drift: readonly ToolDrift[] }
  | {
      readonly ok: false;
      readonly server: string;
      readonly drift: readonly ToolDrift[];
      /** One line naming the server and every drifted tool, or why listing failed. */
      readonly message: string;
      /** Set when `tools/list` itself failed. */
      readonly failure?: ToolFailure;
    };

/** Compares live fingerprints with expected ones, per tool, sorted by tool name. */
export function compareCatalogues(
  expected: { readonly [tool: string]: string },
  actual: { readonly [tool: string]: string },
  only?: readonly string[],
): ToolDrift[] {
  const keep = only ? new Set(only) : undefined;
  const names = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].filter((n) => !keep || keep.has(n)).sort();
  const out: ToolDrift[] = [];
  for (const tool of names) {
    const e = Object.hasOwn(expected, tool) ? expected[tool] : undefined;
    const a = Object.hasOwn(actual, tool) ? actual[tool] : undefined;
    if (e === a) continue;
    if (e === undefined) out.push({ tool, change: "added", actual: a as string });
    else if (a === undefined) out.push({ tool, change: "removed", expected: e });
    else out.push({ tool, change: "changed", expected: e, actual: a });
  }
  return out;
}

function describeDrift(server: string, d: ToolDrift): string {
  if (d.change === "added") return `server "${server}": tool "${d.tool}" is live but not in the lock (added since the pull)`;
  if (d.change === "removed") return `server "${server}": tool "${d.tool}" is in the lock but the server no longer lists it (removed)`;
  return `server "${server}": tool "${d.tool}" changed since the pull (schemas or annotations differ; run toolwright pull)`;
}

/**
 * Lists the server's tools through `caller` and compares their fingerprints with `expected`.
 * Never throws: listing failures and drift under `fail` come back as `{ ok: false, message }`.
 */
export async function checkDrift(caller: Caller, expected: ExpectedCatalogue, options: DriftOptions = {}): Promise<DriftReport> {
  const server = caller.server;
  if (!caller.listTools) return { ok: false, server, drift: [], message: `server "${server}": this caller cannot list tools` };
  const { policy = "warn", onWarning = (m: string) => console.warn(m), tools: only, ...callOptions } = options;
  const listed = await caller.listTools(callOptions);
  if (!listed.ok) {
    return {
      ok: false,
      server,
      drift: [],
      message: `server "${server}": cannot list tools: ${listed.failure.message}`,
      failure: listed.failure,
    };
  }
  const drift = compareCatalogues(expected.tools, fingerprintCatalogue(listed.tools).tools, only);
  if (drift.length === 0) return { ok: true, server, drift };
  if (policy === "fail") {
    const list = drift.map((d) => `${d.tool} (${d.change})`).join(", ");
    return { ok: false, server, drift, message: `server "${server}": live catalogue drifted from the lock: ${list}` };
  }
  for (const d of drift) onWarning(describeDrift(server, d), d);
  return { ok: true, server, drift };
}
