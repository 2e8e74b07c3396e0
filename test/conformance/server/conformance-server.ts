/**
 * Handlers for the conformance server and the small adapter that turns an `mcpServer` declaration
 * into `createToolServer` tools (what the generated scaffold does for a design).
 */
import type { McpServerDecl } from "../../../packages/dsl/src/index.js";
import { toJsonSchema } from "../../../packages/dsl/src/index.js";
import { RpcHandlerError } from "../../../packages/runtime/src/protocol.js";
import {
  createToolServer,
  type ServerTool,
  type ToolContext,
  type ToolHandlerResult,
  type ToolServer,
} from "../../../packages/runtime/src/server.js";
import { conformanceServer } from "./design.js";

type Handler = (args: { [key: string]: unknown }, ctx: ToolContext) => ToolHandlerResult | Promise<ToolHandlerResult>;

/** Builds server tools from a declaration; every declared tool needs a handler. */
export function toolsFromDecl(decl: McpServerDecl, handlers: { readonly [name: string]: Handler }): ServerTool[] {
  return decl.tools.map((t) => {
    const handler = handlers[t.name];
    if (!handler) throw new Error(`no handler for tool "${t.name}" of server "${decl.name}"`);
    const a = t.annotations;
    const annotations = a
      ? {
          ...(a.readOnly === undefined ? {} : { readOnlyHint: a.readOnly }),
          ...(a.destructive === undefined ? {} : { destructiveHint: a.destructive }),
          ...(a.idempotent === undefined ? {} : { idempotentHint: a.idempotent }),
          ...(a.openWorld === undefined ? {} : { openWorldHint: a.openWorld }),
        }
      : undefined;
    return {
      name: t.name,
      ...(t.title === undefined ? {} : { title: t.title }),
      ...(t.description === undefined ? {} : { description: t.description }),
      inputSchema: toJsonSchema(t.input),
      ...(t.output === undefined ? {} : { outputSchema: toJsonSchema(t.output) }),
      ...(annotations ? { annotations } : {}),
      handler: handler as ServerTool["handler"],
    };
  });
}

const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
// A 44-byte WAV header with no samples: a valid, silent clip.
const WAV = Buffer.from("UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=", "base64").toString("base64");
const nameSchema = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
type Elicited = { readonly action?: string; readonly content?: { readonly [key: string]: unknown } };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (value: string): ToolHandlerResult => ({ content: [{ type: "text", text: value }] });

/** The server the list-change hooks announce on; set by whoever creates it. */
export const listeners: { server: ToolServer | undefined } = { server: undefined };

export const handlers: { [name: string]: Handler } = {
  test_simple_text: () => text("This is a simple text response for testing."),
  test_image_content: () => ({ content: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }] }),
  test_audio_content: () => ({ content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] }),
  test_embedded_resource: () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
      },
    ],
  }),
  test_multiple_content_types: () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG_1X1, mimeType: "image/png" },
      {
        type: "resource",
        resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
      },
    ],
  }),
  test_tool_with_logging: async (_args, ctx) => {
    await ctx.log("info", "Tool execution started");
    await sleep(50);
    await ctx.log("info", "Tool processing data");
    await sleep(50);
    await ctx.log("info", "Tool execution completed");
    return text("Logging test completed");
  },
  test_error_handling: () => {
    throw new Error("This tool intentionally returns an error for testing");
  },
  test_tool_with_progress: async (_args, ctx) => {
    await ctx.progress(0, 100);
    await sleep(50);
    await ctx.progress(50, 100);
    await sleep(50);
    await ctx.progress(100, 100);
    return text("Progress test completed");
  },
  test_sampling: async (args, ctx) => {
    const result = (await ctx.request("sampling/createMessage", {
      messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }],
      maxTokens: 100,
    })) as { content?: { type?: string; text?: string } };
    return text(`LLM response: ${result.content?.text ?? ""}`);
  },
  test_elicitation: async (args, ctx) => {
    const result = await ctx.request("elicitation/create", {
      message: String(args.message),
      requestedSchema: {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      },
    });
    return text(`User response: ${JSON.stringify(result)}`);
  },
  test_elicitation_sep1034_defaults: async (_args, ctx) => {
    const result = (await ctx.request("elicitation/create", {
      message: "Please review and update the form fields with defaults",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "User name", default: "John Doe" },
          age: { type: "integer", description: "User age", default: 30 },
          score: { type: "number", description: "User score", default: 95.5 },
          status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean", description: "Verification status", default: true },
        },
      },
    })) as { action?: string; content?: unknown };
    return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  },
  test_elicitation_sep1330_enums: async (_args, ctx) => {
    const result = (await ctx.request("elicitation/create", {
      message: "Please select options from the enum fields",
      requestedSchema: {
        type: "object",
        properties: {
          untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
          titledSingle: {
            type: "string",
            description: "Select one option with titles",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: {
            type: "string",
            description: "Select one option (legacy)",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"],
          },
          untitledMulti: {
            type: "array",
            description: "Select multiple options",
            minItems: 1,
            maxItems: 3,
            items: { type: "string", enum: ["option1", "option2", "option3"] },
          },
          titledMulti: {
            type: "array",
            description: "Select multiple options with titles",
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        },
      },
    })) as { action?: string; content?: unknown };
    return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  },
  test_missing_capability: async (_args, ctx) => {
    const result = (await ctx.request("sampling/createMessage", {
      messages: [{ role: "user", content: { type: "text", text: "ping" } }],
      maxTokens: 10,
    })) as { content?: { text?: string } };
    return text(`sampled: ${result.content?.text ?? ""}`);
  },
  test_logging_tool: async (_args, ctx) => {
    for (const step of ["started", "working", "done"]) await ctx.log("info", `logging tool ${step}`);
    return text("Logging tool completed");
  },
  test_input_required_result_elicitation: async (_args, ctx) => {
    const answer = (await ctx.input("user_name", "elicitation/create", {
      message: "What is your name?",
      requestedSchema: nameSchema,
    })) as Elicited;
    return text(`Hello, ${String(answer.content?.name ?? "stranger")}!`);
  },
  test_input_required_result_request_state: async (_args, ctx) => {
    const answer = (await ctx.input("confirm", "elicitation/create", {
      message: "Please confirm",
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
    })) as Elicited;
    // Reaching here on a retry means the sealed requestState passed its integrity check.
    return text(`state-ok: confirmed=${String(answer.content?.ok)}`);
  },
  test_input_required_result_multi_round: async (_args, ctx) => {
    const step1 = (await ctx.input("step1", "elicitation/create", {
      message: "Step 1: What is your name?",
      requestedSchema: nameSchema,
    })) as Elicited;
    const step2 = (await ctx.input("step2", "elicitation/create", {
      message: "Step 2: What is your favorite color?",
      requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
    })) as Elicited;
    return text(`${String(step1.content?.name)} likes ${String(step2.content?.color)}`);
  },
  test_input_required_result_tampered_state: async (_args, ctx) => {
    const answer = (await ctx.input("confirm", "elicitation/create", {
      message: "Please confirm",
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
    })) as Elicited;
    return text(`confirmed=${String(answer.content?.ok)}`);
  },
  test_input_required_result_capabilities: async (_args, ctx) => {
    const asks: Promise<unknown>[] = [];
    if (ctx.clientCapabilities.elicitation !== undefined)
      asks.push(ctx.input("name", "elicitation/create", { message: "Name?", requestedSchema: nameSchema }));
    if (ctx.clientCapabilities.sampling !== undefined) {
      asks.push(
        ctx.input("greeting", "sampling/createMessage", {
          messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
          maxTokens: 20,
        }),
      );
    }
    const answers = await Promise.all(asks);
    return text(`answers: ${answers.length}`);
  },
  test_input_required_result_sampling: async (_args, ctx) => {
    const answer = (await ctx.input("capital_question", "sampling/createMessage", {
      messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
      maxTokens: 100,
    })) as { content?: { text?: string } };
    return text(`Sampling response: ${answer.content?.text ?? ""}`);
  },
  test_input_required_result_list_roots: async (_args, ctx) => {
    const answer = (await ctx.input("client_roots", "roots/list", {})) as { roots?: { uri: string }[] };
    return text(`Roots: ${(answer.roots ?? []).map((r) => r.uri).join(", ")}`);
  },
  test_input_required_result_multiple_inputs: async (_args, ctx) => {
    const [name, greeting, roots] = await Promise.all([
      ctx.input("user_name", "elicitation/create", { message: "What is your name?", requestedSchema: nameSchema }),
      ctx.input("greeting", "sampling/createMessage", {
        messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
        maxTokens: 50,
      }),
      ctx.input("client_roots", "roots/list", {}),
    ]);
    return text(`got ${JSON.stringify({ name, greeting, roots }).length} bytes of answers`);
  },
  test_streaming_elicitation: async (_args, ctx) => {
    const answer = (await ctx.request("elicitation/create", {
      message: "Continue?",
      requestedSchema: { type: "object", properties: { go: { type: "boolean" } } },
    })) as Elicited;
    return text(`streaming elicitation: ${answer.action}`);
  },
  test_header_param: (args) => text(`region: ${String(args.region)}`),
  json_schema_2020_12_tool: (args) => text(`ok: ${JSON.stringify(args)}`),
  test_reconnection: async (_args, ctx) => {
    await sleep(20);
    ctx.closeSseStream();
    await sleep(200);
    return text("Reconnection test completed");
  },
  greet: (args) => text(`Hello, ${String(args.name)}!`),
  slow_compute: async (args, ctx) => {
    await abortableSleep(Number(args.seconds) * 1000, ctx.signal);
    return text(`computed ${String(args.label ?? "")} after ${String(args.seconds)} s`);
  },
  failing_job: () => ({ content: [{ type: "text", text: "the job failed" }], isError: true }),
  protocol_error_job: () => {
    throw new RpcHandlerError(-32603, "the job hit a protocol error");
  },
  confirm_delete: async (args, ctx) => {
    const answer = (await ctx.input("confirm", "elicitation/create", {
      message: `Delete ${String(args.filename)}?`,
      requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
    })) as Elicited;
    return text(`${answer.action === "accept" ? "deleted" : "kept"} ${String(args.filename)}`);
  },
  multi_input: async (_args, ctx) => {
    const schema = { type: "object", properties: { name: { type: "string" }, confirm: { type: "boolean" } } };
    const [a, b] = (await Promise.all([
      ctx.input("first", "elicitation/create", { message: "First?", requestedSchema: schema }),
      ctx.input("second", "elicitation/create", { message: "Second?", requestedSchema: schema }),
    ])) as Elicited[];
    return text(`answers: ${String(a?.content?.name)}, ${String(b?.content?.name)}`);
  },
  // 2026-07-28 diagnostic hooks (server-stateless): the lists are static, so these announce a change
  // to every listener the way a server whose list really changed would (ToolServer.notify*).
  test_trigger_tool_change: () => {
    listeners.server?.notifyToolListChanged();
    return text("announced a tools/list change");
  },
  test_trigger_prompt_change: () => {
    listeners.server?.notifyPromptListChanged();
    return text("announced a prompts/list change");
  },
  test_tool_with_task: async (_args, ctx) => {
    const answer = (await ctx.input("user_name", "elicitation/create", { message: "Your name?", requestedSchema: nameSchema })) as Elicited;
    await sleep(300);
    return text(`Task finished for ${String(answer.content?.name ?? "nobody")}`);
  },
};

/** Sleeps `ms`, or until `signal` aborts (a cancelled task stops at once). */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Creates the conformance tool server from its declaration. */
export function createConformanceServer(): ToolServer {
  listeners.server = createToolServer({
    name: conformanceServer.name,
    version: conformanceServer.version,
    ...(conformanceServer.protocolVersion ? { protocolVersion: conformanceServer.protocolVersion } : {}),
    ...(conformanceServer.instructions ? { instructions: conformanceServer.instructions } : {}),
    tools: toolsFromDecl(conformanceServer, handlers),
  });
  return listeners.server;
}
