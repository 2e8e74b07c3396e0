/**
 * One `tools/call` on the server side: check the arguments, run the handler, and shape what it
 * returns into a `CallToolResult`. Argument problems and handler throws become `isError` results
 * (MCP 2025-11-25: tool execution errors are results); only an `RpcHandlerError` thrown by the
 * handler becomes a JSON-RPC error. A thrown message is not sent: it may carry internals or
 * secrets, so it goes to `onError` and the model reads that the tool failed. The rule is the same
 * for every handler kind (see `RpcHandlerError`); a handler that wants the model to read its
 * message returns `{ isError: true, content }` itself.
 */
import type { FieldIssue } from "../failure/failure.js";
import type { CallToolResult, ContentBlock } from "../protocol/mcp-types.js";
import { RpcHandlerError } from "../protocol/rpc-peer.js";
import type { ServerTool, ToolContext } from "./types.js";

/** The `_meta` key under which argument issues are attached to an `isError` result. */
export const ISSUES_META_KEY = "io.toolwright/issues";

function errorResult(text: string, meta?: { readonly [key: string]: unknown }): CallToolResult {
  return { content: [{ type: "text", text }], isError: true, ...(meta ? { _meta: meta } : {}) };
}

function describeIssue(issue: FieldIssue): string {
  const parts = [`${issue.field || "(arguments)"}: ${issue.constraint}`];
  if (issue.expected !== undefined) parts.push(`expected ${issue.expected}`);
  if (issue.allowed !== undefined) parts.push(`allowed ${JSON.stringify(issue.allowed)}`);
  if (issue.actual !== undefined) parts.push(`got ${JSON.stringify(issue.actual)}`);
  return `- ${parts.join(", ")}`;
}

/** An `isError` result that lists field issues in text and in `_meta`. */
export function invalidArgumentsResult(tool: string, issues: readonly FieldIssue[]): CallToolResult {
  const text = `Invalid arguments for tool "${tool}":\n${issues.map(describeIssue).join("\n")}`;
  return errorResult(text, { [ISSUES_META_KEY]: issues });
}

function isPlainObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Without a precompiled decoder the server still checks the two things every schema asks for:
// an object, and its required fields. Full validation is the generated decoder's job.
function basicIssues(tool: ServerTool<unknown>, args: { [key: string]: unknown }): FieldIssue[] {
  const required = tool.inputSchema.required;
  if (!Array.isArray(required)) return [];
  return required
    .filter((key): key is string => typeof key === "string" && !Object.hasOwn(args, key))
    .map((field) => ({ field, constraint: "missing_field" as const }));
}

function isContentArray(value: unknown): value is readonly ContentBlock[] {
  return Array.isArray(value) && value.every((block) => isPlainObject(block) && typeof block.type === "string");
}

/** Turns what a handler returned into a wire result, or an `isError` result explaining the problem. */
export function normalizeResult(tool: ServerTool<unknown>, value: unknown): CallToolResult {
  if (!isPlainObject(value)) return errorResult(`Tool "${tool.name}" returned no result object.`);
  const hasStructured = value.structuredContent !== undefined;
  if (value.content !== undefined && !isContentArray(value.content)) {
    return errorResult(`Tool "${tool.name}" returned content that is not an array of content blocks.`);
  }
  // An error result is passed on as the handler wrote it: output-schema checks apply to successes only.
  if (value.isError === true)
    return { ...(value as unknown as CallToolResult), content: (value.content as ContentBlock[] | undefined) ?? [] };
  // Spec: a tool with an outputSchema MUST return structuredContent that conforms to it.
  if (tool.outputSchema && !hasStructured) {
    return errorResult(`Tool "${tool.name}" declares an outputSchema but returned no structuredContent.`);
  }
  if (hasStructured && tool.decodeResult) {
    const decoded = tool.decodeResult(value.structuredContent);
    if (!decoded.ok) {
      const lines = decoded.issues.map(describeIssue).join("\n");
      return errorResult(`Tool "${tool.name}" returned structuredContent that does not match its outputSchema:\n${lines}`, {
        [ISSUES_META_KEY]: decoded.issues,
      });
    }
  }
  // Structured results also carry a text copy, for clients that only read content (MCP SHOULD).
  const content =
    (value.content as readonly ContentBlock[] | undefined) ??
    (hasStructured ? [{ type: "text", text: JSON.stringify(value.structuredContent) }] : []);
  return { ...(value as unknown as CallToolResult), content };
}

/**
 * Runs one call. Resolves with the result to send; rejects only with an `RpcHandlerError`
 * (a JSON-RPC error the handler asked for).
 */
export async function runToolCall(
  tool: ServerTool<unknown>,
  rawArgs: unknown,
  ctx: ToolContext,
  onError: (error: unknown) => void,
): Promise<CallToolResult> {
  // Clients may omit arguments for a tool that takes none; that is an empty object, not an error.
  const args = rawArgs === undefined ? {} : rawArgs;
  if (!isPlainObject(args)) return invalidArgumentsResult(tool.name, [{ field: "", constraint: "invalid_field_type", expected: "object" }]);
  let payload: unknown = args;
  if (tool.decodePayload) {
    const decoded = tool.decodePayload(args);
    if (!decoded.ok) return invalidArgumentsResult(tool.name, decoded.issues);
    payload = decoded.value;
  } else {
    const issues = basicIssues(tool, args);
    if (issues.length > 0) return invalidArgumentsResult(tool.name, issues);
  }
  let value: unknown;
  try {
    value = await tool.handler(payload, ctx);
  } catch (error) {
    if (error instanceof RpcHandlerError) throw error;
    // Reported to the author only: the message may carry a path, a query or a credential. The
    // result still says the call failed, so the model does not take it for an empty success.
    onError(error);
    return errorResult(`Tool "${tool.name}" failed with an internal error (the server's log has the details).`);
  }
  return normalizeResult(tool, value);
}
