/**
 * The character classes, confusables table and hidden-markup patterns the catalogue lint looks
 * for. Data only: `catalogue-lint.ts` applies them; the phrase model is `lint-phrases.ts`.
 */

/** Bidirectional controls (Trojan Source, CVE-2021-42574): embeddings, overrides, isolates and marks. */
export const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Invisible characters: zero-width spaces and joiners, word joiner and invisible operators, BOM,
 * soft hyphen, Mongolian vowel separator, Hangul and Braille blanks, Unicode tag characters
 * ("ASCII smuggling"), supplementary variation selectors, and C0/C1 controls other than tab and newline.
 */
export const INVISIBLE = codePointClass(
  [
    [0x0, 0x8],
    [0xb, 0xc],
    [0xe, 0x1f],
    [0x7f, 0x9f],
    [0xad, 0xad],
    [0x115f, 0x1160],
    [0x180e, 0x180e],
    [0x200b, 0x200d],
    [0x2060, 0x2064],
    [0x2800, 0x2800],
    [0x3164, 0x3164],
    [0xfeff, 0xfeff],
    [0xffa0, 0xffa0],
    [0xe0000, 0xe007f],
    [0xe0100, 0xe01ef],
  ],
  "gu",
);

/** Tag characters and supplementary variation selectors can carry a whole hidden message. */
export const SMUGGLING = codePointClass(
  [
    [0xe0000, 0xe007f],
    [0xe0100, 0xe01ef],
  ],
  "u",
);

/** A character class of code point ranges (built, not written: a literal of control characters is what linters reject). */
function codePointClass(ranges: readonly (readonly [number, number])[], flags: string): RegExp {
  const hex = (n: number) => `\\u{${n.toString(16)}}`;
  return new RegExp(`[${ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join("")}]`, flags);
}

/**
 * Characters that look like ASCII letters and digits (Cyrillic, Greek, Armenian, Latin look-alikes,
 * fullwidth forms are folded separately). A small subset of Unicode's confusables.txt covering the
 * letters attackers use in tool-name spoofing; anything else non-ASCII in a name is still flagged.
 */
export const CONFUSABLES: ReadonlyMap<string, string> = new Map(
  [
    // Cyrillic
    "аa вb еe ёe кk мm нh оo рp сc тt уy хx ѕs іi їi јj ԁd ԛq ԝw һh ӏl ѵv үy ԍg АA ВB ЕE КK МM НH ОO РP СC ТT УY ХX ЅS ІI ЈJ ҮY ҺH ԌG",
    // Greek
    "αa οo ρp νv υu τt ιi κk χx εe ϲc ϳj ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX ϹC",
    // Armenian and Latin look-alikes
    "օo սu ցg հh ıi ȷj ɡg ɑa ʟL ᴏo ⅼl ℓl",
    // Dashes and low lines that pass for the ASCII ones in names
    "‐- ‑- ‒- –- —- −- ＿_",
  ]
    .join(" ")
    .split(" ")
    .map((pair) => [...pair] as [string, string]),
);

/** Hidden markup: HTML comments (closed or not), Markdown reference-link comments, elements styled or marked invisible. */
export const HIDDEN_MARKUP: readonly RegExp[] = [
  /<!--/,
  /^[ \t]*\[[^\][\n]{0,500}\]:[ \t]*(?:#|<>)[ \t]*[("]/m,
  // Bounded and stopped at the next "<", so "<a <a <a ..." is linear.
  /<[a-z][^<>]{0,2000}?\b(?:hidden\b|aria-hidden\s*=|style\s*=\s*["'][^"'<>]{0,500}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0))/i,
];
