/**
 * What one string says to the model: the phrase model on its normalised form, tags that pose as
 * system text, remote images and URLs with a slot for the user's data, and the same checks again
 * on whatever it hides in an encoding. Used by `catalogue-lint.ts` for every text field.
 */
import { quoteExcerpt } from "./catalogue-diff.js";
import { normalise } from "./lint-normalise.js";
import { decodeAll, exfilUrl, naturalLanguage, remoteImage } from "./lint-payloads.js";
import { matchPhrases, type PhraseContext } from "./lint-phrases.js";
import { BIDI, INVISIBLE } from "./lint-rules.js";

/** A finding in one text, before the caller adds where it is. */
export interface TextHit {
  readonly rule: "hidden-instructions" | "secret-access" | "other-tools-data" | "remote-image" | "exfil-url" | "encoded-payload";
  readonly severity: "high" | "medium" | "low";
  readonly message: string;
  readonly excerpt: string;
}

/** Encodings inside encodings are unwrapped this deep (base64 of hex of the phrase). */
const MAX_NESTING = 2;
/** Decoded text is checked up to this length: a payload is short, and nesting must not multiply the work. */
const MAX_DECODED_SCAN = 20_000;
/** Tags and chat-template tokens that pose as system text. */
const FAKE_SYSTEM =
  /<\/?\s*(?:important|system|instructions?|secret|hidden|admin|priority|system[-_ ]?prompt)\s*>|\[\/?(?:system|inst|important|admin)\]|<\|(?:im_start|im_end|system|endoftext|start_header_id)\|>/i;

/** The match with 30 characters of context each side: enough for a reviewer to judge it, short enough for a log line. */
export function excerptAt(text: string, index: number, length: number): string {
  const start = Math.max(0, index - 30);
  return quoteExcerpt(text.slice(start, index + length + 30), 120);
}

/** Every finding in `text` (already cut to the scan limit by the caller). */
export function textFindings(text: string, context: PhraseContext, depth = 0): TextHit[] {
  const hits: TextHit[] = [];
  const plain = normalise(text);
  const flow = normalise(text, false);
  for (const h of matchPhrases(plain, context, flow))
    hits.push({ rule: h.rule, severity: h.severity, message: h.message, excerpt: excerptAt(h.inFlow ? flow : plain, h.index, h.length) });
  const readable = text.replace(INVISIBLE, "").replace(BIDI, "");
  const tag = FAKE_SYSTEM.exec(readable);
  if (tag)
    hits.push({
      rule: "hidden-instructions",
      severity: "high",
      message: `poses as system or priority text: ${JSON.stringify(tag[0])}`,
      excerpt: excerptAt(readable, tag.index, tag[0].length),
    });
  const image = remoteImage(readable);
  if (image)
    hits.push({
      rule: "remote-image",
      severity: "high",
      message: "embeds a remote image or other fetched content: rendering it sends a request whose URL can carry the user's data",
      excerpt: excerptAt(readable, image.index, image.length),
    });
  const slot = exfilUrl(readable);
  if (slot)
    hits.push({
      rule: "exfil-url",
      severity: "high",
      message: "has a URL with a slot for the user's data",
      excerpt: excerptAt(readable, slot.index, slot.length),
    });
  if (depth >= MAX_NESTING) return hits;
  for (const d of decodeAll(readable)) {
    const inner = textFindings(d.text.slice(0, MAX_DECODED_SCAN), context, depth + 1).filter((h) => h.severity !== "low");
    const shown = quoteExcerpt(d.text, 80);
    if (inner.length > 0)
      hits.push({
        rule: "encoded-payload",
        severity: "high",
        message: `hides text in ${d.kind} that ${(inner[0] as TextHit).message} (decoded: ${shown})`,
        excerpt: excerptAt(readable, d.index, Math.min(d.length, 60)),
      });
    else if (d.kind !== "ROT13" && d.kind !== "reversed text" && naturalLanguage(d.text))
      hits.push({
        rule: "encoded-payload",
        severity: "medium",
        message: `carries readable text encoded as ${d.kind} (decoded: ${shown})`,
        excerpt: excerptAt(readable, d.index, Math.min(d.length, 60)),
      });
  }
  return hits;
}
