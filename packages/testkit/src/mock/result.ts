/**
 * Full results from mock handlers. A handler's plain return value is its structured answer (or its
 * text), and the mock makes the wire result with the JSON of it as the text block. A real server
 * chooses its own text, sometimes several blocks, images, links or `_meta`, and planner code and
 * token counts read those: so a handler may return `result({...})` instead, and the mock sends
 * exactly that, after checking `structuredContent` against the output schema and every block
 * against the protocol's block shapes.
 *
 * The brand is a string key, not a symbol: generated `mock.gen.ts` imports only the runtime, so it
 * spells the same type (`<Toolset>MockReply<T>`) structurally, and the two must be assignable.
 */
import type { CallToolResult } from "@toolwright/runtime/server";

/** The key that marks a handler's return value as a full result (set by `result`). */
export const MOCK_RESULT = "toolwright/mock-result";

/** A full tool result a mock handler returns instead of its plain answer; `T` is the tool's structured answer. */
export interface MockResult<T = unknown> {
  readonly [MOCK_RESULT]: true;
  /** The content blocks, sent as given. Absent: the JSON of `structuredContent` as one text block (or none). */
  readonly content?: CallToolResult["content"];
  /** The structured answer, checked against the tool's output schema (unless `isError`). */
  readonly structuredContent?: T;
  /** An error result, as a server reports a failed tool. */
  readonly isError?: boolean;
  /** The result's `_meta`, sent as given. */
  readonly _meta?: { readonly [key: string]: unknown };
}

/**
 * Makes a full result for a mock handler to return: its own text blocks, images, resource links,
 * `isError` or `_meta`, as the real server would answer. In a generated handler `structuredContent`
 * is typed by the tool's output schema.
 * @example
 * readTextFile: ({ path }) => result({ content: [{ type: "text", text: files.get(path) }], structuredContent: { content: files.get(path) } })
 */
export function result<T = never>(fields: Omit<MockResult<T>, typeof MOCK_RESULT>): MockResult<T> {
  return { ...fields, [MOCK_RESULT]: true };
}

/** Whether a handler's return value is a full result made by `result` (or spelled with its brand). */
export function isMockResult(value: unknown): value is MockResult {
  return typeof value === "object" && value !== null && (value as { [MOCK_RESULT]?: unknown })[MOCK_RESULT] === true;
}

type Json = { readonly [key: string]: unknown };
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The string fields each block type must have (the protocol's shapes); optional ones are checked when present. */
const BLOCK_FIELDS: { readonly [type: string]: { readonly required: readonly string[]; readonly optional: readonly string[] } } = {
  text: { required: ["text"], optional: [] },
  image: { required: ["data", "mimeType"], optional: [] },
  audio: { required: ["data", "mimeType"], optional: [] },
  resource_link: { required: ["uri", "name"], optional: ["title", "description", "mimeType"] },
  resource: { required: [], optional: [] },
};

function resourceProblem(resource: unknown, at: string): string | undefined {
  if (!isObject(resource)) return `${at}.resource must be an object`;
  if (typeof resource.uri !== "string") return `${at}.resource.uri must be a string`;
  const text = typeof resource.text === "string";
  const blob = typeof resource.blob === "string";
  if (text === blob) return `${at}.resource needs a string "text" or a string "blob" (one of them)`;
  if (resource.mimeType !== undefined && typeof resource.mimeType !== "string") return `${at}.resource.mimeType must be a string`;
  return undefined;
}

/** The first problem of one content block in words (`content[1].mimeType must be a string`), or undefined. */
export function blockProblem(block: unknown, index: number): string | undefined {
  const at = `content[${index}]`;
  if (!isObject(block)) return `${at} must be an object`;
  const type = block.type;
  const fields = typeof type === "string" && Object.hasOwn(BLOCK_FIELDS, type) ? BLOCK_FIELDS[type] : undefined;
  if (fields === undefined) {
    return `${at}.type must be one of ${Object.keys(BLOCK_FIELDS)
      .map((t) => JSON.stringify(t))
      .join(", ")}, got ${JSON.stringify(type) ?? String(type)}`;
  }
  for (const name of fields.required) if (typeof block[name] !== "string") return `${at}.${name} must be a string`;
  for (const name of fields.optional) {
    if (block[name] !== undefined && typeof block[name] !== "string") return `${at}.${name} must be a string`;
  }
  if (type === "resource") return resourceProblem(block.resource, at);
  if (block._meta !== undefined && !isObject(block._meta)) return `${at}._meta must be an object`;
  return undefined;
}
