/**
 * Type test (compiled by tsc, never run): every adapter's output is assignable to the SDK's own
 * parameter types. test/providers/sdk-types.test.ts runs tsc over this file.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Content, FunctionDeclaration, GenerateContentParameters } from "@google/genai";
import type { DynamicStructuredTool, StructuredToolInterface } from "@langchain/core/tools";
import { createAiSdkTools } from "@toolwright/ai-sdk";
import { createLangChainTools } from "@toolwright/langchain";
import { createRuntime } from "@toolwright/runtime";
import { createProviderTools } from "@toolwright/runtime/providers";
import type { ToolSet } from "ai";
import type OpenAI from "openai";

const runtime = createRuntime();

export async function openaiChat(client: OpenAI): Promise<void> {
  const binding = createProviderTools(runtime, { format: "openai-chat" });
  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = binding.definitions();
  const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], tools });
  const message = completion.choices[0]?.message;
  const { messages } = await binding.run(message);
  const next: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [...(message ? [message] : []), ...messages];
  await client.chat.completions.create({ model: "m", messages: next, tools });
}

export async function openaiResponses(client: OpenAI): Promise<void> {
  const binding = createProviderTools(runtime, { format: "openai-responses" });
  const tools: OpenAI.Responses.Tool[] = binding.definitions();
  const response = await client.responses.create({ model: "m", input: "hi", tools });
  const { messages } = await binding.run(response);
  const input: OpenAI.Responses.ResponseInputItem[] = messages;
  await client.responses.create({ model: "m", input, tools, previous_response_id: response.id });
}

export async function anthropic(client: Anthropic): Promise<void> {
  const binding = createProviderTools(runtime, { format: "anthropic" });
  const tools: Anthropic.Messages.Tool[] = binding.definitions();
  const message = await client.messages.create({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "hi" }], tools });
  const { messages } = await binding.run(message);
  const next: Anthropic.Messages.MessageParam[] = [{ role: "assistant", content: message.content }, ...messages];
  await client.messages.create({ model: "m", max_tokens: 100, messages: next, tools });
}

export function gemini(): GenerateContentParameters {
  const binding = createProviderTools(runtime, { format: "gemini" });
  const functionDeclarations: FunctionDeclaration[] = binding.definitions();
  const contents: Content[] = [{ role: "user", parts: [{ text: "hi" }] }];
  void binding.run({ candidates: [] }).then(({ messages }) => {
    const more: Content[] = messages;
    contents.push(...more);
  });
  return { model: "m", contents, config: { tools: [{ functionDeclarations }] } };
}

export const aiSdk: ToolSet = createAiSdkTools(runtime);
export const langchain: StructuredToolInterface[] = createLangChainTools(runtime);
export const langchainDynamic: DynamicStructuredTool[] = createLangChainTools(runtime);
