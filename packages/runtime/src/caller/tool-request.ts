/**
 * What the runtime core needs to name a requested tool: the request shape and the failure for a
 * name no toolset offers, with the closest names. It lives in core/ because the runtime, the
 * manager and the durable runs all build that failure, and the planner only adds model parsing.
 */

import type { ToolFailure } from "../failure/failure.js";
import { failureFromLocal } from "../failure/failure-mapping.js";
import type { CallOptions } from "./call-options.js";
import type { Principal } from "./principal.js";
import type { ToolResult, ToolSpec } from "./tool-spec.js";

/** A request for `runtime.execute`. When `rejection` is set the call is never sent. */
export interface ToolRequest {
  /** Tool id (`toolset.tool`), or the unknown name the model used. */
  readonly tool: string;
  readonly arguments: unknown;
  readonly callId?: string;
  /** The name the model used, for the transcript. */
  readonly modelName?: string;
  /** Why the call was refused before sending (bad arguments, unknown tool). */
  readonly rejection?: ToolFailure;
}

/** What `toolRequestFromModelCall` needs from a runtime. */
export interface ToolLookup {
  lookup(tool: string): { readonly spec: ToolSpec; readonly caller: { readonly server: string } } | undefined;
  specs(): readonly ToolSpec[];
}

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

const fold = (s: string) => s.toLowerCase().replace(/[-_.\s/]+/g, "_");

/** Longest prefix of a model-supplied name compared for suggestions (provider names are at most 64). */
const MAX_COMPARED_NAME = 128;

function similarToken(a: string, b: string): boolean {
  if (a === b) return true;
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  const shorter = Math.min(a.length, b.length);
  return (prefix >= 4 && prefix >= shorter * 0.6) || editDistance(a, b) <= Math.floor(shorter / 4);
}

/**
 * The `limit` provider-safe names closest to `name`: first by how many of the name's words a tool
 * lacks, then by edit distance to the nearest of its provider name, id and wire name.
 */
export function closestToolNames(name: string, specs: readonly ToolSpec[], limit = 3): string[] {
  // Edit distance is quadratic: a hostile 100 kB "name" from a model must not stall the planner.
  const wanted = fold(name.slice(0, MAX_COMPARED_NAME));
  const words = wanted.split("_").filter((w) => w !== "");
  const scored = specs.map((spec) => {
    const names = [spec.providerName, spec.id, spec.name].map(fold);
    const tokens = names.flatMap((n) => n.split("_"));
    const missing = words.filter((w) => !tokens.some((t) => similarToken(w, t))).length;
    const distance = Math.min(...names.map((n) => editDistance(n, wanted)));
    return { name: spec.providerName, missing, distance };
  });
  scored.sort((x, y) => x.missing - y.missing || x.distance - y.distance || x.name.localeCompare(y.name));
  return [...new Set(scored.map((s) => s.name))].slice(0, limit);
}

/** A structured failure for a tool name no toolset offers, listing the closest names. */
export function toolUnavailable(name: string, specs: readonly ToolSpec[]): ToolFailure {
  const suggestions = closestToolNames(name, specs);
  const hint = suggestions.length > 0 ? "" : " No tools are registered.";
  return failureFromLocal(
    "tool_unavailable",
    `There is no tool named ${JSON.stringify(name.length > MAX_COMPARED_NAME ? `${name.slice(0, MAX_COMPARED_NAME)}…` : name)}.${hint}`,
    { tool: name, server: "" },
    { suggestions },
  );
}

/** What the provider adapters need from a runtime: lookups and `execute` (a `Runtime` fits; so does a tool-search surface). */
export interface ToolRunner extends ToolLookup {
  execute(request: ToolRequest, options?: CallOptions): Promise<ToolResult<unknown>>;
  /**
   * The principal every call of this runner is made for (a `PrincipalManager`'s runtime has one):
   * wrappers such as result budgets key what they keep by it when a call names no principal.
   */
  readonly principal?: Principal;
}
