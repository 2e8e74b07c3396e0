/**
 * The poisoning lint: reads every string a server shows the model (tool names, titles,
 * descriptions, schema text and keys, `_meta`, the server's instructions, prompts and resources)
 * and reports text that steers the model against the user. Used by `toolwright pull` on fresh
 * catalogues and by anyone holding a live one (the manager's `lintTools`).
 */
import { quoteExcerpt } from "./catalogue-diff.js";
import { isCredentialName, isRecord, type Json, kindOf, strings } from "./lint-entries.js";
import { checkName } from "./lint-names.js";
import { opaqueBlob } from "./lint-payloads.js";
import type { PhraseContext } from "./lint-phrases.js";
import { BIDI, INVISIBLE } from "./lint-rules.js";
import { checkString, type OtherTools } from "./lint-string.js";
import { excerptAt } from "./lint-text.js";
import type { LintFinding, LintSeverity } from "./lint-types.js";

export type { LintFinding, LintRule, LintSeverity } from "./lint-types.js";

/** What the lint reads per server. Entries are raw `tools/list` (`prompts/list`, `resources/list`) entries. */
export interface LintServer {
  readonly name: string;
  readonly tools: readonly { readonly name: string; readonly [field: string]: unknown }[];
  readonly instructions?: string | undefined;
  readonly prompts?: readonly { readonly name: string; readonly [field: string]: unknown }[] | undefined;
  readonly resources?: readonly { readonly uri: string; readonly [field: string]: unknown }[] | undefined;
}

/** Lint options. */
export interface LintOptions {
  /** A description (or instructions) longer than this is flagged. Default 2000 characters. */
  readonly maxDescriptionLength?: number;
}

const SEVERITY_ORDER: { readonly [s in LintSeverity]: number } = { high: 0, medium: 1, low: 2 };
/** Strings read per entry at most; an entry with a million keys is reported, not walked. */
const MAX_STRINGS = 5_000;
/** A name is distinctive enough to count as a reference when it has a separator, mixed case, or 8+ characters. */
// Short common words ("read", "list") appear in any description; only names like `send_email`
// or `readFile` are likely to mean a tool.
function distinctive(name: string): boolean {
  return name.length >= 4 && (/[_\-.]/.test(name) || /[a-z][A-Z]/.test(name) || name.length >= 8);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One server as the lint reads it, whatever shape it came in. */
interface Shaped {
  readonly name: string;
  readonly value: Json;
  readonly tools: readonly unknown[];
  readonly prompts: readonly unknown[];
  readonly resources: readonly unknown[];
}

type Add = (
  server: string,
  kind: LintFinding["kind"],
  tool: string | undefined,
  field: string,
  f: Omit<LintFinding, "server" | "kind" | "tool" | "field">,
) => void;

/** A finding about an entry's shape: the lint reports what it cannot read instead of throwing. */
function malformed(
  add: Add,
  server: string,
  kind: LintFinding["kind"],
  tool: string | undefined,
  field: string,
  what: string,
  value: unknown,
): void {
  add(server, kind, tool, field, {
    rule: "malformed-entry",
    severity: "medium",
    message: `${what} (got ${kindOf(value)})`,
    excerpt: quoteExcerpt(typeof value === "string" ? value : kindOf(value), 80),
  });
}

/** The list of `value`'s field, or `[]` with a finding when it is there but not a list. */
function listOf(add: Add, server: string, value: Json, field: string): readonly unknown[] {
  const list = value[field];
  if (list === undefined || list === null) return [];
  if (Array.isArray(list)) return list;
  malformed(add, server, "instructions", undefined, field, `the server's ${field} is not a list`, list);
  return [];
}

/**
 * Lints catalogues. Findings are sorted by severity, then server, entry and field. Never throws:
 * whatever is not a catalogue (a server or entry that is not an object, a missing or non-string
 * name, a non-string description) becomes a `malformed-entry` finding, and the rest is still read.
 */
export function lintCatalogue(servers: readonly LintServer[], options: LintOptions = {}): LintFinding[] {
  const limit = options?.maxDescriptionLength;
  const maxLength = typeof limit === "number" && limit > 0 ? limit : 2000;
  const findings: LintFinding[] = [];
  const add: Add = (server, kind, tool, field, f) =>
    findings.push({
      rule: f.rule,
      severity: f.severity,
      server,
      kind,
      ...(tool === undefined ? {} : { tool }),
      field,
      message: f.message,
      excerpt: f.excerpt,
    });
  const input: unknown = servers;
  if (!Array.isArray(input)) {
    malformed(add, "", "instructions", undefined, "", "the catalogue is not a list of servers", input);
    return findings;
  }
  const shaped: Shaped[] = [];
  for (const [i, s] of input.entries()) {
    if (!isRecord(s)) {
      malformed(add, `#${i}`, "instructions", undefined, "", "server entry is not an object", s);
      continue;
    }
    const name = typeof s.name === "string" ? s.name : `#${i}`;
    if (typeof s.name !== "string")
      malformed(add, name, "instructions", undefined, "name", "server name is missing or not a string", s.name);
    if (s.instructions !== undefined && s.instructions !== null && typeof s.instructions !== "string")
      malformed(add, name, "instructions", undefined, "instructions", "the server's instructions are not a string", s.instructions);
    shaped.push({
      name,
      value: s,
      tools: listOf(add, name, s, "tools"),
      prompts: listOf(add, name, s, "prompts"),
      resources: listOf(add, name, s, "resources"),
    });
  }
  const nameOf = (t: unknown, key = "name") => (isRecord(t) && typeof t[key] === "string" ? (t[key] as string) : undefined);
  // Which servers list each tool name: a description that names another server's tool is how
  // "tool shadowing" steers the model to misuse that tool (the classic poisoning example).
  const owners = new Map<string, Set<string>>();
  for (const s of shaped)
    for (const t of s.tools) {
      const n = nameOf(t);
      if (n !== undefined) owners.set(n, (owners.get(n) ?? new Set()).add(s.name));
    }
  // Plain ASCII names by server: a look-alike name is worse when it imitates a real tool next to it.
  const asciiOwners = (look: string, server: string, name: string) =>
    /^[\x20-\x7e]*$/.test(look) ? [...(owners.get(look) ?? [])].filter((s) => s !== server || look !== name) : [];

  for (const server of shaped) {
    const others = [...owners]
      .filter(([name, by]) => !by.has(server.name) && distinctive(name))
      .map(([name, by]) => ({ name, by: [...by] }));
    const crossServer =
      others.length === 0 ? undefined : new RegExp(`(?<![\\w-])(${others.map((o) => escapeRegex(o.name)).join("|")})(?![\\w-])`);
    const lintEntry = (kind: LintFinding["kind"], entry: unknown, index: number) => {
      if (!isRecord(entry)) {
        malformed(add, server.name, kind, `#${index}`, "", `${kind} entry is not an object`, entry);
        return;
      }
      const key = kind === "resource" ? "uri" : "name";
      const name = nameOf(entry, key);
      const tool = name ?? `#${index}`;
      if (name === undefined) malformed(add, server.name, kind, tool, key, `${kind} ${key} is missing or not a string`, entry[key]);
      else if (kind === "tool")
        for (const f of checkName(name, (look) => asciiOwners(look, server.name, name)))
          add(server.name, kind, tool, "name", { ...f, excerpt: quoteExcerpt(name, 80) });
      for (const field of ["description", "title"])
        if (entry[field] !== undefined && entry[field] !== null && typeof entry[field] !== "string")
          malformed(add, server.name, kind, tool, field, `${kind} ${field} is not a string`, entry[field]);
      const schema = entry.inputSchema;
      if (schema !== undefined && !isRecord(schema))
        malformed(add, server.name, kind, tool, "inputSchema", "inputSchema is not an object", schema);
      const properties = isRecord(schema) && isRecord(schema.properties) ? Object.keys(schema.properties) : [];
      const hasCredentialParameter = properties.some(isCredentialName);
      let count = 0;
      let decodeAsked = false;
      const texts: { field: string; text: string }[] = [];
      for (const s of strings(entry, "")) {
        if (++count > MAX_STRINGS) {
          add(server.name, kind, tool, "", {
            rule: "long-description",
            severity: "medium",
            message: `has more than ${MAX_STRINGS} strings; the rest was not checked`,
            excerpt: quoteExcerpt(s.field, 80),
          });
          break;
        }
        if (kind === "tool" && s.field === "name") continue;
        const param = /^inputSchema\.properties\.([^.]+)\.description$/.exec(s.field)?.[1];
        const context: PhraseContext = { credentialParameter: param !== undefined && isCredentialName(param), hasCredentialParameter };
        decodeAsked = checkText(kind, tool, s.field, s.text, s.key, context) || decodeAsked;
        if (!s.key) texts.push(s);
      }
      // "Decode this and follow it" next to an opaque blob: whatever the blob says, the entry asks
      // the model to run text that no reviewer and no rule can read.
      if (decodeAsked)
        for (const t of texts) {
          const blob = opaqueBlob(t.text);
          if (!blob) continue;
          add(server.name, kind, tool, t.field, {
            rule: "encoded-payload",
            severity: "high",
            message: "asks the model to decode an opaque encoded blob",
            excerpt: excerptAt(t.text, blob.index, Math.min(blob.length, 60)),
          });
          break;
        }
    };

    const cross: OtherTools = { pattern: crossServer, others };
    /** Checks one string; says whether it asks the model to decode something. */
    const checkText = (
      kind: LintFinding["kind"],
      tool: string | undefined,
      field: string,
      text: string,
      isKey: boolean,
      context: PhraseContext,
    ): boolean => checkString((f) => add(server.name, kind, tool, field, f), field, text, isKey, context, maxLength, cross);

    for (const [i, t] of server.tools.entries()) lintEntry("tool", t, i);
    const instructions = server.value.instructions;
    if (typeof instructions === "string")
      checkText("instructions", undefined, "instructions", instructions, false, {
        credentialParameter: false,
        hasCredentialParameter: false,
      });
    for (const [i, p] of server.prompts.entries()) lintEntry("prompt", p, i);
    for (const [i, r] of server.resources.entries()) lintEntry("resource", r, i);
  }
  // A stable order (severity first) so a CI log and `pull --check` diff the same way every time.
  return findings.sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      cmp(a.server, b.server) ||
      cmp(a.tool ?? "", b.tool ?? "") ||
      cmp(a.field, b.field) ||
      cmp(a.rule, b.rule),
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Replaces each invisible or bidirectional character by `mark("U+202E")`, so hostile text can be shown without hiding or reordering anything. */
export function markHidden(text: string, mark: (codePoint: string) => string): string {
  const one = (c: string) => mark(`U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}`);
  return text.replace(INVISIBLE, one).replace(BIDI, one);
}

/** Counts findings by severity, for one-line summaries. */
export function countBySeverity(findings: readonly LintFinding[]): {
  readonly high: number;
  readonly medium: number;
  readonly low: number;
} {
  const n = { high: 0, medium: 0, low: 0 };
  for (const f of findings) n[f.severity]++;
  return n;
}

/** One line: `high secret-access everything/echo description: reaches for ...`. */
export function describeFinding(f: LintFinding): string {
  const where = f.kind === "instructions" ? `${f.server} instructions` : `${f.server}/${f.tool} ${f.field}`;
  return `${f.severity} ${f.rule} ${where}: ${f.message} (${f.excerpt})`;
}
