/**
 * Tool names that pass for other names. A name is a look-alike when what it looks like (its
 * skeleton, UTS #39 style: NFKC, then Cyrillic, Greek and other Latin look-alikes mapped to ASCII)
 * reads as a plain ASCII name it is not, or as another tool's name, or when it mixes scripts with
 * look-alike letters (`rеad_file` with a Cyrillic е). An honest name in one script that cannot pass
 * for ASCII (`поиск`, `搜索`, `بحث`, `αναζήτηση`) is not: at most a low note that it is not ASCII.
 */
import { BIDI, CONFUSABLES, INVISIBLE } from "./lint-rules.js";

/** What `checkName` reports; the caller adds where. */
export interface NameFinding {
  readonly rule: "bidi-control" | "invisible-unicode" | "confusable-name";
  readonly severity: "high" | "medium" | "low";
  readonly message: string;
}

const SCRIPTS = [
  "Latin",
  "Cyrillic",
  "Greek",
  "Armenian",
  "Georgian",
  "Cherokee",
  "Coptic",
  "Han",
  "Hiragana",
  "Katakana",
  "Hangul",
  "Bopomofo",
  "Arabic",
  "Hebrew",
  "Devanagari",
  "Bengali",
  "Thai",
  "Tamil",
  "Ethiopic",
  "Syriac",
  "Thaana",
].map((name) => ({ name, test: new RegExp(`\\p{Script=${name}}`, "u") }));
/** Scripts written together in one word (UTS #39 "highly restrictive"): Latin with the East Asian scripts. */
const TOGETHER = new Set(["Latin", "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo"]);

function scriptOf(ch: string): string | undefined {
  if (!/\p{L}/u.test(ch)) return undefined;
  return SCRIPTS.find((s) => s.test.test(ch))?.name ?? "Other";
}

/** The name as it looks: compatibility forms folded (fullwidth, mathematical letters), look-alikes mapped to ASCII. */
export function nameSkeleton(name: string): string {
  let out = "";
  for (const ch of name.normalize("NFKC")) out += CONFUSABLES.get(ch) ?? ch;
  return out;
}

/** Mixes scripts that are not written together in one word. */
function mixedScripts(name: string): boolean {
  const scripts = new Set<string>();
  for (const ch of name) {
    const s = scriptOf(ch);
    if (s !== undefined) scripts.add(s);
  }
  if (scripts.size < 2) return false;
  return ![...scripts].every((s) => TOGETHER.has(s));
}

const hex = (c: string) => `U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}`;

/** Names: invisible and bidi characters, and look-alikes of ASCII or of another listed tool. */
export function checkName(name: string, otherNames: (skeleton: string) => readonly string[]): NameFinding[] {
  const out: NameFinding[] = [];
  if (name.search(BIDI) >= 0)
    out.push({ rule: "bidi-control", severity: "high", message: "tool name contains bidirectional control characters" });
  if (name.search(INVISIBLE) >= 0)
    out.push({ rule: "invisible-unicode", severity: "high", message: "tool name contains invisible characters" });
  const visible = name.replace(INVISIBLE, "").replace(BIDI, "");
  const odd = [...visible].filter((c) => (c.codePointAt(0) as number) > 0x7e || CONFUSABLES.has(c));
  if (odd.length === 0) return out;
  const look = nameSkeleton(visible);
  const codes = odd.map(hex).join(", ");
  const imitated = otherNames(look);
  const asciiLike = /^[\x21-\x7e]+$/.test(look) && look !== visible;
  const confusable = odd.some((c) => CONFUSABLES.has(c) || c.normalize("NFKC") !== c);
  const mixed = mixedScripts(visible);
  if (asciiLike || imitated.length > 0 || (mixed && confusable))
    out.push({
      rule: "confusable-name",
      severity: "high",
      message: `tool name uses look-alike characters (${codes}); it reads as ${JSON.stringify(look)}${imitated.length ? `, the name of a tool of ${imitated.join(", ")}` : ""}`,
    });
  else if (mixed) out.push({ rule: "confusable-name", severity: "medium", message: `tool name mixes scripts (${codes})` });
  else
    out.push({
      rule: "confusable-name",
      severity: "low",
      message: `tool name has non-ASCII characters (${codes}) but cannot pass for an ASCII name`,
    });
  return out;
}
