/**
 * Model-facing text: `renderFailure` says what failed, the issues with field guidance, an example,
 * the rejected input and what to do next; `renderResult` turns content into capped text and JSON.
 * Secret-looking values are redacted in everything rendered.
 */

import type { ToolResult, ToolSpec } from "../caller/tool-spec.js";
import { type FieldIssue, redactSecrets, redactText, type ToolFailure } from "../failure/failure.js";
import type { ContentBlock } from "../protocol/mcp-types.js";

/** Options for rendering. */
export interface RenderOptions {
  /** Cap on the rendered text; the head and tail are kept. Default 8,000 characters. */
  readonly maxChars?: number;
  /** The tool's spec: field guidance from `fieldDescriptions`, and the tool named by its `providerName` (what the model calls). */
  readonly spec?: Partial<Pick<ToolSpec, "fieldDescriptions" | "providerName">>;
}

const DEFAULT_MAX_CHARS = 8000;

/** Keeps the head and tail of `text` within `maxChars`, marking what was cut. */
export function capText(text: string, maxChars: number = DEFAULT_MAX_CHARS): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  const marker = (n: number) => `\n…[${n} characters omitted]…\n`;
  // The marker is sized for the largest count it could show, so the result never exceeds maxChars.
  // More head than tail (60/40): the start of a result usually says what it is.
  const room = Math.max(0, maxChars - marker(text.length).length);
  const head = Math.ceil(room * 0.6);
  const tail = room - head;
  return `${text.slice(0, head)}${marker(text.length - head - tail)}${tail > 0 ? text.slice(text.length - tail) : ""}`;
}

/** JSON for model-facing text, secrets redacted; never throws (a BigInt or a cycle prints as String). */
function json(value: unknown): string {
  try {
    return JSON.stringify(redactSecrets(value)) ?? "null";
  } catch {
    return String(value);
  }
}

/** One issue as a line a model can act on: the field, what is wrong, and what it should be. */
function describeIssue(issue: FieldIssue): string {
  const field = issue.field === "" ? "(the arguments object)" : issue.field;
  const parts: string[] = [];
  switch (issue.constraint) {
    case "missing_field":
      parts.push("is required but missing");
      break;
    case "unknown_field":
      parts.push("is not an accepted field; remove it");
      break;
    case "invalid_enum_value":
      parts.push("has a value that is not allowed");
      break;
    default:
      parts.push(`is invalid (${issue.constraint.replace(/_/g, " ")})`);
  }
  if (issue.expected !== undefined) parts.push(`expected ${issue.expected}`);
  if (issue.allowed !== undefined) parts.push(`allowed: ${issue.allowed.map((a) => json(a)).join(", ")}`);
  if (issue.actual !== undefined) parts.push(`got ${json(issue.actual)}`);
  return `- ${field} ${parts.join("; ")}`;
}

/**
 * The schema's description of each field an issue names: often the model got the field wrong
 * because it never read what it means. Array indexes are folded (`items[3].id` is `items[].id`),
 * and lookups are own-key only (field names come from the model).
 */
function guidance(issues: readonly FieldIssue[], spec: RenderOptions["spec"]): string[] {
  const descriptions = spec?.fieldDescriptions;
  if (!descriptions) return [];
  const lines: string[] = [];
  for (const field of new Set(issues.map((i) => i.field.replace(/\[\d+\]/g, "[]")))) {
    const own = (key: string) => (Object.hasOwn(descriptions, key) ? descriptions[key] : undefined);
    const text = own(field) ?? own(field.replace(/\[\]/g, ""));
    if (text) lines.push(`- ${field}: ${text}`);
  }
  return lines;
}

/** The recovery action as an instruction; retry says "same arguments" so the model does not "fix" what was right. */
function nextStep(failure: ToolFailure, tool: string): string {
  switch (failure.recovery.action) {
    case "correct_call":
      return `Fix the arguments as described and call ${tool} again.`;
    case "retry":
      return failure.retryAfterMs !== undefined
        ? `This may be temporary: you may call ${tool} again after ${Math.ceil(failure.retryAfterMs / 1000)} s with the same arguments.`
        : `This may be temporary: you may call ${tool} again with the same arguments.`;
    case "replan":
      return failure.suggestions && failure.suggestions.length > 0
        ? "Do not repeat this call. Use one of the listed tools, or another approach."
        : `Do not repeat this call to ${tool}; choose another tool or approach.`;
    case "finish":
      return "Do not call more tools. Answer the user with what you have, and say what could not be done.";
  }
}

/** Renders a failure as concise, model-facing text. */
export function renderFailure(failure: ToolFailure, options: RenderOptions = {}): string {
  const where = failure.server ? ` on ${failure.server}` : "";
  // The name the model called, not the internal id: the next step tells it what to call.
  const name = options.spec?.providerName ?? failure.tool;
  const lines = [`Tool call failed: ${name}${where} (${failure.kind}${failure.reason ? `, ${failure.reason}` : ""}).`];
  lines.push(`Error: ${redactText(failure.message)}`);
  if (failure.rpc?.data !== undefined) lines.push(`Error data: ${json(failure.rpc.data)}`);
  const { issues, exampleJson } = failure.recovery;
  if (issues && issues.length > 0) {
    lines.push(failure.kind === "malformed_result" ? "Result issues:" : "Input issues:", ...issues.map(describeIssue));
    const guide = guidance(issues, options.spec);
    if (guide.length > 0) lines.push("Field guidance:", ...guide);
  }
  if (failure.suggestions && failure.suggestions.length > 0) lines.push(`Closest tools: ${failure.suggestions.join(", ")}`);
  const content = (failure.content ?? []) as readonly ContentBlock[];
  if (failure.kind === "malformed_result" && content.length > 0) lines.push("Result content:", ...content.map(renderContentBlock));
  else {
    const media = content.filter((b) => typeof b !== "object" || b === null || b.type !== "text");
    if (media.length > 0) lines.push("Other content:", ...media.map(renderContentBlock)); // text is already the message
  }
  if (exampleJson !== undefined) lines.push(`Example input: ${exampleJson}`);
  if (Object.hasOwn(failure.recovery, "priorInput")) lines.push(`Rejected input: ${json(failure.recovery.priorInput)}`);
  lines.push(`Next: ${nextStep(failure, name)}`);
  return capText(lines.join("\n"), options.maxChars ?? DEFAULT_MAX_CHARS);
}

/** A base64 payload's decoded size; media are shown as placeholders, never as their bytes. */
function sizeOf(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0);
  return `${bytes} bytes`;
}

/** Renders one content block: text as is, media as placeholders with their MIME type. */
export function renderContentBlock(block: ContentBlock): string {
  if (typeof block !== "object" || block === null) return `[${block === null ? "null" : typeof block} content]`;
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image ${block.mimeType}, ${sizeOf(block.data)}]`;
    case "audio":
      return `[audio ${block.mimeType}, ${sizeOf(block.data)}]`;
    case "resource_link":
      return `[resource link ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ""}${block.name ? `: ${block.name}` : ""}]`;
    case "resource": {
      const r = block.resource;
      if (typeof r.text === "string") return `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}]\n${r.text}`;
      return `[resource ${r.uri} ${r.mimeType ?? "application/octet-stream"}, ${sizeOf(r.blob ?? "")}]`;
    }
    default:
      return `[${String((block as { type?: unknown }).type)} content]`;
  }
}

/** `text` as normalized JSON when it is JSON, so structured content equal to the text is not printed twice. */
function sameJson(text: string): string {
  try {
    return json(JSON.parse(text));
  } catch {
    return text.trim();
  }
}

/** Renders a result for a model: content as text, structured content as JSON, failures via `renderFailure`. */
export function renderResult(result: ToolResult<unknown>, options: RenderOptions = {}): string {
  if (!result.ok) return renderFailure(result.failure, options);
  const text = result.content.map(renderContentBlock).join("\n");
  const parts = text === "" ? [] : [text];
  if (result.structured !== undefined) {
    const structured = json(result.structured);
    if (structured !== sameJson(text)) parts.push(`JSON: ${structured}`);
  }
  return capText(parts.length > 0 ? parts.join("\n") : "(no content)", options.maxChars ?? DEFAULT_MAX_CHARS);
}
