/**
 * A 127.0.0.1 HTTP endpoint that replays scripted provider responses (OpenAI Chat Completions and
 * Responses, Anthropic Messages) in order per route, and records every request body, so the real
 * SDK clients can be driven without a network.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The endpoint: `url`, queued answers per path, the bodies received, `close()`. */
export interface ScriptedProvider {
  readonly url: string;
  /** Queues answers for a path such as `/v1/chat/completions`. */
  script(path: string, ...answers: unknown[]): void;
  /** Request bodies received on `path`, parsed. */
  requests(path: string): { [key: string]: unknown }[];
  close(): Promise<void>;
}

/** Starts the endpoint on an ephemeral port. An unscripted request gets a 500 naming the path. */
export async function startScriptedProvider(): Promise<ScriptedProvider> {
  const queues = new Map<string, unknown[]>();
  const seen = new Map<string, { [key: string]: unknown }[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0] ?? "";
      let body: { [key: string]: unknown } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        body = { unparsable: true };
      }
      seen.set(path, [...(seen.get(path) ?? []), body]);
      const answer = queues.get(path)?.shift();
      res.setHeader("content-type", "application/json");
      if (answer === undefined) {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: { message: `no scripted answer left for ${path}`, type: "server_error" } }));
        return;
      }
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    script(path, ...answers) {
      queues.set(path, [...(queues.get(path) ?? []), ...answers]);
    },
    requests: (path) => seen.get(path) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Chat Completions answer with `tool_calls` (or text when `calls` is empty). */
export function chatCompletion(calls: { id: string; name: string; arguments: string }[], text: string | null = null) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-test",
    choices: [
      {
        index: 0,
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
        logprobs: null,
        message: {
          role: "assistant",
          content: text,
          refusal: null,
          ...(calls.length > 0
            ? { tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        },
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** A Responses API answer with `function_call` items (or a text message when `calls` is empty). */
export function responsesAnswer(id: string, calls: { callId: string; name: string; arguments: string }[], text = "") {
  const output =
    calls.length > 0
      ? calls.map((c, i) => ({
          type: "function_call",
          id: `fc_${i}`,
          call_id: c.callId,
          name: c.name,
          arguments: c.arguments,
          status: "completed",
        }))
      : [
          {
            type: "message",
            id: "msg_1",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text, annotations: [] }],
          },
        ];
  return {
    id,
    object: "response",
    created_at: 1,
    status: "completed",
    model: "gpt-test",
    output,
    parallel_tool_calls: true,
    tools: [],
    usage: null,
  };
}

/** An Anthropic Messages answer with `tool_use` blocks (or only text). */
export function anthropicMessage(
  blocks: ({ type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown })[],
) {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: blocks,
    stop_reason: blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

/** A Gemini `generateContent` answer with `functionCall` parts (or only text). */
export function geminiAnswer(parts: ({ text: string } | { functionCall: { name: string; args: unknown; id?: string } })[]) {
  return { candidates: [{ index: 0, content: { role: "model", parts }, finishReason: "STOP" }], modelVersion: "gemini-test" };
}
