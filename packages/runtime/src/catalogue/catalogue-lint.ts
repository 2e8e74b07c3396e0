/**
 * The poisoning lint: reads every string a server shows the model (tool names, titles,
 * descriptions, schema text and keys, `_meta`, the server's instructions, prompts and resources)
 * and reports text that steers the model against the user. Used by `toolwright pull` on fresh
 * catalogues and by anyone holding a live one (the manager's `lintTools`).
 */
import { quoteExcerpt } from "./catalogue-diff.js";
import { BIDI, CONFUSABLES, HIDDEN_MARKUP, INVISIBLE, PHRASE_RULES, SMUGGLING, skeleton } from "./lint-rules.js";

/** How bad a finding is: `high` is a likely attack, `medium` needs a look, `low` is a smell. */
export type LintSeverity = "high" | "medium" | "low";

/** The rules. */
export type LintRule =
  | "bidi-control"
  | "invisible-unicode"
  | "confusable-name"
  | "hidden-instructions"
  | "secret-access"
  | "other-tools-data"
  | "hidden-comment"
  | "long-description"
  | "cross-server-tool";

/** One finding, with where it is: server, tool (or prompt/resource; absent for instructions) and field path. */
export interface LintFinding {
  readonly rule: LintRule;
  readonly severity: LintSeverity;
  readonly server: string;
  /** `tool` for tool entries; `instructions`, `prompt`, `resource` for the others. */
  readonly kind: "tool" | "instructions" | "prompt" | "resource";
  /** Tool or prompt name, resource URI; absent for instructions. */
  readonly tool?: string;
  /** Field path inside the entry: `name`, `description`, `inputSchema.properties.path.description`, `instructions`. */
  readonly field: string;
  readonly message: string;
  /** The offending text around the match, JSON-quoted so invisible characters show as escapes. */
  readonly excerpt: string;
}

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

/** A zero-width joiner between two pictographs: how family and profession emoji are written. */
const EMOJI_ZWJ = /(\p{Extended_Pictographic}\ufe0f?)\u200d(?=\p{Extended_Pictographic})/gu;
const SEVERITY_ORDER: { readonly [s in LintSeverity]: number } = { high: 0, medium: 1, low: 2 };
/** Entries come from servers: a hostile 100,000-level `_meta` must not overflow the walk. */
const MAX_DEPTH = 32;

/** Every string of an entry with its path; object keys are yielded too (a key is text the model reads). */
function* strings(value: unknown, path: string, depth = 0): Generator<{ field: string; text: string; key: boolean }> {
  if (typeof value === "string") yield { field: path, text: value, key: false };
  if (depth >= MAX_DEPTH || typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* strings(value[i], `${path}[${i}]`, depth + 1);
    return;
  }
  for (const key of Object.keys(value)) {
    // Icons are URLs and data URIs the model never reads as text; base64 would only make noise.
    if (key === "icons" && depth === 0) continue;
    const child = path === "" ? key : `${path}.${key}`;
    yield { field: child, text: key, key: true };
    yield* strings((value as { readonly [k: string]: unknown })[key], child, depth + 1);
  }
}

/** The match with 30 characters of context each side: enough for a reviewer to judge it, short enough for a log line. */
function excerptAt(text: string, index: number, length: number): string {
  const start = Math.max(0, index - 30);
  return quoteExcerpt(text.slice(start, index + length + 30), 120);
}

/** Text as the model effectively reads it: invisible characters dropped, whitespace collapsed. */
function readable(text: string): string {
  return text.replace(INVISIBLE, "").replace(BIDI, "").replace(/\s+/g, " ");
}

/** A name is distinctive enough to count as a reference when it has a separator, mixed case, or 8+ characters. */
// Short common words ("read", "list") appear in any description; only names like `send_email`
// or `readFile` are likely to mean a tool.
function distinctive(name: string): boolean {
  return name.length >= 4 && (/[_\-.]/.test(name) || /[a-z][A-Z]/.test(name) || name.length >= 8);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Lints catalogues. Findings are sorted by severity, then server, entry and field. Never throws
 * on odd entries: non-string fields are skipped.
 */
export function lintCatalogue(servers: readonly LintServer[], options: LintOptions = {}): LintFinding[] {
  const maxLength = options.maxDescriptionLength ?? 2000;
  const findings: LintFinding[] = [];
  // Which servers list each tool name: a description that names another server's tool is how
  // "tool shadowing" steers the model to misuse that tool (the classic poisoning example).
  const owners = new Map<string, Set<string>>();
  for (const s of servers) for (const t of s.tools) owners.set(t.name, (owners.get(t.name) ?? new Set()).add(s.name));
  const foreign = (server: string) =>
    [...owners].filter(([name, by]) => !by.has(server) && distinctive(name)).map(([name, by]) => ({ name, by: [...by] }));
  // Plain ASCII names by server: a look-alike name is worse when it imitates a real tool next to it.
  const bySkeleton = new Map<string, string[]>();
  for (const s of servers)
    for (const t of s.tools) if (/^[\x20-\x7e]*$/.test(t.name)) bySkeleton.set(t.name, [...(bySkeleton.get(t.name) ?? []), s.name]);

  for (const server of servers) {
    const others = foreign(server.name);
    const crossServer =
      others.length === 0 ? undefined : new RegExp(`(?<![\\w-])(${others.map((o) => escapeRegex(o.name)).join("|")})(?![\\w-])`);
    const add = (
      kind: LintFinding["kind"],
      tool: string | undefined,
      field: string,
      f: Omit<LintFinding, "server" | "kind" | "tool" | "field">,
    ) =>
      findings.push({
        rule: f.rule,
        severity: f.severity,
        server: server.name,
        kind,
        ...(tool === undefined ? {} : { tool }),
        field,
        message: f.message,
        excerpt: f.excerpt,
      });

    const checkText = (kind: LintFinding["kind"], tool: string | undefined, field: string, text: string, isKey: boolean) => {
      const bidi = text.search(BIDI);
      if (bidi >= 0)
        add(kind, tool, field, {
          rule: "bidi-control",
          severity: "high",
          message: "contains bidirectional control characters that reorder what is displayed",
          excerpt: excerptAt(text, bidi, 1),
        });
      // A zero-width joiner inside an emoji sequence (👨‍👩‍👧) is how emoji are written, not hiding.
      const scan = text.replace(EMOJI_ZWJ, "$1");
      const hidden = scan.search(INVISIBLE);
      if (hidden >= 0) {
        const smuggled = SMUGGLING.test(scan);
        add(kind, tool, field, {
          rule: "invisible-unicode",
          severity: smuggled ? "high" : "medium",
          message: smuggled
            ? "carries text in invisible Unicode tag characters or variation selectors"
            : "contains invisible characters (zero-width, controls)",
          excerpt: excerptAt(scan, hidden, 1),
        });
      }
      // Keys are checked for hidden characters only: phrase rules on a property name would flag
      // ordinary names ("password", "token") that are no instruction to anyone.
      if (isKey) return;
      // Phrases are matched in the text as the model reads it, so zero-width characters cannot
      // split "ignore previous instructions" into something no pattern sees.
      const plain = readable(text);
      for (const rule of PHRASE_RULES) {
        for (const pattern of rule.patterns) {
          const m = pattern.exec(plain);
          if (!m) continue;
          add(kind, tool, field, {
            rule: rule.rule,
            severity: rule.severity,
            message: `${rule.message}: ${JSON.stringify(m[0])}`,
            excerpt: excerptAt(plain, m.index, m[0].length),
          });
          break; // one finding per rule and field is enough to send a reviewer there
        }
      }
      // Markup is matched in the raw text: hiding it inside invisible characters is part of the trick.
      for (const pattern of HIDDEN_MARKUP) {
        const m = pattern.exec(text);
        if (!m) continue;
        add(kind, tool, field, {
          rule: "hidden-comment",
          severity: "high",
          message: "contains a hidden HTML or Markdown comment or hidden element",
          excerpt: excerptAt(text, m.index, m[0].length),
        });
        break;
      }
      const leaf = field.slice(field.lastIndexOf(".") + 1);
      if ((leaf === "description" || leaf === "instructions") && text.length > maxLength) {
        add(kind, tool, field, {
          rule: "long-description",
          severity: "medium",
          message: `is ${text.length} characters long (limit ${maxLength}); long text hides instructions`,
          excerpt: quoteExcerpt(text, 80),
        });
      }
      const ref = crossServer?.exec(plain);
      if (ref) {
        const by = others.find((o) => o.name === ref[1])?.by.join(", ");
        add(kind, tool, field, {
          rule: "cross-server-tool",
          severity: "medium",
          message: `names tool ${JSON.stringify(ref[1])} of another server (${by})`,
          excerpt: excerptAt(plain, ref.index, ref[0].length),
        });
      }
    };

    for (const tool of server.tools) {
      checkName(tool.name, (f) => add("tool", tool.name, "name", f), bySkeleton, server.name);
      for (const s of strings(tool, "")) if (s.field !== "name") checkText("tool", tool.name, s.field, s.text, s.key);
    }
    if (typeof server.instructions === "string") checkText("instructions", undefined, "instructions", server.instructions, false);
    for (const p of server.prompts ?? []) for (const s of strings(p, "")) checkText("prompt", p.name, s.field, s.text, s.key);
    for (const r of server.resources ?? []) for (const s of strings(r, "")) checkText("resource", r.uri, s.field, s.text, s.key);
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

type NameFinding = Omit<LintFinding, "server" | "kind" | "tool" | "field">;

/** Names: invisible and bidi characters, confusable letters, and any other non-ASCII character. */
function checkName(name: string, add: (f: NameFinding) => void, asciiNames: ReadonlyMap<string, readonly string[]>, server: string): void {
  const excerpt = quoteExcerpt(name, 80);
  if (name.search(BIDI) >= 0)
    add({ rule: "bidi-control", severity: "high", message: "tool name contains bidirectional control characters", excerpt });
  if (name.search(INVISIBLE) >= 0)
    add({ rule: "invisible-unicode", severity: "high", message: "tool name contains invisible characters", excerpt });
  const odd = [...name].filter(
    (c) => CONFUSABLES.has(c) || ((c.codePointAt(0) as number) > 0x7e && c.search(BIDI) < 0 && c.search(INVISIBLE) < 0),
  );
  if (odd.length === 0) return;
  // The skeleton (UTS #39 style): what the name looks like once look-alikes are mapped to ASCII.
  const look = skeleton(name.replace(INVISIBLE, "").replace(BIDI, ""));
  const imitated = asciiNames.get(look)?.filter((s) => s !== server || look !== name);
  // Listed look-alikes and fullwidth forms (U+FF01 on) are high: they exist to pass for ASCII. Other
  // non-ASCII letters (a name in another script) are only worth a look.
  const confusable = odd.filter((c) => CONFUSABLES.has(c) || (c.codePointAt(0) as number) >= 0xff01);
  const codes = odd.map((c) => `U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}`).join(", ");
  add({
    rule: "confusable-name",
    severity: confusable.length > 0 ? "high" : "medium",
    message:
      confusable.length > 0
        ? `tool name uses look-alike characters (${codes}); it reads as ${JSON.stringify(look)}${imitated?.length ? `, the name of a tool of ${imitated.join(", ")}` : ""}`
        : `tool name has non-ASCII characters (${codes})`,
    excerpt,
  });
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
