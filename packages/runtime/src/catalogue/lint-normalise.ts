/**
 * Text as the model reads it, for the phrase rules: the tricks that keep a phrase readable to a
 * model but invisible to a pattern (zero-width characters, look-alike letters, fullwidth and
 * mathematical letters, accents, letter spacing, leetspeak, Markdown emphasis) are undone, so one
 * phrase model covers every spelling of it.
 */
import { BIDI, CONFUSABLES, INVISIBLE } from "./lint-rules.js";

/** Digits and signs that stand for letters inside a word ("1gn0re", "@ll"). */
// "@" and "$" are left alone: they are how addresses and variables are written.
const LEET: { readonly [c: string]: string } = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t" };

/**
 * Lower-case, NFKC-folded (fullwidth and mathematical letters become ASCII), accents and
 * invisible characters dropped, Cyrillic and Greek look-alikes mapped to Latin, emphasis marks
 * turned into spaces, leetspeak inside words and letter-spaced words ("i g n o r e") undone,
 * whitespace collapsed. Sentence ends (. ! ? ;) are kept as ". " so a rule can ask for two
 * words in one sentence; line breaks end a sentence too, unless `lines` is false (a phrase broken
 * over lines is still one phrase to the model).
 */
export function normalise(text: string, lines = true): string {
  let t = text.replace(INVISIBLE, "").replace(BIDI, "").normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFKC");
  let mapped = "";
  for (const ch of t) mapped += CONFUSABLES.get(ch) ?? ch;
  t = mapped
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc\u00b4]/g, "'")
    .replace(/[\u201c\u201d\u00ab\u00bb]/g, '"');
  // Leetspeak only inside a word that also has letters, so numbers and versions stay what they are.
  t = t.replace(/[a-z0-9@$]*[a-z][a-z0-9@$]*/g, (w) =>
    /[0-9@$]/.test(w) && /[a-z].*[a-z]/.test(w) ? w.replace(/[0-9@$]/g, (c) => LEET[c] ?? c) : w,
  );
  // Letter spacing: three or more single letters joined by one separator become one word.
  t = t.replace(/\b[a-z](?:[ .\-_*/|][a-z]\b){2,}/g, (w) => w.replace(/[ .\-_*/|]/g, ""));
  return t
    .replace(/[\r\n]+/g, lines ? ". " : " ")
    .replace(/[*_~`#>|[\](){}"]+/g, " ")
    .replace(/(^|\s)'+|'+(?=[\s.!?;:]|$)/g, "$1 ")
    .replace(/[.!?;]+(?=\s|$)/g, ".")
    .replace(/\s+/g, " ")
    .trim();
}
