/**
 * The skills extension (`io.modelcontextprotocol/skills`, SEP-2640), the host's side of the
 * contract: entry shapes, the checks an entry must pass before a skill may load (complete
 * `resources` with `sha256:` digests and sizes, the URI's last segment equal to the name, the
 * per-skill limits), and verification of what `resources/read` returned against the entry: size,
 * digest, and for `SKILL.md` its parsed frontmatter field by field. Each problem is a `FieldIssue`
 * naming the file and what differed; the caller turns them into a `malformed_result` failure.
 */
import type { FieldIssue } from "../failure/failure.js";
import { parseFrontmatter } from "./frontmatter.js";
import type { ResourceContents } from "./mcp-types.js";

/** The extension id. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";
/** Per-skill limits every host must accept; this host declines skills beyond them (SEP-2640 "Limits"). */
export const SKILL_LIMITS = { resources: 512, totalBytes: 16 * 1024 * 1024 } as const;

/** One file of a skill, with the digest and size of its raw bytes. */
export interface SkillResource {
  readonly uri: string;
  /** `sha256:` and 64 lowercase hex digits. */
  readonly digest: string;
  readonly size: number;
}

/** A skill entry, as `skills/list` and `skills/get` return it. */
export interface SkillEntry {
  /** URI of the skill's `SKILL.md`. */
  readonly uri: string;
  /** The `SKILL.md` frontmatter, verbatim as JSON; `name` and `description` always present. */
  readonly frontmatter: { readonly name: string; readonly description: string; readonly [key: string]: unknown };
  /** Every file of the skill (SKILL.md included), or "dynamic" when the server cannot publish digests. */
  readonly resources: readonly SkillResource[] | "dynamic";
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** True when a server's capabilities declare the skills extension. */
export function declaresSkills(capabilities: { readonly [key: string]: unknown } | undefined): boolean {
  const extensions = capabilities?.extensions as { readonly [key: string]: unknown } | undefined;
  return typeof extensions === "object" && extensions !== null && extensions[SKILLS_EXTENSION] !== undefined;
}

/** The skill's root: the `SKILL.md` URI without `/SKILL.md`. */
export function skillRoot(uri: string): string {
  return uri.slice(0, uri.length - "/SKILL.md".length);
}

/**
 * The problems that keep an entry from loading (empty: it may load). `allowDynamic` accepts
 * `resources: "dynamic"` (no integrity: the frontmatter is still compared).
 */
export function entryProblems(entry: unknown, allowDynamic = false): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const e = entry as { uri?: unknown; frontmatter?: { name?: unknown; description?: unknown }; resources?: unknown } | null;
  if (typeof e !== "object" || e === null) return [{ field: "", constraint: "invalid_field_type", expected: "a skill entry object" }];
  if (typeof e.uri !== "string" || !e.uri.endsWith("/SKILL.md"))
    issues.push({ field: "uri", constraint: "invalid_format", expected: "the URI of a SKILL.md", actual: e.uri });
  const fm = e.frontmatter;
  if (typeof fm !== "object" || fm === null || Array.isArray(fm)) {
    issues.push({ field: "frontmatter", constraint: "missing_field", expected: "the SKILL.md frontmatter object" });
  } else {
    for (const key of ["name", "description"] as const)
      if (typeof fm[key] !== "string") issues.push({ field: `frontmatter.${key}`, constraint: "missing_field", expected: "a string" });
    const last = typeof e.uri === "string" ? skillRoot(e.uri).split("/").pop() : undefined;
    if (typeof fm.name === "string" && last !== undefined && last !== fm.name)
      issues.push({ field: "uri", constraint: "invalid_format", expected: `a skill path ending in ${fm.name}`, actual: e.uri });
  }
  if (e.resources === "dynamic") {
    if (!allowDynamic)
      issues.push({ field: "resources", constraint: "invalid_enum_value", expected: "a digest manifest (dynamic skills are declined)" });
    return issues;
  }
  if (!Array.isArray(e.resources)) {
    issues.push({ field: "resources", constraint: "missing_field", expected: 'an array of files or "dynamic"' });
    return issues;
  }
  const root = typeof e.uri === "string" ? `${skillRoot(e.uri)}/` : undefined;
  let total = 0;
  for (const [i, r] of (e.resources as { uri?: unknown; digest?: unknown; size?: unknown }[]).entries()) {
    if (typeof r?.uri !== "string" || (root !== undefined && !r.uri.startsWith(root)))
      issues.push({ field: `resources[${i}].uri`, constraint: "invalid_format", expected: `a file under ${root}`, actual: r?.uri });
    if (typeof r?.digest !== "string" || !DIGEST.test(r.digest))
      issues.push({
        field: `resources[${i}].digest`,
        constraint: "invalid_format",
        expected: "sha256:<64 lowercase hex>",
        actual: r?.digest,
      });
    if (typeof r?.size !== "number" || !Number.isSafeInteger(r.size) || r.size < 0)
      issues.push({ field: `resources[${i}].size`, constraint: "invalid_range", expected: "a byte count", actual: r?.size });
    else total += r.size;
  }
  if (typeof e.uri === "string" && !(e.resources as { uri?: unknown }[]).some((r) => r?.uri === e.uri))
    issues.push({ field: "resources", constraint: "missing_field", expected: `an entry for ${e.uri} itself` });
  if (e.resources.length > SKILL_LIMITS.resources)
    issues.push({ field: "resources", constraint: "invalid_length", expected: `at most ${SKILL_LIMITS.resources} files` });
  if (total > SKILL_LIMITS.totalBytes)
    issues.push({
      field: "resources",
      constraint: "invalid_range",
      expected: `at most ${SKILL_LIMITS.totalBytes} bytes in all`,
      actual: total,
    });
  return issues;
}

/** The raw bytes a `resources/read` answer carries for `uri`: text as UTF-8, a blob decoded from base64. */
export function contentBytes(contents: readonly ResourceContents[], uri: string): Uint8Array | undefined {
  const item = contents.find((c) => c.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  if (!item) return undefined;
  if ("text" in item && typeof item.text === "string") return new TextEncoder().encode(item.text);
  if ("blob" in item && typeof item.blob === "string") {
    const binary = atob(item.blob);
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  }
  return undefined;
}

/** `sha256:<hex>` of some bytes (Web Crypto, so no Node import). */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * Verifies one file against its manifest entry: a size that differs fails before the digest is
 * even computed (SEP-2640: equivalent to a digest mismatch), then the digest.
 */
export async function fileProblems(bytes: Uint8Array, expected: SkillResource): Promise<FieldIssue[]> {
  if (bytes.byteLength !== expected.size)
    return [{ field: expected.uri, constraint: "invalid_length", expected: `${expected.size} bytes`, actual: bytes.byteLength }];
  const digest = await sha256Digest(bytes);
  return digest === expected.digest
    ? []
    : [{ field: expected.uri, constraint: "invalid_format", expected: expected.digest, actual: digest }];
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && sameJson((a as { [k: string]: unknown })[k], (b as { [k: string]: unknown })[k]))
  );
}

/**
 * Compares a fetched `SKILL.md`'s frontmatter with the entry's, field by field (both ways: a field
 * only one side has is a discrepancy). Returns the text's body and the problems found.
 */
export function frontmatterProblems(text: string, entry: SkillEntry): { readonly body: string; readonly issues: FieldIssue[] } {
  const parsed = parseFrontmatter(text);
  if (!parsed.ok)
    return { body: "", issues: [{ field: `${entry.uri} frontmatter`, constraint: "invalid_format", expected: parsed.message }] };
  const issues: FieldIssue[] = [];
  const want = entry.frontmatter as { readonly [key: string]: unknown };
  for (const key of new Set([...Object.keys(want), ...Object.keys(parsed.value)])) {
    if (!sameJson(parsed.value[key], want[key]))
      issues.push({
        field: `frontmatter.${key}`,
        constraint: "invalid_format",
        expected: JSON.stringify(want[key] ?? null).slice(0, 200),
        actual: parsed.value[key] ?? null,
      });
  }
  return { body: parsed.body, issues };
}
