/**
 * Token counts for text Toolwright puts in front of a model (tool definitions, code-mode
 * declarations, the token bill). One real tokenizer, loaded once: js-tiktoken with o200k_base, the
 * encoding of the GPT-4o and o-series models. Other providers' tokenizers are not public; o200k is
 * the common yardstick the peers' published figures use, so every count here is in o200k tokens.
 *
 * A well-kept library rather than an estimate (characters / 4 is off by 30-60% on JSON Schema).
 */
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";

let encoder: Tiktoken | undefined;

/** The number of o200k_base tokens in `text`. Deterministic: the same text always counts the same. */
export function countTokens(text: string): number {
  encoder ??= new Tiktoken(o200kBase);
  return encoder.encode(text).length;
}

/** The tokenizer every count in this package uses, for reports that say what was measured. */
export const TOKEN_ENCODING = "o200k_base" as const;
