/**
 * Tool naming for the manager's registry: ids are always `server.tool`; the exposed name a model
 * sees follows the collision policy and is made provider-safe (`[A-Za-z0-9_-]{1,64}`) and unique.
 */
import { createHash } from "node:crypto";
import type { CollisionPolicy } from "./config-types.js";

/** Longest name model providers accept. */
export const MAX_PROVIDER_NAME = 64;

const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 6);

const EXACT = /^[A-Za-z0-9_-]+$/;
// Runs of ASCII characters providers reject: mapping these to one `_` loses nothing worth a hash.
const ASCII_SEPARATORS = /[^A-Za-z0-9_\-\u0080-\u{10ffff}]+/gu;

/** True when `name` is already provider-safe, so it is exposed exactly as the server spells it. */
export function isProviderSafe(name: string): boolean {
  return EXACT.test(name) && name.length <= MAX_PROVIDER_NAME;
}

/**
 * A provider-safe name (`[A-Za-z0-9_-]{1,64}`) for `name`: NFKD, combining marks dropped, runs of
 * other characters mapped to one `_`. When that changed more than ASCII separators (`café`, `日本`),
 * `_` + 6 hex of sha256(name) is appended, so the result is stable and distinct per original.
 */
export function providerSafe(name: string): string {
  if (isProviderSafe(name)) return name;
  let safe = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[^A-Za-z0-9_-]+/g, "_");
  const separatorsOnly = name.replace(ASCII_SEPARATORS, "_");
  const lossy = safe !== separatorsOnly;
  if (lossy) safe = safe.replace(/_+$/, "");
  if (!/[A-Za-z0-9]/.test(safe)) safe = "tool";
  if (lossy) safe = `${safe.slice(0, MAX_PROVIDER_NAME - 7)}_${shortHash(name)}`;
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

/** The name `server.tool` asks for under `policy`, before uniqueness (collision with another server's wire name). */
export function wantedName(server: string, tool: string, policy: CollisionPolicy, rawOwner: string | undefined): string {
  const collides = rawOwner !== undefined && rawOwner !== server;
  return providerSafe(policy === "prefix" || (policy === "prefix-on-collision" && collides) ? `${server}_${tool}` : tool);
}

/**
 * Chooses the exposed name for `server.tool`. `rawTaken` says whether another server already
 * exposes the same wire name; `taken` whether an exposed name is used. With `shared`, another tool
 * of the same server maps to the same sanitized name, so neither of them gets it bare.
 */
export function chooseExposedName(
  server: string,
  tool: string,
  policy: CollisionPolicy,
  rawOwner: string | undefined,
  taken: (name: string) => boolean,
  shared = false,
): NameChoice {
  const id = `${server}.${tool}`;
  const collides = rawOwner !== undefined && rawOwner !== server;
  if (policy === "error" && collides) {
    return { ok: false, message: `tool name collision: "${tool}" of server "${server}" is already exposed by server "${rawOwner}"` };
  }
  const safe = wantedName(server, tool, policy, rawOwner);
  if (policy === "error" && safe !== tool && !shared && taken(safe)) {
    return { ok: false, message: `tool name collision: "${tool}" of server "${server}" maps to "${safe}", which is already taken` };
  }
  return { ok: true, name: uniqueName(safe, id, (n) => (shared && n === safe) || taken(n)) };
}
