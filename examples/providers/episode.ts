/**
 * One scripted episode, played through every adapter: OpenAI Chat Completions, OpenAI Responses,
 * Anthropic Messages and Gemini (their real SDK clients against a 127.0.0.1 endpoint that replays
 * the model's turns), the AI SDK (its mock model) and LangChain (a scripted chat model). The model
 * reads the notes and searches memory in parallel, calls a tool that does not exist, stores Ada
 * with a wrong argument, corrects it, and answers. The MCP servers are given: the real ones
 * (`startRealServers`, the demo) or their cassettes replayed (`startReplayServers`, the test).
 */
import Anthropic from "@anthropic-ai/sdk";
import { type Content, GoogleGenAI } from "@google/genai";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createAiSdkTools } from "@toolwright/ai-sdk";
import { createLangChainTools } from "@toolwright/langchain";
import type { Runtime } from "@toolwright/runtime";
import { createProviderTools, type ToolCallOutcome } from "@toolwright/runtime/providers";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import OpenAI from "openai";
import { startRealServers } from "./real-servers.js";
import { anthropicMessage, chatCompletion, geminiAnswer, responsesAnswer, startScriptedProvider } from "./scripted-provider.js";

/** One model tool call, provider-neutral. */
export interface EpisodeCall {
  readonly id: string;
  readonly name: string;
  readonly args: { readonly [key: string]: unknown };
}

/** The MCP side of an episode: a runtime with the memory and filesystem toolsets registered. */
export interface EpisodeServers {
  readonly runtime: Runtime;
  close(): Promise<void>;
}

/**
 * The model's turns: tool calls, then the final answer. `notes` is relative: server-filesystem
 * resolves it in the one folder it may use, so the calls are the same wherever that folder is.
 */
export function episodeTurns(notes = "notes.txt"): EpisodeCall[][] {
  const ada = (observations: unknown) => ({ entities: [{ name: "Ada", entityType: "person", observations }] });
  return [
    [
      { id: "t1_read", name: "filesystem_read_text_file", args: { path: notes } },
      { id: "t1_search", name: "memory_search_nodes", args: { query: "Ada" } },
      { id: "t1_ghost", name: "filesystem_read_notes", args: {} },
    ],
    [{ id: "t2_store", name: "memory_create_entities", args: ada("wrote the first program") }],
    [{ id: "t3_store", name: "memory_create_entities", args: ada(["wrote the first program"]) }],
  ];
}

/** The model's last turn, the same for every adapter. */
export const FINAL_ANSWER = "Ada wrote the first program; she is in memory now.";

/** What one adapter showed the model for each call, turn by turn, and its final text. */
export interface EpisodeRun {
  readonly adapter: string;
  readonly turns: { readonly call: string; readonly shown: string }[][];
  readonly answer: string;
}

/** One line for a call's outcome as the model saw it. */
export function summarize(ok: boolean, text: string): string {
  if (ok) return `ok: ${text.replace(/\s+/g, " ").slice(0, 40)}`;
  const head = /\(([a-z_]+)(?:, ([a-z_]+))?\)\./.exec(text);
  const issue = /^- (.*)$/m.exec(text)?.[1];
  const closest = /^Closest tools: (.*)$/m.exec(text)?.[1];
  const detail = issue ?? (closest ? `closest: ${closest}` : (/Next: (.*)$/m.exec(text)?.[1] ?? ""));
  return `${head?.[2] ?? head?.[1] ?? "failed"}: ${detail}`;
}

const fromOutcomes = (outcomes: readonly ToolCallOutcome[]) =>
  outcomes.map((o) => ({ call: o.call.name, shown: summarize(o.result.ok, o.text) }));

/** Plays the episode through one adapter with fresh servers from `start`. */
async function play(
  start: () => EpisodeServers,
  adapter: string,
  drive: (turns: EpisodeCall[][], servers: EpisodeServers) => Promise<Omit<EpisodeRun, "adapter">>,
): Promise<EpisodeRun> {
  const servers = start();
  try {
    return { adapter, ...(await drive(episodeTurns(), servers)) };
  } finally {
    await servers.close();
  }
}

/**
 * Plays the episode through every adapter, each with fresh servers from `start` (default: the real
 * server-memory and server-filesystem from npm).
 */
export async function runEpisodes(start: () => EpisodeServers = startRealServers): Promise<EpisodeRun[]> {
  const provider = await startScriptedProvider();
  const openai = new OpenAI({ apiKey: "demo", baseURL: `${provider.url}/v1`, maxRetries: 0 });
  try {
    return [
      await play(start, "OpenAI chat (strict)", async (turns, { runtime }) => {
        const tools = createProviderTools(runtime, { format: "openai-chat" });
        for (const t of turns)
          provider.script(
            "/v1/chat/completions",
            chatCompletion(t.map((c) => ({ id: c.id, name: c.name, arguments: JSON.stringify(c.args) }))),
          );
        provider.script("/v1/chat/completions", chatCompletion([], FINAL_ANSWER));
        const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
          { role: "user", content: "What do my notes say about Ada? Remember her." },
        ];
        const shown = [];
        for (;;) {
          const answer = await openai.chat.completions.create({ model: "demo", messages, tools: tools.definitions() });
          const message = answer.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessage;
          if (!message.tool_calls?.length) return { turns: shown, answer: message.content ?? "" };
          const { messages: results, outcomes } = await tools.run(message);
          messages.push(message, ...results);
          shown.push(fromOutcomes(outcomes));
        }
      }),
      await play(start, "OpenAI Responses", async (turns, { runtime }) => {
        const tools = createProviderTools(runtime, { format: "openai-responses" });
        for (const [i, t] of turns.entries())
          provider.script(
            "/v1/responses",
            responsesAnswer(
              `resp_${i}`,
              t.map((c) => ({ callId: c.id, name: c.name, arguments: JSON.stringify(c.args) })),
            ),
          );
        provider.script("/v1/responses", responsesAnswer("resp_final", [], FINAL_ANSWER));
        let input: OpenAI.Responses.ResponseInput | string = "What do my notes say about Ada? Remember her.";
        let previous: string | undefined;
        const shown = [];
        for (;;) {
          const response = await openai.responses.create({
            model: "demo",
            input,
            tools: tools.definitions(),
            ...(previous ? { previous_response_id: previous } : {}),
          });
          const { messages, outcomes } = await tools.run(response);
          if (outcomes.length === 0) return { turns: shown, answer: response.output_text };
          shown.push(fromOutcomes(outcomes));
          input = messages;
          previous = response.id;
        }
      }),
      await play(start, "Anthropic Messages", async (turns, { runtime }) => {
        const tools = createProviderTools(runtime, { format: "anthropic" });
        for (const t of turns)
          provider.script(
            "/v1/messages",
            anthropicMessage(t.map((c) => ({ type: "tool_use" as const, id: c.id, name: c.name, input: c.args }))),
          );
        provider.script("/v1/messages", anthropicMessage([{ type: "text", text: FINAL_ANSWER }]));
        const client = new Anthropic({ apiKey: "demo", baseURL: provider.url, maxRetries: 0 });
        const history: Anthropic.Messages.MessageParam[] = [{ role: "user", content: "What do my notes say about Ada? Remember her." }];
        const shown = [];
        for (;;) {
          const message = await client.messages.create({ model: "demo", max_tokens: 512, messages: history, tools: tools.definitions() });
          const { messages, outcomes } = await tools.run(message);
          if (outcomes.length === 0)
            return { turns: shown, answer: message.content.map((b) => (b.type === "text" ? b.text : "")).join("") };
          history.push({ role: "assistant", content: message.content }, ...messages);
          shown.push(fromOutcomes(outcomes));
        }
      }),
      await play(start, "Gemini", async (turns, { runtime }) => {
        const path = "/v1beta/models/demo:generateContent";
        const tools = createProviderTools(runtime, { format: "gemini" });
        for (const t of turns) provider.script(path, geminiAnswer(t.map((c) => ({ functionCall: { name: c.name, args: c.args } }))));
        provider.script(path, geminiAnswer([{ text: FINAL_ANSWER }]));
        const ai = new GoogleGenAI({ apiKey: "demo", httpOptions: { baseUrl: provider.url } });
        const contents: Content[] = [{ role: "user", parts: [{ text: "What do my notes say about Ada? Remember her." }] }];
        const shown = [];
        for (;;) {
          const response = await ai.models.generateContent({
            model: "demo",
            contents,
            config: { tools: [{ functionDeclarations: tools.definitions() }] },
          });
          const { messages, outcomes } = await tools.run(response);
          if (outcomes.length === 0) return { turns: shown, answer: response.text ?? "" };
          contents.push(response.candidates?.[0]?.content as Content, ...messages);
          shown.push(fromOutcomes(outcomes));
        }
      }),
      await play(start, "AI SDK generateText", async (turns, { runtime }) => {
        const steps = [
          ...turns.map((t) =>
            t.map((c) => ({ type: "tool-call" as const, toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) })),
          ),
          [{ type: "text" as const, text: FINAL_ANSWER }],
        ];
        const usage = {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        };
        const model = new MockLanguageModelV3({
          doGenerate: async () => {
            const content = steps.shift() ?? [];
            return {
              content,
              finishReason: { unified: content[0]?.type === "tool-call" ? "tool-calls" : "stop", raw: undefined },
              usage,
              warnings: [],
            };
          },
        });
        const result = await generateText({
          model,
          tools: createAiSdkTools(runtime),
          prompt: "What do my notes say about Ada? Remember her.",
          stopWhen: stepCountIs(8),
        });
        const shown = result.steps
          .filter((s) => s.toolResults.length + s.toolCalls.length > 0)
          .map((s) =>
            s.toolCalls.map((c) => {
              const r = s.toolResults.find((x) => x.toolCallId === c.toolCallId)?.output as { ok: boolean; text: string } | undefined;
              const e = s.content.find((p) => p.type === "tool-error" && p.toolCallId === c.toolCallId);
              return {
                call: c.toolName,
                shown: r ? summarize(r.ok, r.text) : e ? "AI SDK: no such tool (the SDK's own error)" : "(no result)",
              };
            }),
          );
        return { turns: shown, answer: result.text };
      }),
      await play(start, "LangChain", async (turns, { runtime }) => {
        const tools = createLangChainTools(runtime);
        const byName = new Map(tools.map((t) => [t.name, t]));
        const script = [
          ...turns.map(
            (t) =>
              new AIMessage({
                content: "",
                tool_calls: t.map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" as const })),
              }),
          ),
          new AIMessage(FINAL_ANSWER),
        ];
        const model = new ScriptedChatModel(script);
        const history: BaseMessage[] = [new HumanMessage("What do my notes say about Ada? Remember her.")];
        const shown = [];
        for (;;) {
          const message = (await model.invoke(history)) as AIMessage;
          history.push(message);
          if (!message.tool_calls?.length) return { turns: shown, answer: String(message.content) };
          const row = [];
          for (const c of message.tool_calls) {
            const tool = byName.get(c.name);
            const result = tool ? ((await tool.invoke({ ...c, type: "tool_call" })) as ToolMessage) : undefined;
            if (result) history.push(result);
            row.push({
              call: c.name,
              shown: result
                ? summarize(result.status !== "error", String(result.content))
                : "LangChain: no such tool (planner's own check)",
            });
          }
          shown.push(row);
        }
      }),
    ];
  } finally {
    await provider.close();
  }
}

/** A chat model that answers with scripted messages in order. */
class ScriptedChatModel extends BaseChatModel {
  constructor(private readonly script: AIMessage[]) {
    super({});
  }
  _llmType(): string {
    return "scripted";
  }
  async _generate(): Promise<ChatResult> {
    const message = this.script.shift() ?? new AIMessage("(script ended)");
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }
}
