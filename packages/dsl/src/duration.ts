/**
 * Durations in the DSL: a number of milliseconds, or a string such as "500ms", "30s", "2m", "1h"
 * (decimals allowed: "1.5s"). Everything is normalized to milliseconds at declaration time.
 */
import { fail, show } from "./errors.js";

/** A duration: milliseconds, or a string with a unit (ms, s, m, h). */
export type Duration = number | `${number}${"ms" | "s" | "m" | "h"}`;

const UNIT_MS: { readonly [unit: string]: number } = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Converts a duration to whole milliseconds; `where` names the option in the error. */
export function toMilliseconds(where: string, value: unknown): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0) fail(where, `must be a positive number of milliseconds; got ${show(value)}`);
    return Math.round(value);
  }
  if (typeof value === "string") {
    const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/.exec(value);
    const amount = match ? Number(match[1]) * (UNIT_MS[match[2] as string] as number) : Number.NaN;
    if (!(amount > 0)) fail(where, `must be a positive duration such as 500, "500ms", "30s", "2m" or "1h"; got ${show(value)}`);
    return Math.round(amount);
  }
  return fail(where, `must be a number of milliseconds or a string such as "30s"; got ${show(value)}`);
}
