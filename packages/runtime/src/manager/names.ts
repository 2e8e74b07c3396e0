/**
 * Tool naming for the manager's registry: ids are always `server.tool`; the exposed name a model
 * sees follows the collision policy and is made provider-safe (`[A-Za-z0-9_-]{1,64}`) and unique.
 */
import { createHash } from "node:crypto";
import type { CollisionPolicy } from "./config-types.js";

/** Longest name model providers accept. */
export const MAX_PROVIDER_NAME = 64;

const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 6);

/** Replaces characters providers reject and cuts to 64 characters, keeping a hash when cut. */
export function providerSafe(name: string): string {
  let safe = name.replace(/[^A-Za-z0-9_-]/g, "_");
  if (safe === "") safe = "tool";
  if (safe.length <= MAX_PROVIDER_NAME && safe === name) return safe;
  if (safe.length > MAX_PROVIDER_NAME) {
    // Keep the start and the end: tool names often differ only at the end.
    const hash = shortHash(name);
    const room = MAX_PROVIDER_NAME - hash.length - 2;
    const head = Math.ceil(room / 2);
    safe = `${safe.slice(0, head)}_${safe.slice(safe.length - (room - head))}_${hash}`;
  }
  return safe;
}

/** Makes `wanted` unique against `taken` by adding a short hash of `seed`, staying within 64 characters. */
export function uniqueName(wanted: string, seed: string, taken: (name: string) => boolean): string {
  if (!taken(wanted)) return wanted;
  for (let i = 0; i < 100; i++) {
    const hash = shortHash(i === 0 ? seed : `${seed}#${i}`);
    const candidate = `${wanted.slice(0, MAX_PROVIDER_NAME - hash.length - 1)}_${hash}`;
    if (!taken(candidate)) return candidate;
  }
  throw new Error(`cannot find a unique name for ${seed}`);
}

/** The result of naming one tool: an exposed name, or a collision error under policy `error`. */
export type NameChoice = { readonly ok: true; readonly name: string } | { readonly ok: false; readonly message: string };

/**
 * Chooses the exposed name for `server.tool`. `rawTaken` says whether another server already
 * exposes the same wire name; `taken` whether an exposed name is used. Existing names never move.
 */
export function chooseExposedName(
  server: string,
  tool: string,
  policy: CollisionPolicy,
  rawOwner: string | undefined,
  taken: (name: string) => boolean,
): NameChoice {
  const id = `${server}.${tool}`;
  const collides = rawOwner !== undefined && rawOwner !== server;
  if (policy === "error" && collides) {
    return { ok: false, message: `tool name collision: "${tool}" of server "${server}" is already exposed by server "${rawOwner}"` };
  }
  const base = policy === "prefix" || (policy === "prefix-on-collision" && collides) ? `${server}_${tool}` : tool;
  const safe = providerSafe(base);
  if (policy === "error" && safe !== base && taken(safe)) {
    return { ok: false, message: `tool name collision: "${tool}" of server "${server}" maps to "${safe}", which is already taken` };
  }
  return { ok: true, name: uniqueName(safe, id, taken) };
}
