/**
 * Negative type test: the Anthropic definitions are NOT OpenAI chat tools, and Gemini's result
 * contents are not Anthropic messages. tsc must reject this file (proves the check can fail).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { createRuntime } from "@toolwright/runtime";
import { createProviderTools } from "@toolwright/runtime/providers";
import type OpenAI from "openai";

const runtime = createRuntime();
export const wrong: OpenAI.Chat.Completions.ChatCompletionTool[] = createProviderTools(runtime, { format: "anthropic" }).definitions();
export const alsoWrong = async (): Promise<Anthropic.Messages.MessageParam[]> =>
  (await createProviderTools(runtime, { format: "gemini" }).run({})).messages;
