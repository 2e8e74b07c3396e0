/**
 * Model tool calls → runtime requests: parses the arguments (JSON text or object), maps the name a
 * model used (provider-safe name, id or wire name) back to a tool, and validates before sending.
 */

import type { ToolFailure } from "../failure.js";
import { failureFromInvalidInput, failureFromPolicy, failureFromUnparsableArguments } from "../failure-mapping.js";
import type { ToolSpec } from "../tool-spec.js";
import { specVisibleToModel } from "./visibility.js";

/** A tool call as a model provider returns it. */
export interface ModelToolCall {
  /** The provider's call id, echoed back with the result. */
  readonly id?: string;
  /** The name the model used: a provider-safe name, a tool id or a wire name. */
  readonly name: string;
  /** JSON text or an already-parsed object. Empty or missing means `{}`. */
  readonly arguments?: unknown;
}

/** A tool definition to offer a model: the provider-safe name, a description and the input JSON Schema. */
export interface ModelToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: { readonly [key: string]: unknown };
}

/** The definitions to send a model provider for `specs` (names are the provider-safe names that map back). */
export function modelToolDefinitions(specs: readonly ToolSpec[]): ModelToolDefinition[] {
  return specs.map((spec) => ({
    name: spec.providerName,
    description: spec.description ?? spec.title ?? spec.id,
    parameters: spec.inputSchema,
  }));
}

/**
 * Normalizes common provider shapes to a `ModelToolCall`: `{ id, name, arguments }`,
 * OpenAI `{ id, function: { name, arguments } }`, Anthropic `{ id, name, input }`.
 */
export function normalizeModelCall(call: unknown): ModelToolCall {
  const c = (typeof call === "object" && call !== null ? call : {}) as { [key: string]: unknown };
  const fn = typeof c.function === "object" && c.function !== null ? (c.function as { [key: string]: unknown }) : undefined;
  const name = fn?.name ?? c.name;
  const args = fn ? fn.arguments : c.arguments !== undefined ? c.arguments : c.input;
  return {
    ...(typeof c.id === "string" ? { id: c.id } : {}),
    name: name as string,
    ...(args === undefined ? {} : { arguments: args }),
  };
}

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
  return failureFromPolicy(
    "tool_unavailable",
    `There is no tool named ${JSON.stringify(name.length > MAX_COMPARED_NAME ? `${name.slice(0, MAX_COMPARED_NAME)}…` : name)}.${hint}`,
    { tool: name, server: "" },
    { suggestions },
  );
}

function parseArguments(raw: unknown): { ok: true; value: { readonly [key: string]: unknown } } | { ok: false; problem: string } {
  let value = raw;
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) return { ok: true, value: {} };
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return { ok: false, problem: `malformed JSON (${error instanceof Error ? error.message : String(error)})` };
    }
  }
  if (typeof value !== "object" || value === null) return { ok: false, problem: `got ${value === null ? "null" : typeof value}` };
  if (Array.isArray(value)) return { ok: false, problem: "got an array" };
  return { ok: true, value: value as { readonly [key: string]: unknown } };
}

/**
 * Turns a model's tool call (any shape `normalizeModelCall` knows) into a runtime request. Never throws: unknown names, malformed JSON,
 * non-object arguments and validator failures come back as `rejection`, and nothing is sent.
 */
export function toolRequestFromModelCall(raw: ModelToolCall, runtime: ToolLookup): ToolRequest {
  const call = normalizeModelCall(raw);
  const callId = typeof call?.id === "string" ? { callId: call.id } : {};
  const name = typeof call?.name === "string" ? call.name : `(${call?.name === null ? "null" : typeof call?.name} name)`;
  const base = { ...callId, modelName: name };
  const found = runtime.lookup(name);
  // An app-only tool was never offered to the model: a call naming it is as unknown as a made-up name.
  const entry = found && specVisibleToModel(found.spec) ? found : undefined;
  if (!entry)
    return {
      tool: name,
      arguments: call?.arguments ?? null,
      ...base,
      rejection: toolUnavailable(name, runtime.specs().filter(specVisibleToModel)),
    };
  const { spec } = entry;
  const context = { tool: spec.id, server: entry.caller.server };
  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) {
    const rejection = failureFromUnparsableArguments(call.arguments, parsed.problem, spec.exampleJson, context);
    return { tool: spec.id, arguments: call.arguments ?? null, ...base, rejection };
  }
  const decoded = spec.decodePayload(parsed.value);
  if (!decoded.ok) {
    const rejection = failureFromInvalidInput(decoded.issues, parsed.value, spec.exampleJson, context);
    return { tool: spec.id, arguments: parsed.value, ...base, rejection };
  }
  return { tool: spec.id, arguments: parsed.value, ...base };
}
