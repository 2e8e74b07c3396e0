/**
 * The real OpenAI and Anthropic SDK clients against a 127.0.0.1 endpoint replaying scripted
 * responses, with the real server-memory and server-filesystem behind the runtime: parallel tool
 * calls, a hallucinated tool name, malformed JSON arguments and a strict-mode null, through
 * `createProviderTools(...).run(response)` into the next request. Runs on openai 6 (Node 20) and
 * openai 7 (Node 22).
 */
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { RuntimeEvent } from "@toolwright/runtime";
import { createProviderTools } from "@toolwright/runtime/providers";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";
import {
  anthropicMessage,
  chatCompletion,
  responsesAnswer,
  type ScriptedProvider,
  startScriptedProvider,
} from "../../examples/providers/scripted-provider.js";

let servers: RealServers;
let provider: ScriptedProvider;
const events: RuntimeEvent[] = [];

beforeAll(async () => {
  servers = startRealServers({ onEvent: (e) => events.push(e) });
  provider = await startScriptedProvider();
});
afterAll(async () => {
  await provider.close();
  await servers.close();
});

const openai = () => new OpenAI({ apiKey: "test-key", baseURL: `${provider.url}/v1`, maxRetries: 0 });

describe("OpenAI Chat Completions (strict mode)", () => {
  it("sends strict definitions, runs parallel calls, refuses the bad ones, and the next request carries every result by call id", async () => {
    servers.runtime.resetRun();
    events.length = 0;
    const tools = createProviderTools(servers.runtime, { format: "openai-chat" });
    const notes = join(servers.root, "notes.txt");
    provider.script(
      "/v1/chat/completions",
      chatCompletion([
        { id: "call_a", name: "filesystem_read_text_file", arguments: JSON.stringify({ path: notes, head: null, tail: null }) },
        { id: "call_b", name: "memory_read_graph", arguments: "{}" },
        { id: "call_c", name: "filesystem_raed_text_file", arguments: JSON.stringify({ path: notes }) },
        { id: "call_d", name: "memory_open_nodes", arguments: '{"names": ["Ada"' },
      ]),
      chatCompletion([], "Ada wrote the first program."),
    );
    const client = openai();
    const definitions = tools.definitions();
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: "What do the notes say?" }];
    const first = await client.chat.completions.create({ model: "gpt-test", messages, tools: definitions });
    const assistant = first.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
    const { messages: results, outcomes } = await tools.run(first);
    messages.push(assistant, ...results);
    const second = await client.chat.completions.create({ model: "gpt-test", messages, tools: definitions });
    expect(second.choices[0]?.message.content).toBe("Ada wrote the first program.");

    // What the SDK sent the first time: strict definitions with optional fields required and nullable.
    const sentTools = provider.requests("/v1/chat/completions")[0]?.tools as OpenAI.Chat.Completions.ChatCompletionFunctionTool[];
    expect(sentTools).toHaveLength(23);
    const read = sentTools.find((t) => t.function.name === "filesystem_read_text_file");
    expect(read?.function.strict).toBe(true);
    expect(read?.function.parameters).toMatchObject({
      required: ["head", "path", "tail"],
      additionalProperties: false,
      properties: { head: { type: ["number", "null"] }, path: { type: "string" } },
    });

    // The strict-mode nulls stood for "omitted": dropped before validation, so the server read the file.
    expect(outcomes[0]?.request.arguments).toEqual({ path: notes });
    expect(outcomes.map((o) => o.result.ok)).toEqual([true, true, false, false]);
    const [, , hallucinated, malformed] = outcomes.map((o) => (o.result.ok ? undefined : o.result.failure));
    expect(hallucinated).toMatchObject({ kind: "invalid_call", reason: "tool_unavailable", recovery: { action: "replan" } });
    expect(hallucinated?.suggestions?.[0]).toBe("filesystem_read_text_file");
    expect(malformed).toMatchObject({ kind: "invalid_call", recovery: { action: "correct_call" } });
    expect(malformed?.message).toMatch(/malformed JSON/);

    // The next request carries one tool message per call, in order, with the call ids and the rendered text.
    const sent = provider.requests("/v1/chat/completions")[1]?.messages as { role: string; tool_call_id?: string; content: string }[];
    const toolMessages = sent.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => m.tool_call_id)).toEqual(["call_a", "call_b", "call_c", "call_d"]);
    expect(toolMessages[0]?.content).toContain("Ada wrote the first program.");
    expect(toolMessages[2]?.content).toMatch(/^Tool call failed: filesystem_raed_text_file \(invalid_call, tool_unavailable\)/);
    expect(toolMessages[2]?.content).toContain("Closest tools: filesystem_read_text_file");
    expect(toolMessages[3]?.content).toMatch(/malformed JSON/);

    // Both read-only calls were in flight together; the two refusals counted toward the policy.
    const started = events.filter((e) => e.type === "call_started").map((e) => e.tool);
    const firstFinish = events.findIndex((e) => e.type === "call_finished" || e.type === "call_failed");
    expect(events.slice(0, firstFinish).filter((e) => e.type === "call_started")).toHaveLength(4);
    expect(started).toHaveLength(4);
    expect(servers.runtime.usage().toolCalls).toBe(2);
    const refused = events.filter((e) => e.type === "call_failed" && !e.sent).map((e) => e.callId);
    expect(refused).toEqual(["call_c", "call_d"]);
  });
});

describe("OpenAI Responses", () => {
  it("runs a write before the read that depends on it, and answers with function_call_output items", async () => {
    servers.runtime.resetRun();
    const tools = createProviderTools(servers.runtime, { format: "openai-responses" });
    provider.script(
      "/v1/responses",
      responsesAnswer("resp_1", [
        {
          callId: "call_1",
          name: "memory_create_entities",
          arguments: JSON.stringify({ entities: [{ name: "Grace", entityType: "person", observations: ["COBOL"] }] }),
        },
        { callId: "call_2", name: "memory_search_nodes", arguments: JSON.stringify({ query: "Grace" }) },
      ]),
      responsesAnswer("resp_2", [], "Grace is known."),
    );
    const client = openai();
    const first = await client.responses.create({ model: "gpt-test", input: "Remember Grace", tools: tools.definitions() });
    const { messages, outcomes } = await tools.run(first);
    const second = await client.responses.create({
      model: "gpt-test",
      input: messages,
      previous_response_id: first.id,
      tools: tools.definitions(),
    });
    expect(second.output_text).toBe("Grace is known.");
    expect(outcomes.map((o) => o.result.ok)).toEqual([true, true]);
    // create_entities is not read-only: it ran alone, first, so the search found what it wrote.
    expect(outcomes[1]?.text).toContain("Grace");
    const input = provider.requests("/v1/responses")[1]?.input as { type: string; call_id: string; output: string }[];
    expect(input.map((i) => [i.type, i.call_id])).toEqual([
      ["function_call_output", "call_1"],
      ["function_call_output", "call_2"],
    ]);
    const sentTools = provider.requests("/v1/responses")[0]?.tools as { name: string; strict: boolean; type: string }[];
    expect(sentTools.every((t) => t.type === "function" && t.strict === true)).toBe(true);
  });
});

describe("Anthropic Messages", () => {
  it("answers tool_use blocks with one user message of tool_result blocks, failures marked is_error", async () => {
    servers.runtime.resetRun();
    const tools = createProviderTools(servers.runtime, { format: "anthropic" });
    const notes = join(servers.root, "notes.txt");
    provider.script(
      "/v1/messages",
      anthropicMessage([
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "toolu_1", name: "filesystem_read_text_file", input: { path: notes } },
        { type: "tool_use", id: "toolu_2", name: "memory_open_nodes", input: { names: "Ada" } },
        { type: "tool_use", id: "toolu_3", name: "memory_forget_everything", input: {} },
      ]),
      anthropicMessage([{ type: "text", text: "The notes mention Ada." }]),
    );
    const client = new Anthropic({ apiKey: "test-key", baseURL: provider.url, maxRetries: 0 });
    const history: Anthropic.Messages.MessageParam[] = [{ role: "user", content: "Read the notes" }];
    const first = await client.messages.create({ model: "claude-test", max_tokens: 256, messages: history, tools: tools.definitions() });
    const { messages } = await tools.run(first);
    history.push({ role: "assistant", content: first.content }, ...messages);
    const second = await client.messages.create({ model: "claude-test", max_tokens: 256, messages: history, tools: tools.definitions() });
    expect(second.content[0]).toMatchObject({ type: "text", text: "The notes mention Ada." });

    const sent = provider.requests("/v1/messages")[1]?.messages as { role: string; content: unknown }[];
    const last = sent.at(-1) as { role: string; content: { type: string; tool_use_id: string; content: string; is_error?: boolean }[] };
    expect(last.role).toBe("user");
    expect(last.content.map((b) => [b.type, b.tool_use_id, b.is_error ?? false])).toEqual([
      ["tool_result", "toolu_1", false],
      ["tool_result", "toolu_2", true],
      ["tool_result", "toolu_3", true],
    ]);
    expect(last.content[0]?.content).toContain("Ada wrote the first program.");
    expect(last.content[1]?.content).toMatch(/- names is invalid \(invalid field type\); expected array; got "Ada"/);
    expect(last.content[2]?.content).toMatch(/There is no tool named "memory_forget_everything"/);
    const sentTools = provider.requests("/v1/messages")[0]?.tools as { name: string; input_schema: { type: string } }[];
    expect(sentTools.every((t) => t.input_schema.type === "object")).toBe(true);
  });
});
