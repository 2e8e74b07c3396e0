/**
 * The poisoning lint's checks on one string a server shows the model: hidden and reordering
 * characters, the phrase rules, hidden markup, length, and names of other servers' tools. Apart from
 * catalogue-lint.ts, which walks the catalogues and calls this for every string.
 */
import { quoteExcerpt } from "./catalogue-diff.js";
import { normalise } from "./lint-normalise.js";
import { DECODE_REQUEST } from "./lint-payloads.js";
import type { PhraseContext } from "./lint-phrases.js";
import { BIDI, HIDDEN_MARKUP, INVISIBLE, SMUGGLING } from "./lint-rules.js";
import { excerptAt, textFindings } from "./lint-text.js";
import type { LintFinding } from "./lint-types.js";

/** A zero-width joiner between two pictographs: how family and profession emoji are written. */
const EMOJI_ZWJ = /(\p{Extended_Pictographic}\ufe0f?)\u200d(?=\p{Extended_Pictographic})/gu;
/** Text past this is not scanned but reported: bounds the work a hostile megabyte can cause. */
export const MAX_SCAN = 100_000;

/** Where one string's findings go (server, entry and field already bound). */
export type At = (f: Omit<LintFinding, "server" | "kind" | "tool" | "field">) => void;

/** Distinctive tool names of the other servers, and one pattern matching any of them. */
export interface OtherTools {
  readonly pattern: RegExp | undefined;
  readonly others: readonly { readonly name: string; readonly by: readonly string[] }[];
}

/** Checks one string at `field`; says whether it asks the model to decode something. */
export function checkString(
  at: At,
  field: string,
  text: string,
  isKey: boolean,
  context: PhraseContext,
  maxLength: number,
  cross: OtherTools,
): boolean {
  const scanned = text.length > MAX_SCAN ? text.slice(0, MAX_SCAN) : text;
  const bidi = scanned.search(BIDI);
  if (bidi >= 0)
    at({
      rule: "bidi-control",
      severity: "high",
      message: "contains bidirectional control characters that reorder what is displayed",
      excerpt: excerptAt(scanned, bidi, 1),
    });
  // A zero-width joiner inside an emoji sequence (👨‍👩‍👧) is how emoji are written, not hiding.
  const scan = scanned.replace(EMOJI_ZWJ, "$1");
  const hidden = scan.search(INVISIBLE);
  if (hidden >= 0) {
    const smuggled = SMUGGLING.test(scan);
    at({
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
  if (isKey) return false;
  for (const h of textFindings(scanned, context)) at(h);
  // Markup is matched in the raw text: hiding it inside invisible characters is part of the trick.
  for (const pattern of HIDDEN_MARKUP) {
    const m = pattern.exec(scanned);
    if (!m) continue;
    at({
      rule: "hidden-comment",
      severity: "high",
      message: "contains a hidden HTML or Markdown comment or hidden element",
      excerpt: excerptAt(scanned, m.index, m[0].length),
    });
    break;
  }
  const leaf = field.slice(field.lastIndexOf(".") + 1);
  if (text.length > MAX_SCAN)
    at({
      rule: "long-description",
      severity: "medium",
      message: `is ${text.length} characters long; only the first ${MAX_SCAN} were checked`,
      excerpt: quoteExcerpt(text, 80),
    });
  // Length alone is a smell, not an attack: real servers write 6,000-character descriptions,
  // and what a long one hides is found by the rules above.
  else if ((leaf === "description" || leaf === "instructions") && text.length > maxLength)
    at({
      rule: "long-description",
      severity: "low",
      message: `is ${text.length} characters long (limit ${maxLength}); long text hides instructions`,
      excerpt: quoteExcerpt(text, 80),
    });
  const plain = readable(scanned);
  const ref = cross.pattern?.exec(plain);
  if (ref) {
    const by = cross.others.find((o) => o.name === ref[1])?.by.join(", ");
    at({
      rule: "cross-server-tool",
      severity: "medium",
      message: `names tool ${JSON.stringify(ref[1])} of another server (${by})`,
      excerpt: excerptAt(plain, ref.index, ref[0].length),
    });
  }
  return DECODE_REQUEST.test(normalise(scanned));
}

/** Text as the model effectively reads it, for tool-name references: invisible characters dropped, whitespace collapsed. */
function readable(text: string): string {
  return text.replace(INVISIBLE, "").replace(BIDI, "").replace(/\s+/g, " ");
}
