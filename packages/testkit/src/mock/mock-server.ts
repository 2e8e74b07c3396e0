/**
 * The mock engine: turns a generated `MockDefinition` into a real runtime tool server that answers
 * every tool from the test's handler or the generated default answer, checks each answer against
 * the tool's output schema with the generated (precompiled) validator, and records every call.
 * It holds no global state: each `createMockServer` has its own record.
 */
import type { FieldIssue } from "@toolwright/runtime";
import { RpcHandlerError } from "@toolwright/runtime/protocol";
import { type CallToolResult, createToolServer, type ServerTool, type ToolServer } from "@toolwright/runtime/server";
import { listingOf } from "./listing.js";
import { blockProblem, isMockResult, type MockResult } from "./result.js";
import type { MockCall, MockCallInfo, MockDefinition, MockInterceptor, MockToolDefinition } from "./types.js";

/** A mock answer that broke its tool's contract: what the test sees in `failures`. */
export interface MockFailure {
  readonly tool: string;
  /** 1-based among the calls to `tool`. */
  readonly call: number;
  /** Names toolset, tool and the offending fields. */
  readonly message: string;
}

/** A running mock's tool server and its record. */
export interface MockServer {
  readonly toolset: string;
  /** The runtime tool server: serve it in memory, over stdio or over HTTP. */
  readonly server: ToolServer;
  /** Every call received, in order. */
  readonly calls: readonly MockCall[];
  /** The calls to one tool (wire name), in order; throws on a name the toolset does not have. */
  callsTo(tool: string): readonly MockCall[];
  /** Answers that broke their tool's contract (each was also answered as an `isError` result). */
  readonly failures: readonly MockFailure[];
  /** Forgets the calls and failures (call numbers start at 1 again). */
  reset(): void;
}

/** Options of `createMockServer`. */
export interface MockServerOptions {
  /** Wraps every answer: fault injection hooks in here. */
  readonly intercept?: MockInterceptor;
  /** Told about every failure as it is recorded (the stdio command logs them for the parent test). */
  readonly onFailure?: (failure: MockFailure) => void;
  /** Server version in `initialize` (default `0.0.0-mock`). */
  readonly version?: string;
}

/** One field issue in words: `temperature: invalid_type (expected number)`. */
export function describeIssue(issue: FieldIssue): string {
  const expected = issue.expected === undefined ? "" : ` (expected ${issue.expected})`;
  return `${issue.field === "" ? "(the result)" : issue.field}: ${issue.constraint}${expected}`;
}

const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

/**
 * Checks `value` against the tool's contract and wraps it as a wire result: a structured answer
 * must pass the generated output validator, a text answer must be a string, and a full result
 * (`result({...})`) must have protocol-shaped blocks and a structured answer that passes. Returns
 * the problem in words (naming toolset, tool and fields) when it does not.
 */
export function checkAnswer(
  toolset: string,
  tool: MockToolDefinition,
  value: unknown,
  source: "handler" | "default",
): { readonly ok: true; readonly result: CallToolResult } | { readonly ok: false; readonly message: string } {
  const where = `mock ${toolset}.${tool.spec.name}: the ${source === "handler" ? "handler's" : "generated default"} answer`;
  if (isMockResult(value)) return checkFullResult(`mock ${toolset}.${tool.spec.name}: the handler's result`, tool, value);
  if (tool.spec.decodeResult !== undefined) {
    const decoded = tool.spec.decodeResult(value);
    if (!decoded.ok) return { ok: false, message: `${where} breaks the output schema: ${decoded.issues.map(describeIssue).join("; ")}` };
    const text = JSON.stringify(value) ?? "null";
    return { ok: true, result: { content: [{ type: "text", text }], structuredContent: value as { [key: string]: unknown } } };
  }
  if (typeof value !== "string") {
    return {
      ok: false,
      message: `${where} must be a string (the tool declares no output schema, so it answers text), got ${typeof value}`,
    };
  }
  return { ok: true, result: { content: [{ type: "text", text: value }] } };
}

/** A handler's full result: its blocks and `_meta` as given, its structured answer checked like a plain one. */
function checkFullResult(
  where: string,
  tool: MockToolDefinition,
  full: MockResult,
): { readonly ok: true; readonly result: CallToolResult } | { readonly ok: false; readonly message: string } {
  const { content, structuredContent, isError, _meta } = full;
  const fail = (problem: string) => ({ ok: false as const, message: `${where}: ${problem}` });
  if (content !== undefined && !Array.isArray(content)) return fail("content must be an array of content blocks");
  const blockIssue = (content ?? []).map(blockProblem).find((p) => p !== undefined);
  if (blockIssue !== undefined) return fail(blockIssue);
  if (isError !== undefined && typeof isError !== "boolean") return fail("isError must be a boolean");
  if (_meta !== undefined && (typeof _meta !== "object" || _meta === null || Array.isArray(_meta))) return fail("_meta must be an object");
  const decode = tool.spec.decodeResult;
  if (structuredContent !== undefined && decode === undefined) {
    return fail("has structuredContent, but the tool declares no output schema (answer text blocks only)");
  }
  // An error result need not carry the structured answer (clients do not check it against the schema).
  if (decode !== undefined && isError !== true) {
    if (structuredContent === undefined) return fail("needs structuredContent: the tool declares an output schema");
    const decoded = decode(structuredContent);
    if (!decoded.ok) {
      const field = (f: string) => (f === "" ? "structuredContent" : `structuredContent.${f}`);
      return fail(`breaks the output schema: ${decoded.issues.map((i) => describeIssue({ ...i, field: field(i.field) })).join("; ")}`);
    }
  }
  const blocks =
    content ?? (structuredContent === undefined ? [] : [{ type: "text" as const, text: JSON.stringify(structuredContent) ?? "null" }]);
  return {
    ok: true,
    result: {
      content: blocks,
      ...(structuredContent === undefined ? {} : { structuredContent }),
      ...(isError === undefined ? {} : { isError }),
      ...(_meta === undefined ? {} : { _meta }),
    },
  };
}

/** Creates the tool server of a generated mock definition, with its own call record. */
export function createMockServer(definition: MockDefinition, options: MockServerOptions = {}): MockServer {
  let calls: MockCall[] = [];
  let failures: MockFailure[] = [];
  let perTool = new Map<string, number>();
  const fail = (failure: MockFailure) => {
    failures.push(failure);
    options.onFailure?.(failure);
  };
  const names = new Set(definition.tools.map((t) => t.spec.name));
  const answer = async (tool: MockToolDefinition, args: unknown, info: MockCallInfo): Promise<CallToolResult> => {
    const handler = tool.handler;
    let value: unknown;
    if (handler !== undefined) {
      try {
        value = await handler(args as never, info);
      } catch (error) {
        if (error instanceof RpcHandlerError) throw error;
        // The test's own throw: its message is the test's, so it goes back to the test as a JSON-RPC error.
        throw new RpcHandlerError(
          -32603,
          `mock ${definition.toolset}.${tool.spec.name}: the handler threw: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    } else if (tool.answer.from === "none") {
      const message = `mock ${definition.toolset}.${tool.spec.name}: no default answer could be made from the output schema; give the mock a handler for ${JSON.stringify(tool.spec.name)}`;
      fail({ tool: tool.spec.name, call: info.call, message });
      return errorResult(message);
    } else value = tool.answer.value;
    const checked = checkAnswer(definition.toolset, tool, value, handler === undefined ? "default" : "handler");
    if (checked.ok) return checked.result;
    fail({ tool: tool.spec.name, call: info.call, message: checked.message });
    return errorResult(checked.message);
  };
  const tools = definition.tools.map((tool): ServerTool => {
    const spec = tool.spec;
    return {
      name: spec.name,
      ...listingOf(spec, tool.listed),
      // Payloads are checked by the generated decoder, so a wrong argument gets the server's own answer.
      decodePayload: spec.decodePayload as NonNullable<ServerTool["decodePayload"]>,
      // No decodeResult: the mock checks answers itself (naming the field), and a fault may break one on purpose.
      handler: async (args, ctx) => {
        const call = (perTool.get(spec.name) ?? 0) + 1;
        perTool.set(spec.name, call);
        // _meta as the client sent it (idempotency keys, progress tokens): tests count and match calls by it.
        const _meta = { ...ctx.meta };
        const record: MockCall = { tool: spec.name, arguments: args, call, seq: calls.length + 1, _meta };
        calls.push(record);
        const info: MockCallInfo = { tool: spec.name, call, seq: record.seq, signal: ctx.signal, _meta };
        const run = () => answer(tool, args, info);
        return options.intercept === undefined ? run() : options.intercept(record, run, ctx.signal);
      },
    };
  });
  const server = createToolServer({ name: definition.server, version: options.version ?? "0.0.0-mock", tools });
  return {
    toolset: definition.toolset,
    server,
    get calls() {
      return calls;
    },
    callsTo(tool) {
      if (!names.has(tool)) {
        throw new TypeError(
          `mock ${definition.toolset}: no tool ${JSON.stringify(tool)} (it has ${[...names].map((n) => JSON.stringify(n)).join(", ")})`,
        );
      }
      return calls.filter((c) => c.tool === tool);
    },
    get failures() {
      return failures;
    },
    reset() {
      calls = [];
      failures = [];
      perTool = new Map();
    },
  };
}
