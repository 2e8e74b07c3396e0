/**
 * For the provider demo and tests: a deterministic synthetic catalogue of N tools (a 500-tool
 * "large catalogue"), and tokens per turn of the tool definitions a provider request carries,
 * counted with a real tokenizer (js-tiktoken, o200k_base, the GPT-4o encoding).
 */
import { createInMemoryCaller, type ToolSpec, type ToolsetRegistration } from "@toolwright/runtime";
import type { Decoder } from "@toolwright/runtime/caller";
import { createProviderTools, type ProviderFormat, type ToolRunner } from "@toolwright/runtime/providers";
import { getEncoding } from "js-tiktoken";

const DOMAINS = ["billing", "crm", "calendar", "docs", "tickets", "inventory", "payroll", "analytics", "mail", "storage"];
const VERBS = ["list", "get", "create", "update", "delete", "search", "archive", "export", "import", "sync"];
const OBJECTS = ["invoice", "customer", "event", "page", "ticket", "item"];

const objectDecoder: Decoder<unknown> = (value) =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? { ok: true, value }
    : { ok: false, issues: [{ field: "", constraint: "invalid_field_type", expected: "object" }] };

/** `count` tools named `<domain>_<verb>_<object>` (plus a number past 600), answered in memory. */
export function syntheticCatalogue(count: number): ToolsetRegistration {
  const specs: ToolSpec[] = [];
  const handlers: { [name: string]: () => { content: { type: "text"; text: string }[] } } = {};
  for (let i = 0; specs.length < count; i++) {
    const domain = DOMAINS[i % DOMAINS.length] as string;
    const verb = VERBS[Math.floor(i / DOMAINS.length) % VERBS.length] as string;
    const object = OBJECTS[Math.floor(i / (DOMAINS.length * VERBS.length)) % OBJECTS.length] as string;
    const round = Math.floor(i / (DOMAINS.length * VERBS.length * OBJECTS.length));
    const name = `${domain}_${verb}_${object}${round > 0 ? `_${round}` : ""}`;
    const readOnly = verb === "list" || verb === "get" || verb === "search" || verb === "export";
    specs.push({
      id: `synthetic.${name}`,
      toolset: "synthetic",
      name,
      providerName: name,
      description: `${verb[0]?.toUpperCase()}${verb.slice(1)} ${object}s in the ${domain} system. Returns the ${object} records that match, with their ids and timestamps.`,
      inputSchema: {
        type: "object",
        properties: {
          id: { type: "string", description: `The ${object} id` },
          query: { type: "string", description: "Free-text filter" },
          limit: { type: "integer", minimum: 1, maximum: 100, description: "Page size" },
          cursor: { type: "string", description: "Cursor from the previous page" },
        },
        required: verb === "list" || verb === "search" ? [] : ["id"],
        additionalProperties: false,
      },
      annotations: { readOnly, destructive: verb === "delete", idempotent: readOnly || verb === "update" },
      decodePayload: objectDecoder,
    });
    handlers[name] = () => ({ content: [{ type: "text", text: `${name}: 0 records` }] });
  }
  return { toolset: "synthetic", specs, caller: createInMemoryCaller("synthetic", handlers) };
}

const encoding = getEncoding("o200k_base");

/**
 * Tokens of the tool definitions one request to `format` carries for `runner` (o200k_base). Without
 * tool search a catalogue past the provider's cap cannot be sent at all; it is counted in chunks of
 * 128 to show what it would cost.
 */
export function definitionTokens(runner: ToolRunner, format: ProviderFormat, toolSearch: boolean): { tools: number; tokens: number } {
  if (toolSearch) {
    const definitions = createProviderTools(runner, { format, toolSearch }).definitions();
    return { tools: definitions.length, tokens: encoding.encode(JSON.stringify(definitions)).length };
  }
  const specs = runner.specs();
  let tokens = 0;
  for (let i = 0; i < specs.length; i += 128) {
    const chunk = new Set(specs.slice(i, i + 128));
    const definitions = createProviderTools(runner, { format, toolSearch: false, filter: (s) => chunk.has(s) }).definitions();
    tokens += encoding.encode(JSON.stringify(definitions)).length;
  }
  return { tools: specs.length, tokens };
}

/** Tokens of a piece of text (o200k_base). */
export function textTokens(text: string): number {
  return encoding.encode(text).length;
}
