/**
 * Model tool calls → runtime requests: parses the arguments (JSON text or object), maps the name a
 * model used (provider-safe name, id or wire name) back to a tool, and validates before sending.
 */

import { type ToolLookup, type ToolRequest, toolUnavailable } from "../caller/tool-request.js";
import type { ToolSpec } from "../caller/tool-spec.js";
import { failureFromInvalidInput, failureFromUnparsableArguments } from "../failure/failure-mapping.js";
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
