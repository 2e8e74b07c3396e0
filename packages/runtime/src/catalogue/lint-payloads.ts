/**
 * Payloads the phrase rules cannot read as they stand: text hidden in an encoding (base64,
 * base64url, hex, percent-encoding, HTML entities, escape sequences, ROT13) that the model is
 * asked to decode, and markup that makes a client fetch a remote URL (images and other embedded
 * content, URLs with a slot for the user's data): rendering it sends data out in the URL.
 */

/** A stretch of text in an encoding, with what it decodes to. */
export interface Decoded {
  readonly kind: string;
  readonly index: number;
  readonly length: number;
  readonly text: string;
}

/** Fields are bounded before they get here; this bounds the work per field once more. */
const MAX_DECODED = 16;
const BASE64_RUN = /[A-Za-z0-9+/_-]{20,}={0,2}/g;
const HEX_RUN = /\b(?:[0-9a-fA-F]{2}(?:[\s:,]|\\x|0x)?){16,}/g;
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2}[^%\s]{0,3}){6,}/g;
const ENTITY_RUN = /(?:&#(?:x[0-9a-fA-F]{1,6}|[0-9]{1,7});[^&]{0,3}){6,}/g;
const ESCAPE_RUN = /(?:\\(?:u\{?[0-9a-fA-F]{4,6}\}?|x[0-9a-fA-F]{2})[^\\]{0,3}){6,}/g;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Text a model would read as words: mostly printable, with letters. */
export function readableText(text: string): boolean {
  if (text.length < 8) return false;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  const unreadable = text.match(/[^\p{L}\p{N}\p{P}\p{S}\s]/gu)?.length ?? 0;
  return unreadable / text.length <= 0.05 && letters / text.length >= 0.5;
}

/** Natural language: several words separated by spaces, not an identifier or JSON. */
export function naturalLanguage(text: string): boolean {
  return readableText(text) && (text.match(/\p{L}{2,}[\s]+(?=\p{L})/gu)?.length ?? 0) >= 2;
}

function bytesToText(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function fromBase64(run: string): string | undefined {
  const body = run.replace(/=+$/, "");
  // A base64 run of plain words or an identifier (`list_allowed_directories`) is no payload:
  // real encoded data mixes cases and digits.
  if (!/[A-Z]/.test(body) || !/[a-z]/.test(body) || !/[0-9+/_-]/.test(body)) return undefined;
  const std = body.replace(/-/g, "+").replace(/_/g, "/");
  try {
    // atob, not Buffer: this module needs no Node APIs (the catalogue entry point runs anywhere).
    const binary = atob(std.padEnd(std.length + ((4 - (std.length % 4)) % 4), "="));
    return bytesToText(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

function fromHex(run: string): string | undefined {
  const digits = run.replace(/\\x|0x|[\s:,]/g, "");
  if (digits.length % 2 !== 0) return undefined;
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(digits.slice(i * 2, i * 2 + 2), 16);
  return bytesToText(bytes);
}

function codePoints(run: string, pattern: RegExp, radix: (m: string) => number): string | undefined {
  try {
    return run.replace(pattern, (m, n: string) => String.fromCodePoint(Number.parseInt(n, radix(m))));
  } catch {
    return undefined;
  }
}

/** The encoded stretches of `text` that decode to readable text. */
export function decodeAll(text: string): Decoded[] {
  const out: Decoded[] = [];
  const take = (kind: string, pattern: RegExp, decode: (run: string) => string | undefined) => {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null && out.length < MAX_DECODED; m = pattern.exec(text)) {
      const decoded = decode(m[0]);
      if (decoded !== undefined && decoded !== m[0] && readableText(decoded))
        out.push({ kind, index: m.index, length: m[0].length, text: decoded });
    }
  };
  take("base64", BASE64_RUN, fromBase64);
  take("hex", HEX_RUN, fromHex);
  take("percent-encoded", PERCENT_RUN, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return undefined;
    }
  });
  take("HTML entities", ENTITY_RUN, (run) => codePoints(run, /&#x?([0-9a-fA-F]+);/g, (m) => (m.startsWith("&#x") ? 16 : 10)));
  take("escape sequences", ESCAPE_RUN, (run) => codePoints(run, /\\(?:u\{?|x)([0-9a-fA-F]{2,6})\}?/g, () => 16));
  if (/\b(?:rot-?13|rot 13|caesar|rotate (?:each|every|the) letters?)\b/i.test(text))
    out.push({ kind: "ROT13", index: 0, length: text.length, text: rot13(text) });
  if (/\b(?:revers(?:e|ed)|backwards?|right to left|mirror(?:ed)?)\b/i.test(text))
    out.push({ kind: "reversed text", index: 0, length: text.length, text: [...text].reverse().join("") });
  return out;
}

function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** Asking the model to decode or run something (on normalised text). */
export const DECODE_REQUEST =
  /\b(?:decode|decoded|decoding|decipher|decrypt|deobfuscate|unscramble|unencode|atob|b64decode|base64 -d|from base64|un-?base64|rot-?13|reverse the (?:string|text|following|letters))\b|\b(?:base-?64|b64|hex|encoded|obfuscated|encrypted|scrambled|reversed)\b(?:\s+\S+){0,8}?\s+(?:follow|execute|run|obey|apply|perform|carry out|do|act on|treat as)\b/;

/** An opaque blob: an encoded run the reader cannot read as words. */
export function opaqueBlob(text: string): { index: number; length: number } | undefined {
  for (const pattern of [BASE64_RUN, HEX_RUN, PERCENT_RUN, ENTITY_RUN, ESCAPE_RUN]) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      if (pattern === BASE64_RUN && !(/[A-Z]/.test(m[0]) && /[a-z]/.test(m[0]) && /[0-9+/=]/.test(m[0]))) continue;
      return { index: m.index, length: m[0].length };
    }
  }
  return undefined;
}

/*
 * Markdown and HTML that make a client fetch a remote URL when it renders the text. Every pattern
 * is scanned globally with bounded pieces that cannot overlap (an alt text stops at the next
 * bracket, a tag at the next angle bracket, a URL at whitespace), so a hostile 100 KB string of
 * "<img <img ..." costs linear time, not quadratic.
 */
const REMOTE = "(?:[a-z][a-z0-9+.-]*:)?\\s*\\/\\/";
const MD_IMAGE = /!\[([^\][\n]{0,500})\](?:(\()|\[([^\][\n]{0,200})\])?/g;
const MD_TARGET = new RegExp(`^\\s*<?\\s*${REMOTE}`, "i");
const REFERENCE_DEF = /^[ \t]{0,3}\[([^\][\n]{1,200})\]:[ \t]*<?[ \t]*(?:[a-z][a-z0-9+.-]*:)?\/\//gim;
const TAG = /<\s*([a-z][a-z0-9]*)\b([^<>]{0,2000})/gi;
const FETCHING_TAG = new Set(
  "img image iframe frame script link object embed audio video source input svg use track meta picture body table td".split(" "),
);
const FETCHING_ATTRIBUTE = new RegExp(
  `\\b(?:src|href|data|srcset|poster|xlink:href|background|content|action)\\s*=\\s*["']?\\s*${REMOTE}`,
  "i",
);
const CSS_URL = new RegExp(`\\burl\\(\\s*["']?\\s*${REMOTE}`, "i");

/** Where the text embeds a remote image or other fetched content. */
export function remoteImage(text: string): { index: number; length: number } | undefined {
  // Reference-style images (![alt][label], ![label]) need a [label]: https://... line.
  const remoteLabels = new Set<string>();
  REFERENCE_DEF.lastIndex = 0;
  for (let d = REFERENCE_DEF.exec(text); d !== null; d = REFERENCE_DEF.exec(text)) remoteLabels.add((d[1] as string).trim().toLowerCase());
  MD_IMAGE.lastIndex = 0;
  for (let m = MD_IMAGE.exec(text); m !== null; m = MD_IMAGE.exec(text)) {
    // Inline: what follows "](" (a URL may hold parentheses, so its end is not looked for).
    const label = (m[3] || m[1] || "").trim().toLowerCase();
    const inline = m[2] === "(" ? MD_TARGET.test(text.slice(MD_IMAGE.lastIndex, MD_IMAGE.lastIndex + 40)) : false;
    if (inline || (m[2] === undefined && remoteLabels.has(label))) return { index: m.index, length: m[0].length };
  }
  TAG.lastIndex = 0;
  for (let m = TAG.exec(text); m !== null; m = TAG.exec(text))
    if (FETCHING_TAG.has((m[1] as string).toLowerCase()) && FETCHING_ATTRIBUTE.test(m[2] as string))
      return { index: m.index, length: m[0].length };
  const css = CSS_URL.exec(text);
  return css ? { index: css.index, length: css[0].length } : undefined;
}

const DATA_WORD =
  /conversation|history|chat|secret|token|key|password|passwd|credential|cookie|data|result|output|content|summary|context|message|file|email|prompt|answer|response|info|env|ssh|note|query|input|text/i;
// Found from its "//": an optional scheme in front would make the scan quadratic on a long word.
const URL = /\/\/[^\s)"'>\]]{1,2000}/g;
const SLOT =
  /\{\{?\s*([^}\s]{1,40})\s*\}\}?|<([^>\s]{1,40})>|\$\{?([A-Za-z_]{2,40})|\[([A-Za-z_ ]{3,40})\]|%s|(INSERT[A-Z_]*|PLACEHOLDER|YOUR_[A-Z_]+|[A-Z]{2,}_[A-Z_]{2,})/;

/** A URL with a slot the model is meant to fill with the user's data (`https://x/?q={conversation}`). */
export function exfilUrl(text: string): { index: number; length: number } | undefined {
  URL.lastIndex = 0;
  for (let m = URL.exec(text); m !== null; m = URL.exec(text)) {
    // The URL stops at ">" and "]", so a slot written <like this> or [LIKE THIS] is read on to the next space or ")".
    const end = m.index + m[0].length;
    const url = m[0] + (/^[^\s)]{0,42}/.exec(text.slice(end, end + 42))?.[0] ?? "");
    const slot = SLOT.exec(url);
    if (slot && DATA_WORD.test(slot[1] ?? slot[2] ?? slot[3] ?? slot[4] ?? slot[5] ?? "data"))
      return { index: m.index, length: m[0].length };
  }
  return undefined;
}
