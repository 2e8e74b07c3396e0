/**
 * Tool search (progressive discovery) for large catalogues: the model sees three tools,
 * `search_tools`, `describe_tool` and `call_tool`, over any number of registered tools. Calls
 * through `call_tool` are validated and run by the underlying runtime, so failures are the same
 * values (field issues, closest names) and count toward the same run policy.
 */
import type { CallOptions } from "../../caller/caller.js";
import { type ToolRequest, type ToolRunner, toolUnavailable } from "../../caller/tool-request.js";
import type { ToolResult, ToolSpec } from "../../caller/tool-spec.js";
import type { FieldIssue } from "../../failure/failure.js";
import type { Decoded } from "../../schema/codec.js";
import { toolRequestFromModelCall } from "../model-call.js";
import { rankTools } from "./tool-rank.js";

/** Options of `createToolSearch`. */
export interface ToolSearchOptions {
  /** Results per search when the model asks for no `limit`. Default 8 (at most 20). */
  readonly defaultLimit?: number;
}

const TOOLSET = "toolwright";
const SERVER = "toolwright";

type Fields = { readonly [name: string]: "string" | "integer" };

/** How much `search_tools` shows per hit, from cheapest to fullest (progressive detail). */
const DETAILS = ["name", "summary", "signature", "full"] as const;
type Detail = (typeof DETAILS)[number];

/**
 * A hand-written decoder for the meta tools' tiny schemas (a string or an integer 1..20 per field):
 * the runtime has no schema library, and these three never change. Its issues are the same
 * `FieldIssue` values a generated validator gives, so a model gets the same correct_call failures.
 */
function decoderFor(fields: Fields, required: readonly string[]) {
  return (value: unknown): Decoded<unknown> => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { ok: false, issues: [{ field: "", constraint: "invalid_field_type", expected: "object" }] };
    const v = value as { readonly [key: string]: unknown };
    const issues: FieldIssue[] = [];
    for (const r of required) if (v[r] === undefined) issues.push({ field: r, constraint: "missing_field" });
    for (const key of Object.keys(v)) {
      const type = fields[key];
      const actual = v[key];
      if (type === undefined) issues.push({ field: key, constraint: "unknown_field" });
      // call_tool's arguments are JSON text, since strict provider schemas cannot describe an open
      // object; a model that sends an object anyway is understood rather than refused.
      else if (key === "arguments" && typeof actual === "object" && actual !== null && !Array.isArray(actual)) continue;
      else if (key === "detail" && !DETAILS.includes(actual as Detail))
        issues.push({ field: key, constraint: "invalid_enum_value", allowed: [...DETAILS], actual });
      else if (
        type === "string" ? typeof actual !== "string" : !Number.isInteger(actual) || (actual as number) < 1 || (actual as number) > 20
      )
        issues.push({
          field: key,
          constraint: type === "string" ? "invalid_field_type" : "invalid_range",
          expected: type === "string" ? "string" : "integer 1..20",
        });
    }
    return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
  };
}

/** A meta tool's spec; `additionalProperties: false` so strict providers accept the schema as it is. */
function metaSpec(
  name: string,
  description: string,
  properties: { [key: string]: unknown },
  required: string[],
  example: unknown,
): ToolSpec {
  const fields: { [name: string]: "string" | "integer" } = {};
  for (const [k, v] of Object.entries(properties)) fields[k] = (v as { type: "string" | "integer" }).type;
  return {
    id: `${TOOLSET}.${name}`,
    toolset: TOOLSET,
    name,
    providerName: name,
    description,
    inputSchema: { type: "object", properties, required, additionalProperties: false },
    annotations: { readOnly: name !== "call_tool" },
    exampleJson: JSON.stringify(example),
    decodePayload: decoderFor(fields, required),
  };
}

/** The three tool-search specs. */
export const TOOL_SEARCH_SPECS: readonly ToolSpec[] = [
  metaSpec(
    "search_tools",
    "Search the available tools by what you want to do. Returns matching tool names with a short description. Call describe_tool for a tool's arguments, then call_tool to run it.",
    {
      query: { type: "string", description: "What the tool should do, in a few words" },
      limit: { type: "integer", minimum: 1, maximum: 20, description: "How many results (default 8)" },
      detail: {
        type: "string",
        enum: [...DETAILS],
        description:
          "Per tool: name, summary (default: name and first sentence), signature (adds the arguments) or full (description and JSON Schema)",
      },
    },
    ["query"],
    { query: "read a file" },
  ),
  metaSpec(
    "describe_tool",
    "Describe one tool found with search_tools: its full description, argument schema and an example.",
    { name: { type: "string", description: "The tool name from search_tools" } },
    ["name"],
    { name: "read_text_file" },
  ),
  metaSpec(
    "call_tool",
    "Run a tool found with search_tools. Pass its arguments as a JSON object text matching describe_tool's schema.",
    {
      name: { type: "string", description: "The tool name from search_tools" },
      arguments: { type: "string", description: 'The arguments as JSON object text, e.g. {"path":"/tmp/a.txt"}' },
    },
    ["name", "arguments"],
    { name: "read_text_file", arguments: '{"path":"/tmp/a.txt"}' },
  ),
];

/** A meta tool's answer: text for the model, and structured content for code that reads the result. */
function ok(text: string, structured?: unknown): ToolResult<unknown> {
  return { ok: true, value: text, content: [{ type: "text", text }], structured };
}

/** The annotations a model should weigh before choosing a tool, in brackets after its name. */
function flags(spec: ToolSpec): string {
  const a = spec.annotations ?? {};
  const out = [a.readOnly ? "read-only" : "", a.destructive ? "destructive" : "", a.idempotent ? "idempotent" : ""].filter((f) => f !== "");
  return out.length > 0 ? ` [${out.join(", ")}]` : "";
}

/**
 * The first sentence of the description (at least 20 characters, so "e.g." does not end it), at
 * most 160: search results list many tools, and full descriptions would cost the tokens tool
 * search exists to save. describe_tool gives the whole text.
 */
function summary(spec: ToolSpec): string {
  const text = (spec.description ?? spec.title ?? "").replace(/\s+/g, " ").trim();
  const sentence = /^(.{20,}?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}

/** `name(path: string, head?: integer)`: the arguments at a glance, from the input schema's top level. */
function signature(spec: ToolSpec): string {
  const schema = spec.inputSchema as { properties?: { [key: string]: { type?: unknown } }; required?: unknown };
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const args = Object.entries(schema.properties ?? {}).map(([k, v]) => {
    const type = Array.isArray(v?.type) ? v.type.join("|") : typeof v?.type === "string" ? v.type : "any";
    return `${k}${required.has(k) ? "" : "?"}: ${type}`;
  });
  return `${spec.providerName}(${args.join(", ")})`;
}

/** One search hit at the requested detail. */
function hitLine(spec: ToolSpec, detail: Detail): string {
  switch (detail) {
    case "name":
      return `- ${spec.providerName}`;
    case "summary":
      return `- ${spec.providerName}${flags(spec)}: ${summary(spec)}`;
    case "signature":
      return `- ${signature(spec)}${flags(spec)}: ${summary(spec)}`;
    case "full":
      return `- ${spec.providerName}${flags(spec)}: ${(spec.description ?? spec.title ?? "").trim()}\n  Arguments (JSON Schema): ${JSON.stringify(spec.inputSchema)}`;
  }
}

/** A runner exposing only the three search tools over `inner`'s whole catalogue. */
export function createToolSearch(inner: ToolRunner, options: ToolSearchOptions = {}): ToolRunner {
  const defaultLimit = Math.min(20, Math.max(1, options.defaultLimit ?? 8));
  const byName = new Map(TOOL_SEARCH_SPECS.map((s) => [s.providerName, s]));
  const lookup = (tool: string) => {
    const spec = byName.get(tool) ?? TOOL_SEARCH_SPECS.find((s) => s.id === tool);
    return spec ? { spec, caller: { server: SERVER } } : undefined;
  };

  async function describeTool(name: string, request: ToolRequest, callOptions?: CallOptions): Promise<ToolResult<unknown>> {
    const entry = inner.lookup(name);
    // An unknown name is refused like any hallucinated call: closest names, counted by the policy.
    if (!entry) return inner.execute({ ...request, tool: name, rejection: toolUnavailable(name, inner.specs()) }, callOptions);
    const { spec } = entry;
    const lines = [
      `${spec.providerName}${flags(spec)}`,
      spec.description ?? spec.title ?? "",
      `Arguments (JSON Schema): ${JSON.stringify(spec.inputSchema)}`,
    ];
    if (spec.exampleJson) lines.push(`Example arguments: ${spec.exampleJson}`);
    return ok(lines.filter((l) => l !== "").join("\n"));
  }

  return {
    // The catalogue's principal stays on it: result budgets over the search surface key by it.
    ...(inner.principal ? { principal: inner.principal } : {}),
    specs: () => TOOL_SEARCH_SPECS,
    lookup,
    async execute(request, callOptions?: CallOptions) {
      const args = (request.arguments ?? {}) as { readonly [key: string]: unknown };
      // Rejections (bad meta arguments, unknown names) are counted by the inner runtime's policy.
      if (request.rejection || !lookup(request.tool)) return inner.execute(request, callOptions);
      switch (request.tool) {
        case "toolwright.search_tools": {
          const limit = typeof args.limit === "number" ? args.limit : defaultLimit;
          const hits = rankTools(String(args.query ?? ""), inner.specs(), limit);
          if (hits.length === 0) return ok(`No tools match ${JSON.stringify(args.query)}. Try other words.`, { tools: [] });
          const detail: Detail = typeof args.detail === "string" ? (args.detail as Detail) : "summary";
          const lines = hits.map((s) => hitLine(s, detail));
          return ok(`${hits.length} tools:\n${lines.join("\n")}`, { tools: hits.map((s) => s.providerName) });
        }
        case "toolwright.describe_tool":
          return describeTool(String(args.name), request, callOptions);
        default: {
          // call_tool: the named tool's arguments are parsed and checked as if the model had called
          // it directly, and the run is the inner runtime's, so its policy counts it.
          const inner_ = toolRequestFromModelCall(
            { ...(request.callId === undefined ? {} : { id: request.callId }), name: String(args.name), arguments: args.arguments },
            inner,
          );
          return inner.execute(inner_, callOptions);
        }
      }
    },
  };
}
