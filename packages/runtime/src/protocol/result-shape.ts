/**
 * The shape a `tools/call` result must have (MCP 2025-11-25 `CallToolResult`): `content` an array
 * of typed blocks, `structuredContent` an object, `isError` a boolean. Breaks are reported as field
 * issues so the failure can carry them as evidence; unknown block types pass (newer revisions).
 */
import type { FieldIssue } from "../failure/failure.js";
import type { WireFault } from "../failure/wire-fault.js";
import type { Outcome } from "./mcp-session.js";
import type { CallToolResult } from "./mcp-types.js";

const isRecord = (v: unknown): v is { readonly [key: string]: unknown } => typeof v === "object" && v !== null && !Array.isArray(v);

/** A well-formed text block: the one shape both the full check and the shortcut accept at once. */
const isTextBlock = (block: unknown): boolean => isRecord(block) && block.type === "text" && typeof block.text === "string";

/** A small copy of an offending value, so evidence never carries a whole payload. */
function shown(value: unknown): unknown {
  if (typeof value === "string") return value.length > 200 ? `${value.slice(0, 200)}…` : value;
  if (value === null || typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return `[array of ${value.length}]`;
  return `[${typeof value}]`;
}

/** A wrong-type issue; `actual` is shown small (a server's bad result can be megabytes). */
function typeIssue(field: string, expected: string, actual: unknown): FieldIssue {
  return { field, constraint: "invalid_field_type", expected, actual: shown(actual) };
}

// Required string fields per known block type.
const BLOCK_FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["text", ["text"]],
  ["image", ["data", "mimeType"]],
  ["audio", ["data", "mimeType"]],
  ["resource_link", ["uri"]],
]);

/** Content block `index`: an object with a string `type`, and the fields its known type requires. */
function blockIssues(block: unknown, index: number, issues: FieldIssue[]): void {
  // The common block first: text with its text (what the checks below would find nothing wrong with).
  if (isTextBlock(block)) return;
  const at = `content[${index}]`;
  if (!isRecord(block)) {
    issues.push(typeIssue(at, "a content block object", block));
    return;
  }
  if (block.type === undefined) {
    issues.push({ field: `${at}.type`, constraint: "missing_field", expected: "a content block type" });
    return;
  }
  if (typeof block.type !== "string") {
    issues.push(typeIssue(`${at}.type`, "string", block.type));
    return;
  }
  const fields = BLOCK_FIELDS.get(block.type) ?? [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (block[field] === undefined) issues.push({ field: `${at}.${field}`, constraint: "missing_field", expected: "string" });
    else if (typeof block[field] !== "string") issues.push(typeIssue(`${at}.${field}`, "string", block[field]));
  }
  if (block.type === "resource") {
    const resource = block.resource;
    if (!isRecord(resource)) issues.push(typeIssue(`${at}.resource`, "an object with uri", resource));
    else if (typeof resource.uri !== "string") issues.push(typeIssue(`${at}.resource.uri`, "string", resource.uri));
  }
}

/** The ways `result` breaks the `CallToolResult` shape; empty when it is well formed. Missing `content` is tolerated. */
export function callResultIssues(result: unknown): FieldIssue[] {
  if (!isRecord(result)) return [typeIssue("", "a CallToolResult object", result)];
  const issues: FieldIssue[] = [];
  const content = result.content;
  if (content !== undefined) {
    if (!Array.isArray(content)) issues.push(typeIssue("content", "array", content));
    // At most 20 issues: a 10,000-block result that is wrong throughout needs no 10,000-line failure.
    else for (let i = 0; i < content.length && issues.length < 20; i++) blockIssues(content[i], i, issues);
  }
  if (result.structuredContent !== undefined && !isRecord(result.structuredContent))
    issues.push(typeIssue("structuredContent", "object", result.structuredContent));
  if (result.isError !== undefined && typeof result.isError !== "boolean") issues.push(typeIssue("isError", "boolean", result.isError));
  return issues;
}

/** The wire fault for a result with `issues`; its content is kept when it is an array. */
export function malformedResultFault(result: unknown, issues: readonly FieldIssue[]): WireFault {
  // The content is kept as evidence even when broken: a model (or person) can often still read it.
  const content = isRecord(result) && Array.isArray(result.content) ? result.content : undefined;
  const summary = issues
    .slice(0, 3)
    .map((i) => `${i.field || "(root)"} ${i.constraint === "missing_field" ? "is missing" : `is not ${i.expected}`}`)
    .join("; ");
  return {
    type: "malformed",
    message: `tools/call result breaks the MCP result shape: ${summary}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ""}`,
    issues,
    ...(content ? { content } : {}),
  };
}

/** True when every block is `{ type: "text", text: string }` (the answer of most tools). */
function textOnly(content: readonly unknown[]): boolean {
  for (let i = 0; i < content.length; i++) if (!isTextBlock(content[i])) return false;
  return true;
}

/** A `tools/call` (or task) result checked for its shape: the result (missing `content` read as `[]`), or the malformed fault. */
export function shapedCallResult(result: unknown): Outcome<CallToolResult> {
  // The common result first: text blocks, no structuredContent or an object, no isError or a
  // boolean. It is what callResultIssues finds nothing wrong with, checked in one frame, no array.
  if (typeof result === "object" && result !== null) {
    const { content, structuredContent, isError } = result as { [key: string]: unknown };
    if (
      Array.isArray(content) &&
      textOnly(content) &&
      (structuredContent === undefined || isRecord(structuredContent)) &&
      (isError === undefined || typeof isError === "boolean")
    )
      return { ok: true, value: result as CallToolResult };
  }
  const issues = callResultIssues(result);
  if (issues.length > 0) return { ok: false, fault: malformedResultFault(result, issues) };
  // Missing content is tolerated (servers that answer with structuredContent only); readers then
  // get `[]` and never need to check.
  const shaped = result as Partial<CallToolResult>;
  return { ok: true, value: Array.isArray(shaped.content) ? (shaped as CallToolResult) : { ...shaped, content: [] } };
}
