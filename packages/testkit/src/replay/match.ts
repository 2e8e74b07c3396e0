/**
 * Comparing a live request with recorded ones: by method, tool name and arguments, with ignored
 * fields, and naming what differs when nothing matches.
 */

import { stableJson } from "../cassette/format.js";
import type { Exchange } from "./script.js";

const isObject = (v: unknown): v is { readonly [key: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);

/** Paths every comparison ignores: progress tokens are per session by nature. */
const ALWAYS_IGNORED = ["_meta.progressToken"];

/**
 * A request's params made comparable: `ignore` paths (dotted, relative to `params`; a leading
 * `params.` is accepted; `*` matches every array item or key) removed.
 */
export function comparable(params: unknown, ignore: readonly string[]): unknown {
  let value: unknown = params === undefined ? undefined : JSON.parse(JSON.stringify(params));
  for (const path of [...ALWAYS_IGNORED, ...ignore]) value = without(value, path.replace(/^params\./, "").split("."));
  return value;
}

function without(value: unknown, path: readonly string[]): unknown {
  const [head, ...rest] = path;
  // `*` stands for every item of an array or every key of an object: `tools.*.execution`.
  if (head === "*" && rest.length > 0) {
    if (Array.isArray(value)) return value.map((item) => without(item, rest));
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, without(v, rest)]));
    return value;
  }
  if (head === undefined || !isObject(value) || !Object.hasOwn(value, head)) return value;
  const out: { [key: string]: unknown } = { ...value };
  if (rest.length === 0) delete out[head];
  else out[head] = without(out[head], rest);
  // An object left empty by removals compares equal to an absent one.
  if (isObject(out[head]) && Object.keys(out[head] as object).length === 0) delete out[head];
  return out;
}

/** True when `a` and `b` print the same. */
export const sameValue = (a: unknown, b: unknown): boolean => stableJson(a) === stableJson(b);

/** Where two values differ, as `path: recorded X, got Y` lines (at most `limit`). */
export function differences(recorded: unknown, live: unknown, limit = 5, path = ""): string[] {
  if (sameValue(recorded, live)) return [];
  if (Array.isArray(recorded) && Array.isArray(live)) {
    const out: string[] = [];
    const at = (i: number) => (path === "" ? String(i) : `${path}.${i}`);
    for (let i = 0; i < Math.max(recorded.length, live.length) && out.length < limit; i++) {
      out.push(...differences(recorded[i], live[i], limit - out.length, at(i)));
    }
    return out;
  }
  if (isObject(recorded) && isObject(live)) {
    const out: string[] = [];
    for (const key of [...new Set([...Object.keys(recorded), ...Object.keys(live)])].sort()) {
      if (out.length >= limit) break;
      out.push(...differences(recorded[key], live[key], limit - out.length, path === "" ? key : `${path}.${key}`));
    }
    return out;
  }
  const show = (v: unknown) => (v === undefined ? "nothing" : short(stableJson(v)));
  return [`${path === "" ? "params" : path}: recorded ${show(recorded)}, got ${show(live)}`];
}

const short = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);

/** How a request is named in failures: `tools/call echo {"message":"hi"}`. */
export function describeRequest(method: string, params: unknown): string {
  const p = isObject(params) ? params : {};
  if (method === "tools/call") return `tools/call ${String(p.name)} ${short(stableJson(p.arguments ?? {}))}`;
  return `${method}${params === undefined ? "" : ` ${short(stableJson(comparable(params, ["_meta"])))}`}`;
}

/** The recorded exchange closest to a live request: same method first, then same tool, then fewest differences. */
export function nearest(exchanges: readonly Exchange[], method: string, params: unknown, ignore: readonly string[]): Exchange | undefined {
  const live = comparable(params, ignore);
  const tool = isObject(params) ? params.name : undefined;
  let best: Exchange | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const ex of exchanges) {
    const recorded = ex.request.params;
    const score =
      (ex.method === method ? 0 : 1000) +
      (isObject(recorded) && recorded.name === tool ? 0 : 100) +
      differences(comparable(recorded, ignore), live, 50).length;
    if (score < bestScore) {
      best = ex;
      bestScore = score;
    }
  }
  return best;
}
