/**
 * The character classes, confusables table and phrase patterns the catalogue lint looks for.
 * Data only: `catalogue-lint.ts` applies them. Patterns are matched on text with invisible
 * characters removed and whitespace collapsed, so "do\u200bnot tell" still reads as "do not tell".
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
    "аa вb еe ёe кk мm нh оo рp сc тt уy хx ѕs іi їi јj ԁd ԛq ԝw һh ӏl АA ВB ЕE КK МM НH ОO РP СC ТT УY ХX ЅS ІI ЈJ",
    // Greek
    "αa οo ρp νv υu τt ιi κk χx εe ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX",
    // Armenian and Latin look-alikes
    "օo սu ցg հh ıi ȷj ɡg ɑa ʟL ᴏo ⅼl ℓl",
    // Dashes and low lines that pass for the ASCII ones in names
    "‐- ‑- ‒- –- —- −- ＿_",
  ]
    .join(" ")
    .split(" ")
    .map((pair) => [...pair] as [string, string]),
);

/** Folds fullwidth ASCII (U+FF01..U+FF5E) and the table above to an ASCII skeleton. */
export function skeleton(name: string): string {
  let out = "";
  for (const ch of name) {
    const code = ch.codePointAt(0) as number;
    if (code >= 0xff01 && code <= 0xff5e) out += String.fromCodePoint(code - 0xfee0);
    else out += CONFUSABLES.get(ch) ?? ch;
  }
  return out;
}

/** A phrase rule: what it means, how bad, and the patterns (case-insensitive) that show it. */
export interface PhraseRule {
  readonly rule: "hidden-instructions" | "secret-access" | "other-tools-data";
  readonly severity: "high" | "medium";
  readonly message: string;
  readonly patterns: readonly RegExp[];
}

/** Text aimed at the model: hiding things from the user, overriding instructions, reaching for secrets or other tools' data. */
export const PHRASE_RULES: readonly PhraseRule[] = [
  {
    rule: "hidden-instructions",
    severity: "high",
    message: "tells the model to hide something from the user or to override its instructions",
    patterns: [
      /\b(?:do not|don't|never|must not|mustn't|should not|shouldn't)\s+(?:\w+\s+){0,2}(?:tell|inform|mention|reveal|show|disclose|alert|notify|warn)\b.{0,40}?\b(?:user|human|operator|person)s?\b/i,
      /\bwithout\s+(?:telling|informing|notifying|alerting|asking|warning)\s+(?:the\s+)?(?:user|human|operator)\b/i,
      /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|other|system|original)\s+(?:instructions|prompts?|rules|directions|guidelines)\b/i,
      /\b(?:the\s+)?user\s+(?:must|should)\s+not\s+(?:know|see|notice|be\s+told)\b/i,
      /\bhide\s+(?:this|it|that|the\s+\w+)\s+from\s+(?:the\s+)?(?:user|human)\b/i,
      /\bkeep\s+(?:this|it)\s+(?:a\s+)?secret\b|\bsecretly\b/i,
      /<\/?\s*(?:important|system|instructions?|secret|hidden)\s*>/i,
      /\b(?:you\s+are\s+now|new\s+instructions\s*:|this\s+is\s+a\s+system\s+message)\b/i,
    ],
  },
  {
    rule: "secret-access",
    severity: "high",
    message: "reaches for secrets or credential files",
    patterns: [
      /~\/\.ssh\b|\.ssh\/(?:id_|authorized_keys|config)|\bid_(?:rsa|ed25519|ecdsa|dsa)\b/i,
      /(?:^|[\s"'`(/:])\.env(?:\.\w+)?\b/i,
      /~\/\.aws\b|\.aws\/credentials|~\/\.npmrc|\.netrc\b|\/etc\/(?:passwd|shadow)\b|\.kube\/config|\.docker\/config\.json|\.git-credentials|~\/\.gnupg/i,
      /\b(?:mcp|claude_desktop_config)\.json\b|~\/\.cursor\b/i,
    ],
  },
  {
    rule: "secret-access",
    severity: "medium",
    message: "asks for secrets or credentials",
    patterns: [
      /\b(?:api[_ -]?keys?|access[_ -]?tokens?|auth(?:entication)?[_ -]?tokens?|bearer\s+tokens?|refresh[_ -]?tokens?|secret[_ -]?keys?|private[_ -]?keys?|passwords?|passphrases?|credentials|session\s+cookies?|seed\s+phrases?)\b/i,
    ],
  },
  {
    rule: "other-tools-data",
    severity: "medium",
    message: "asks for other tools' data or the conversation, or to send data elsewhere",
    patterns: [
      /\b(?:other|all|every|previous|earlier)\s+tools?'?\s*(?:results?|outputs?|responses?|data|descriptions?)\b/i,
      /\b(?:conversation|chat|message)\s+history\b|\bprevious\s+(?:messages|conversation)\b|\bentire\s+(?:conversation|context)\b/i,
      /\b(?:send|forward|upload|post|exfiltrate|transmit|copy|bcc)\b.{0,60}?\b(?:to|at)\s+(?:https?:\/\/|[\w.+-]+@[\w-]+\.[\w.]+)/i,
    ],
  },
];

/** Hidden markup: HTML comments (closed or not), Markdown reference-link comments, elements styled or marked invisible. */
export const HIDDEN_MARKUP: readonly RegExp[] = [
  /<!--/,
  /^\s*\[[^\]\n]*\]:\s*(?:#|<>)\s*[("]/m,
  /<[a-z][^>]*\b(?:hidden\b|aria-hidden\s*=|style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0))/i,
];
