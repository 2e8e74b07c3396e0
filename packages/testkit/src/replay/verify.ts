/**
 * Faithfulness checks: replays a cassette's requests against any caller (the live server, a
 * generated mock, another recording) and reports every answer that differs from the recorded
 * one, so a mock that drifted from its server fails CI.
 */

import type { SessionCaller } from "@toolwright/runtime/caller";
import type { Cassette, JsonObject } from "../cassette/format.js";
import { parseCassette } from "../cassette/format.js";
import { comparable, describeRequest, differences } from "./match.js";
import { type Exchange, exchangesOf } from "./script.js";

/** Options for `verifyCassette`. */
export interface VerifyOptions {
  /** Result paths left out of the comparison, dotted and relative to the result: `content`, `_meta`. */
  readonly ignore?: readonly string[];
  /**
   * `value` (default): every answer must equal the recorded one. `shape`: lists (`tools/list`...)
   * must equal the recorded ones, and every other answer must have the recorded structure (the
   * same keys and value types, the same `isError`): what a mock answering from the lock's schemas
   * and examples can promise.
   */
  readonly compare?: "value" | "shape";
}

/** One recorded request whose answer differs. */
export interface VerifyDifference {
  /** The request's position among the cassette's requests, from 1. */
  readonly index: number;
  /** `tools/call echo {"message":"hi"}` */
  readonly request: string;
  /** `path: recorded X, got Y` lines. */
  readonly differences: readonly string[];
}

/** What `verifyCassette` found. */
export interface VerifyReport {
  /** True when every request got the recorded answer. */
  readonly ok: boolean;
  /** Requests replayed (handshake and long-lived listen requests are not). */
  readonly checked: number;
  readonly differences: readonly VerifyDifference[];
}

// The handshake is the session's, not a call; a listen request never answers.
const SKIPPED = new Set(["initialize", "server/discover", "subscriptions/listen", "ping"]);

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Replays every recorded request against `target`, in order, and compares each answer with the recorded one. */
export async function verifyCassette(
  cassette: Cassette | string,
  target: SessionCaller,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  const parsed = typeof cassette === "string" ? parseCassette(cassette) : cassette;
  const ignore = ["_meta", ...(options.ignore ?? [])];
  const found: VerifyDifference[] = [];
  let checked = 0;
  // Server-chosen ids (task ids, request states) the cassette numbered: recorded value → live value.
  const chosen = new Map<string, string>();
  for (const ex of exchangesOf(parsed)) {
    if (SKIPPED.has(ex.method)) continue;
    checked++;
    const recorded = recordedAnswer(ex);
    const raw = await liveAnswer(ex, target, chosen);
    learnChosen(recorded, raw, chosen);
    // Compared with the recorded ids: the live server's own choices are not a difference.
    const live = swapChosen(raw, new Map([...chosen].map(([rec, got]) => [got, rec]))) as JsonObject;
    const byShape = options.compare === "shape" && !ex.method.endsWith("/list");
    const isList = ex.method.endsWith("/list");
    const view = (answer: JsonObject) => {
      const kept = withoutIgnored(isList ? sortedList(answer) : answer, ignore);
      return byShape ? shapeOf(kept) : kept;
    };
    const diff = differences(view(recorded), view(live), 20);
    if (diff.length > 0) found.push({ index: ex.index, request: describeRequest(ex.method, ex.request.params), differences: diff });
  }
  return { ok: found.length === 0, checked, differences: found };
}

/**
 * A value's structure: object keys with their structures, an array as the structure of its first
 * item, `isError` kept as it is (an error must stay an error), every other leaf as its JSON type.
 */
export function shapeOf(value: unknown, key = "", depth = 0): unknown {
  if (depth > 64) return "deep";
  if (key === "isError" || key === "type") return value;
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0], "", depth + 1)];
  if (isObject(value)) {
    const out: { [k: string]: unknown } = Object.create(null);
    for (const k of Object.keys(value).sort()) out[k] = shapeOf(value[k], k, depth + 1);
    return out;
  }
  return value === null ? "null" : typeof value;
}

/** A list answer with its items in name (or uri) order: servers and mocks may list in any order. */
function sortedList(answer: JsonObject): JsonObject {
  if (!isObject(answer.result)) return answer;
  const result: { [key: string]: unknown } = { ...answer.result };
  const key = (item: unknown) => (isObject(item) ? String(item.name ?? item.uri ?? item.uriTemplate ?? "") : "");
  for (const [k, v] of Object.entries(result)) {
    if (Array.isArray(v)) result[k] = [...v].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
  return { ...answer, result };
}

/** An answer with the ignored paths removed from its result. */
function withoutIgnored(answer: JsonObject, ignore: readonly string[]): unknown {
  return "result" in answer ? { result: comparable(answer.result, ignore) } : answer;
}

/** The recorded answer: `{ result }` or `{ error: { code } }` (messages of errors vary between servers' versions). */
function recordedAnswer(ex: Exchange): JsonObject {
  for (const step of ex.steps) {
    if (step.kind === "fault") return { error: { code: typeof step.fault.code === "number" ? step.fault.code : String(step.fault.type) } };
    if (step.kind === "emit" && step.msg.method === undefined && step.msg.id !== undefined) {
      if (isObject(step.msg.error)) return { error: { code: step.msg.error.code } };
      return { result: step.msg.result };
    }
  }
  return { error: { code: "no answer recorded" } };
}

const CHOSEN_KEYS = new Set(["taskId", "requestState"]);

/** Walks the recorded and live answers side by side and learns each server-chosen id the live server gave. */
function learnChosen(recorded: unknown, live: unknown, chosen: Map<string, string>, depth = 0): void {
  if (depth > 64 || !isObject(recorded) || !isObject(live)) return;
  for (const [k, v] of Object.entries(recorded)) {
    const other = live[k];
    if (CHOSEN_KEYS.has(k) && typeof v === "string" && typeof other === "string") {
      if (!chosen.has(v) && other !== v) chosen.set(v, other);
    } else learnChosen(v, other, chosen, depth + 1);
  }
}

/** Copies `value` with server-chosen ids swapped through `map` (recorded → live to send, live → recorded to compare). */
function swapChosen(value: unknown, map: ReadonlyMap<string, string>, depth = 0): unknown {
  if (depth > 64 || map.size === 0) return value;
  if (Array.isArray(value)) return value.map((v) => swapChosen(v, map, depth + 1));
  if (!isObject(value)) return value;
  const out: { [key: string]: unknown } = {};
  for (const [k, v] of Object.entries(value))
    out[k] = CHOSEN_KEYS.has(k) && typeof v === "string" ? (map.get(v) ?? v) : swapChosen(v, map, depth + 1);
  return out;
}

/**
 * The live answer in the same shape, through the caller's generic request (params as recorded,
 * `_meta` left out, server-chosen ids swapped for the live server's).
 */
async function liveAnswer(ex: Exchange, target: SessionCaller, chosen: ReadonlyMap<string, string>): Promise<JsonObject> {
  const recorded = isObject(ex.request.params) ? (comparable(ex.request.params, ["_meta"]) as JsonObject) : undefined;
  const params = recorded === undefined ? undefined : (swapChosen(recorded, chosen) as JsonObject);
  const outcome = await target.request(ex.method, params);
  if (outcome.ok) return { result: outcome.value };
  const failure = outcome.failure as { rpc?: { code?: number }; kind?: string };
  return { error: { code: failure.rpc?.code ?? failure.kind ?? "failed" } };
}
