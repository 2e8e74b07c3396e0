/**
 * Code mode through every planner path, each with its real SDK package: OpenAI Chat Completions and Responses,
 * Anthropic Messages and Gemini (their clients against scripted answers on 127.0.0.1), the AI SDK
 * (`generateText` with its mock model), LangChain (its tools invoked with the model's tool call),
 * and the manager's live registry. The model calls `run_code` with a program; its tool calls reach
 * the real server-filesystem and server-memory; the final value is what the model is shown.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { AIMessage, type ToolMessage } from "@langchain/core/messages";
import { createAiSdkTools } from "@toolwright/ai-sdk";
import { createCodeModeTools } from "@toolwright/code-mode";
import { createLangChainTools } from "@toolwright/langchain";
import { createRuntime } from "@toolwright/runtime";
import { createMcpManager } from "@toolwright/runtime/manager";
import { createProviderTools } from "@toolwright/runtime/providers";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { filesystemCodeMode } from "../../examples/catalogues/src/gen/filesystem/code-mode.gen.js";
import { memoryCodeMode } from "../../examples/catalogues/src/gen/memory/code-mode.gen.js";
import { adaProgram, catalogueCodeMode, memoryFileOf, storedEntities } from "../../examples/code-mode/programs.js";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";
import {
  anthropicMessage,
  chatCompletion,
  geminiAnswer,
  responsesAnswer,
  type ScriptedProvider,
  startScriptedProvider,
} from "../../examples/providers/scripted-provider.js";
import { countTokens } from "../../packages/codegen/src/tokens/count.js";
import { MEMORY, NODE, serverEntry } from "../manager/helpers.js";

const NOTES_LINES = ["Ada wrote the first program.", "She worked with Babbage."];
const CODE_TOOLS = ["run_code", "search", "describe", "read_result"];

let servers: RealServers | undefined;
let provider: ScriptedProvider | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await servers?.close();
  await provider?.close();
  for (const c of cleanups.splice(0)) await c();
  servers = undefined;
  provider = undefined;
});

async function setUp() {
  servers = startRealServers();
  provider = await startScriptedProvider();
  return { servers, provider, program: adaProgram(join(servers.root, "notes.txt")) };
}

/** What the real memory server stored: Ada, with one observation per line of the real notes file. */
function expectAdaStored(s: RealServers) {
  expect(storedEntities(memoryFileOf(s.root)).get("Ada")).toEqual(NOTES_LINES);
}

/** The program's value as the model was shown it in the follow-up request. */
function expectValueShown(text: string) {
  expect(JSON.parse(text)).toEqual({ stored: ["Ada"], facts: 2 });
}

describe("run_code through the provider adapters", () => {
  it("OpenAI Chat Completions: one run_code call, the calls reach both servers, the value comes back", async () => {
    const { servers, provider, program } = await setUp();
    const tools = createProviderTools(servers.runtime, { format: "openai-chat", codeMode: { plugin: catalogueCodeMode(), mode: "code" } });
    provider.script("/v1/chat/completions", chatCompletion([{ id: "c1", name: "run_code", arguments: JSON.stringify({ code: program }) }]));
    provider.script("/v1/chat/completions", chatCompletion([], "Stored."));
    const openai = new OpenAI({ apiKey: "test", baseURL: `${provider.url}/v1`, maxRetries: 0 });
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: "Remember Ada from my notes." }];
    for (let turn = 0; turn < 4; turn++) {
      const answer = await openai.chat.completions.create({ model: "test", messages, tools: tools.definitions() });
      const message = answer.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
      if (!message.tool_calls?.length) break;
      const { messages: results, outcomes } = await tools.run(message);
      expect(outcomes.map((o) => o.result.ok)).toEqual([true]);
      messages.push(message, ...results);
    }
    const sent = provider.requests("/v1/chat/completions");
    expect(sent).toHaveLength(2);
    expect(((sent[0]?.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(CODE_TOOLS);
    const toolMessage = ((sent[1]?.messages ?? []) as { role: string; content: string }[]).find((m) => m.role === "tool");
    expectValueShown(toolMessage?.content ?? "");
    expectAdaStored(servers);
  });

  it("OpenAI Responses: the same program through a function_call item", async () => {
    const { servers, provider, program } = await setUp();
    const tools = createProviderTools(servers.runtime, {
      format: "openai-responses",
      codeMode: { plugin: catalogueCodeMode(), mode: "code" },
    });
    provider.script(
      "/v1/responses",
      responsesAnswer("resp_1", [{ callId: "r1", name: "run_code", arguments: JSON.stringify({ code: program }) }]),
    );
    provider.script("/v1/responses", responsesAnswer("resp_2", [], "Stored."));
    const openai = new OpenAI({ apiKey: "test", baseURL: `${provider.url}/v1`, maxRetries: 0 });
    let input: OpenAI.Responses.ResponseInput | string = "Remember Ada from my notes.";
    let previous: string | undefined;
    for (let turn = 0; turn < 4; turn++) {
      const response = await openai.responses.create({
        model: "test",
        input,
        tools: tools.definitions(),
        ...(previous ? { previous_response_id: previous } : {}),
      });
      const { messages, outcomes } = await tools.run(response);
      if (outcomes.length === 0) break;
      input = messages;
      previous = response.id;
    }
    const sent = provider.requests("/v1/responses");
    expect(((sent[0]?.tools ?? []) as { name: string }[]).map((t) => t.name)).toEqual(CODE_TOOLS);
    const output = ((sent[1]?.input ?? []) as { type: string; output: string }[]).find((i) => i.type === "function_call_output");
    expectValueShown(output?.output ?? "");
    expectAdaStored(servers);
  });

  it("Anthropic Messages: the same program through tool_use blocks", async () => {
    const { servers, provider, program } = await setUp();
    const tools = createProviderTools(servers.runtime, { format: "anthropic", codeMode: { plugin: catalogueCodeMode(), mode: "code" } });
    provider.script("/v1/messages", anthropicMessage([{ type: "tool_use", id: "tu1", name: "run_code", input: { code: program } }]));
    provider.script("/v1/messages", anthropicMessage([{ type: "text", text: "Stored." }]));
    const client = new Anthropic({ apiKey: "test", baseURL: provider.url, maxRetries: 0 });
    const history: Anthropic.Messages.MessageParam[] = [{ role: "user", content: "Remember Ada from my notes." }];
    for (let turn = 0; turn < 4; turn++) {
      const message = await client.messages.create({ model: "test", max_tokens: 256, messages: history, tools: tools.definitions() });
      const { messages, outcomes } = await tools.run(message);
      if (outcomes.length === 0) break;
      history.push({ role: "assistant", content: message.content }, ...messages);
    }
    const sent = provider.requests("/v1/messages");
    expect(((sent[0]?.tools ?? []) as { name: string }[]).map((t) => t.name)).toEqual(CODE_TOOLS);
    const last = ((sent[1]?.messages ?? []) as { content: unknown }[]).at(-1)?.content as { type: string; content: string }[];
    expect(last[0]?.type).toBe("tool_result");
    expectValueShown(typeof last[0]?.content === "string" ? last[0].content : JSON.stringify(last[0]?.content));
    expectAdaStored(servers);
  });

  it("Gemini: the same program through a functionCall part", async () => {
    const { servers, provider, program } = await setUp();
    const path = "/v1beta/models/test:generateContent";
    const tools = createProviderTools(servers.runtime, { format: "gemini", codeMode: { plugin: catalogueCodeMode(), mode: "code" } });
    provider.script(path, geminiAnswer([{ functionCall: { name: "run_code", args: { code: program } } }]));
    provider.script(path, geminiAnswer([{ text: "Stored." }]));
    const ai = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: provider.url } });
    const contents: import("@google/genai").Content[] = [{ role: "user", parts: [{ text: "Remember Ada from my notes." }] }];
    for (let turn = 0; turn < 4; turn++) {
      const response = await ai.models.generateContent({
        model: "test",
        contents,
        config: { tools: [{ functionDeclarations: tools.definitions() }] },
      });
      const { messages, outcomes } = await tools.run(response);
      if (outcomes.length === 0) break;
      contents.push(response.candidates?.[0]?.content as import("@google/genai").Content, ...messages);
    }
    const sent = provider.requests(path);
    const declared = ((sent[0]?.tools ?? []) as { functionDeclarations: { name: string }[] }[])[0]?.functionDeclarations.map((d) => d.name);
    expect(declared).toEqual(CODE_TOOLS);
    const reply = JSON.stringify(sent[1]?.contents);
    // The program's value, as JSON text inside the functionResponse part.
    expect(reply).toContain(JSON.stringify(JSON.stringify({ stored: ["Ada"], facts: 2 })).slice(1, -1));
    expectAdaStored(servers);
  });

  it("AI SDK: generateText runs run_code through the ToolSet", async () => {
    const { servers, program } = await setUp();
    const steps = [
      [{ type: "tool-call" as const, toolCallId: "a1", toolName: "run_code", input: JSON.stringify({ code: program }) }],
      [{ type: "text" as const, text: "Stored." }],
    ];
    const seenTools: string[][] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        seenTools.push((options.tools ?? []).map((t) => t.name));
        const content = steps.shift() ?? [];
        return {
          content,
          finishReason: { unified: content[0]?.type === "tool-call" ? "tool-calls" : "stop", raw: undefined },
          usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      tools: createAiSdkTools(servers.runtime, { codeMode: { plugin: catalogueCodeMode(), mode: "code" } }),
      prompt: "Remember Ada from my notes.",
      stopWhen: stepCountIs(4),
    });
    expect(seenTools[0]?.sort()).toEqual([...CODE_TOOLS].sort());
    const output = result.steps[0]?.toolResults[0]?.output as { ok: boolean; text: string; value: unknown };
    expect(output.ok).toBe(true);
    expect(output.value).toEqual({ stored: ["Ada"], facts: 2 });
    expectValueShown(output.text);
    expect(result.text).toBe("Stored.");
    expectAdaStored(servers);
  });

  it("LangChain: the run_code tool invoked with the model's tool call", async () => {
    const { servers, program } = await setUp();
    const tools = createLangChainTools(servers.runtime, { codeMode: { plugin: catalogueCodeMode(), mode: "code" } });
    expect(tools.map((t) => t.name)).toEqual(CODE_TOOLS);
    const call = new AIMessage({ content: "", tool_calls: [{ id: "l1", name: "run_code", args: { code: program }, type: "tool_call" }] });
    const tool = tools.find((t) => t.name === "run_code");
    const message = (await tool?.invoke({ ...call.tool_calls?.[0], type: "tool_call" })) as ToolMessage;
    expect(message.status).toBe("success");
    expectValueShown(String(message.content));
    expectAdaStored(servers);
  });

  it("a program with a type error comes back with the diagnostic, and nothing reaches a server", async () => {
    const { servers } = await setUp();
    const tools = createProviderTools(servers.runtime, { format: "openai-chat", codeMode: { plugin: catalogueCodeMode(), mode: "code" } });
    const bad =
      'await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: "one string" }] });\nreturn 1;';
    const outcome = await tools.runCall({ id: "x", name: "run_code", arguments: JSON.stringify({ code: bad }) });
    expect(outcome.result.ok).toBe(false);
    expect(outcome.text).toMatch(/type-check/);
    expect(outcome.text).toMatch(/1:\d+ Type 'string' is not assignable to type 'string\[\]'/);
    expect(outcome.text).toContain("observations");
    expect(storedEntities(memoryFileOf(servers.root)).has("Ada")).toBe(false);
  });

  it("search and describe answer from the generated progressive index", async () => {
    const { servers } = await setUp();
    const tools = createProviderTools(servers.runtime, { format: "openai-chat", codeMode: { plugin: catalogueCodeMode(), mode: "code" } });
    const found = await tools.runCall({
      id: "s",
      name: "search",
      arguments: JSON.stringify({ query: "create entities knowledge graph", limit: 3 }),
    });
    expect(found.text).toContain("memory.createEntities(input: CreateEntitiesPayload): Promise<CreateEntitiesResult>");
    const described = await tools.runCall({ id: "d", name: "describe", arguments: JSON.stringify({ name: "filesystem.readTextFile" }) });
    expect(described.text).toContain("export interface ReadTextFileResult");
    const unknown = await tools.runCall({ id: "u", name: "describe", arguments: JSON.stringify({ name: "memory.readGraf" }) });
    expect(unknown.text).toContain("memory.readGraph");
  });
});

describe('mode: "auto"', () => {
  it("keeps a small catalogue direct in a large window and switches to code mode when the catalogue's share passes the threshold", async () => {
    const { servers } = await setUp();
    const plugin = catalogueCodeMode();
    const direct = createProviderTools(servers.runtime, { format: "openai-chat", codeMode: { plugin, contextWindow: 1_000_000 } });
    const decision = direct.codeMode();
    expect(decision?.code).toBe(false);
    expect(direct.specs().some((s) => s.name === "read_text_file")).toBe(true);
    // The share is measured with real o200k counts of the direct definitions.
    const definitionsText = servers.runtime
      .specs()
      .map((s) => JSON.stringify({ name: s.providerName, description: s.description ?? s.title ?? s.id, parameters: s.inputSchema }));
    expect(decision?.catalogueTokens).toBe(definitionsText.reduce((n, t) => n + countTokens(t), 0));
    // Without a counter, the share comes from the token counts gen computed for each tool's declaration.
    const genCounted = createCodeModeTools({ apis: [filesystemCodeMode, memoryCodeMode] }).catalogueTokens?.(servers.runtime.specs());
    const details = [filesystemCodeMode, memoryCodeMode].flatMap((api) => Object.values(api.details).map((d) => d.tokens));
    expect(genCounted).toBe(details.reduce((n, t) => n + t, 0));
    const window = Math.floor((decision?.catalogueTokens ?? 0) / 0.02) - 1;
    const code = createProviderTools(servers.runtime, { format: "openai-chat", codeMode: { plugin, contextWindow: window } });
    expect(code.codeMode()?.code).toBe(true);
    expect(code.specs().map((s) => s.name)).toEqual(CODE_TOOLS);
    expect(() => createProviderTools(servers.runtime, { format: "openai-chat", codeMode: { plugin, threshold: 2 } })).toThrow(
      /codeMode.threshold/,
    );
  });
});

describe("the manager's live registry", () => {
  it("offers run_code over the mirrored tools (JavaScript, bindings derived from the live specs)", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "tw-code-mode-manager-")));
    const memoryFile = join(dir, "memory.jsonl");
    writeFileSync(join(dir, "notes.txt"), `${NOTES_LINES.join("\n")}\n`);
    const runtime = createRuntime();
    const manager = createMcpManager(
      {
        mcpServers: {
          memory: { command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } },
          filesystem: { command: NODE, args: [serverEntry("@modelcontextprotocol/server-filesystem"), dir] },
        },
      } as never,
      { registry: runtime },
    );
    cleanups.push(async () => {
      await manager.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    await manager.start();
    const tools = createProviderTools(runtime, {
      format: "openai-chat",
      codeMode: { plugin: createCodeModeTools({ countTokens }), mode: "code" },
    });
    expect(tools.specs().map((s) => s.name)).toEqual(CODE_TOOLS);
    const description = tools.definitions()[0]?.function.description ?? "";
    expect(description).toContain("memory.createEntities(input: object)");
    // Untyped tools answer with their text (no generated result types here), so this program parses it.
    const program = [
      `const notes = await filesystem.readTextFile({ path: ${JSON.stringify(join(dir, "notes.txt"))} });`,
      'const facts = String(notes).split("\\n").filter((line) => line.trim() !== "");',
      'await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: facts }] });',
      'const graph = JSON.parse(await memory.openNodes({ names: ["Ada"] }));',
      "return { stored: graph.entities.map((e) => e.name), facts: facts.length };",
    ].join("\n");
    const outcome = await tools.runCall({ id: "m", name: "run_code", arguments: JSON.stringify({ code: program }) });
    expect(outcome.result.ok).toBe(true);
    expectValueShown(outcome.text);
    expect(storedEntities(memoryFile).get("Ada")).toEqual(NOTES_LINES);
  });
});
