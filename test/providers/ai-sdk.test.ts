/**
 * @toolwright/ai-sdk against the real AI SDK: generateText and streamText with the SDK's own mock
 * language model (ai/test) run a multi-step tool loop against the real server-memory and
 * server-filesystem. Runs under Node 20 with ai 6 and again under Node 22 with ai 7
 * (test/providers/run-node22.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAiSdkTools } from "@toolwright/ai-sdk";
import { createRuntime } from "@toolwright/runtime";
import { generateText, stepCountIs, streamText } from "ai";
import * as aiTest from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticCatalogue } from "../../examples/providers/catalogue.js";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";

type Step = { toolCalls?: { id: string; name: string; input: unknown }[]; text?: string };
type Prompt = { role: string; content: unknown }[];
type MockCtor = new (options: { doGenerate?: unknown; doStream?: unknown }) => object;

// ai 7 ships MockLanguageModelV4, ai 6 MockLanguageModelV3; both take the same result shapes.
const Mock = ((aiTest as { MockLanguageModelV4?: MockCtor }).MockLanguageModelV4 ??
  (aiTest as unknown as { MockLanguageModelV3: MockCtor }).MockLanguageModelV3) as MockCtor;
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

function content(step: Step) {
  const calls = (step.toolCalls ?? []).map((c) => ({
    type: "tool-call" as const,
    toolCallId: c.id,
    toolName: c.name,
    input: typeof c.input === "string" ? c.input : JSON.stringify(c.input),
  }));
  return step.text ? [{ type: "text" as const, text: step.text }, ...calls] : calls;
}
const finish = (step: Step) => ({ unified: step.toolCalls?.length ? "tool-calls" : "stop", raw: undefined });

/** A scripted model: step n answers the n-th call and records every prompt it was sent. */
function scripted(steps: Step[], stream = false) {
  const prompts: Prompt[] = [];
  let n = 0;
  const next = (options: { prompt: Prompt }) => {
    prompts.push(options.prompt);
    const step = steps[Math.min(n++, steps.length - 1)] as Step;
    return step;
  };
  const model = stream
    ? new Mock({
        doStream: async (options: { prompt: Prompt }) => {
          const step = next(options);
          const parts = [
            { type: "stream-start", warnings: [] },
            ...content(step).flatMap((p) =>
              p.type === "text"
                ? [
                    { type: "text-start", id: "t" },
                    { type: "text-delta", id: "t", delta: p.text },
                    { type: "text-end", id: "t" },
                  ]
                : [p],
            ),
            { type: "finish", finishReason: finish(step), usage },
          ];
          return {
            stream: new ReadableStream({
              start(c) {
                for (const p of parts) c.enqueue(p);
                c.close();
              },
            }),
          };
        },
      })
    : new Mock({
        doGenerate: async (options: { prompt: Prompt }) => {
          const step = next(options);
          return { content: content(step), finishReason: finish(step), usage, warnings: [] };
        },
      });
  return { model: model as Parameters<typeof generateText>[0]["model"], prompts };
}

/** Tool results the SDK sent back to the model in a prompt. */
function toolResults(prompt: Prompt | undefined): { toolCallId: string; output: { type: string; value: unknown } }[] {
  return (prompt ?? [])
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content as { toolCallId: string; output: { type: string; value: unknown } }[]);
}

let servers: RealServers;
beforeAll(() => {
  servers = startRealServers({ policy: { maxToolCalls: 20 } });
});
afterAll(() => servers.close());

describe("AI SDK generateText / streamText with @toolwright/ai-sdk", () => {
  it("exposes every tool with the right approval flags", () => {
    const tools = createAiSdkTools(servers.runtime);
    expect(Object.keys(tools)).toHaveLength(23);
    expect(tools.memory_delete_entities?.needsApproval).toBe(true); // destructive
    expect(tools.memory_read_graph?.needsApproval).toBe(false);
    expect(tools.filesystem_write_file?.needsApproval).toBe(true);
  });

  it("past the 128-tool cap the ToolSet is the three tool-search tools, and they run", async () => {
    const runtime = createRuntime();
    runtime.registerToolset(syntheticCatalogue(300));
    const tools = createAiSdkTools(runtime);
    expect(Object.keys(tools)).toEqual(["search_tools", "describe_tool", "call_tool"]);
    const { model, prompts } = scripted([
      { toolCalls: [{ id: "q1", name: "search_tools", input: { query: "archive invoices billing" } }] },
      { toolCalls: [{ id: "q2", name: "call_tool", input: { name: "billing_archive_invoice", arguments: '{"id":"inv-1"}' } }] },
      { text: "archived" },
    ]);
    const result = await generateText({ model, tools, prompt: "archive inv-1", stopWhen: stepCountIs(5) });
    expect(result.text).toBe("archived");
    expect(String(toolResults(prompts[1])[0]?.output.value)).toMatch(/- billing_archive_invoice: Archive invoices in the billing system/);
    expect(toolResults(prompts[2]).find((r) => r.toolCallId === "q2")?.output).toEqual({
      type: "text",
      value: "billing_archive_invoice: 0 records",
    });
  });

  it("generateText runs a multi-step loop: parallel calls, a rejected call, the correction, the answer", async () => {
    servers.runtime.resetRun();
    const notes = join(servers.root, "notes.txt");
    const { model, prompts } = scripted([
      {
        toolCalls: [
          {
            id: "c1",
            name: "memory_create_entities",
            input: { entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] },
          },
          { id: "c2", name: "filesystem_list_allowed_directories", input: {} },
        ],
      },
      { toolCalls: [{ id: "c3", name: "filesystem_read_text_file", input: { head: "two" } }] },
      { toolCalls: [{ id: "c4", name: "filesystem_read_text_file", input: { path: notes, head: 1 } }] },
      { text: "Ada wrote the first program." },
    ]);
    const result = await generateText({ model, tools: createAiSdkTools(servers.runtime), prompt: "Who is Ada?", stopWhen: stepCountIs(6) });
    expect(result.text).toBe("Ada wrote the first program.");
    expect(result.steps).toHaveLength(4);

    const afterFirst = toolResults(prompts[1]);
    expect(afterFirst.map((r) => r.toolCallId)).toEqual(["c1", "c2"]);
    expect(afterFirst.map((r) => r.output.type)).toEqual(["text", "text"]);
    expect(String(afterFirst[1]?.output.value)).toContain(servers.root);

    const rejected = toolResults(prompts[2]).find((r) => r.toolCallId === "c3");
    expect(rejected?.output.type).toBe("error-text");
    expect(String(rejected?.output.value)).toMatch(/invalid_call/);
    expect(String(rejected?.output.value)).toMatch(/- path is required but missing/);
    expect(String(rejected?.output.value)).toMatch(/- head is invalid \(invalid field type\); expected number; got "two"/);

    const corrected = toolResults(prompts[3]).find((r) => r.toolCallId === "c4");
    expect(corrected?.output).toEqual({
      type: "text",
      value: 'Ada wrote the first program.\nJSON: {"content":"Ada wrote the first program."}',
    });

    // The entity really is in server-memory, and the rejection counted toward the policy (3 sent, 1 failed then reset).
    const graph = await servers.runtime.execute({ tool: "memory.read_graph", arguments: {} });
    expect(graph.ok && JSON.stringify(graph.structured)).toContain('"name":"Ada"');
    expect(servers.runtime.usage().toolCalls).toBe(4);
  });

  it("a destructive tool waits for approval in the SDK and is not run", async () => {
    const { model } = scripted([
      { toolCalls: [{ id: "d1", name: "memory_delete_entities", input: { entityNames: ["Ada"] } }] },
      { text: "asked" },
    ]);
    const result = await generateText({ model, tools: createAiSdkTools(servers.runtime), prompt: "forget Ada", stopWhen: stepCountIs(3) });
    expect(result.content.some((p) => p.type === "tool-approval-request")).toBe(true);
    const graph = await servers.runtime.execute({ tool: "memory.read_graph", arguments: {} });
    expect(graph.ok && JSON.stringify(graph.structured)).toContain('"name":"Ada"');
  });

  it("streamText runs the same loop over a stream and renders server-side failures", async () => {
    servers.runtime.resetRun();
    const { model, prompts } = scripted(
      [
        { toolCalls: [{ id: "s1", name: "filesystem_read_text_file", input: { path: join(servers.root, "missing.txt") } }] },
        { toolCalls: [{ id: "s2", name: "memory_search_nodes", input: { query: "Ada" } }] },
        { text: "done" },
      ],
      true,
    );
    const result = streamText({ model, tools: createAiSdkTools(servers.runtime), prompt: "read", stopWhen: stepCountIs(5) });
    expect(await result.text).toBe("done");
    expect(await result.steps).toHaveLength(3);
    const missing = toolResults(prompts[1]).find((r) => r.toolCallId === "s1");
    expect(missing?.output.type).toBe("error-text");
    expect(String(missing?.output.value)).toMatch(/Tool call failed: filesystem_read_text_file on filesystem/);
    expect(String(missing?.output.value)).toMatch(/ENOENT|no such file/i);
    const found = toolResults(prompts[2]).find((r) => r.toolCallId === "s2");
    expect(found?.output.type).toBe("text");
    expect(String(found?.output.value)).toContain("Ada");
  });

  it("discovery: the catalogue's share of the context window decides direct tools or local search, and the search tools run", async () => {
    servers.runtime.resetRun();
    const roomy = createAiSdkTools(servers.runtime, { discovery: { contextWindow: 1_000_000, threshold: 0.05 } });
    expect(Object.keys(roomy)).toHaveLength(23);
    // 23 tools (far under the 128-tool cap) that take more than 1% of a 100K window: searched, not loaded.
    const tight = createAiSdkTools(servers.runtime, { discovery: { contextWindow: 100_000, threshold: 0.01 } });
    expect(Object.keys(tight)).toEqual(["search_tools", "describe_tool", "call_tool"]);
    const { model, prompts } = scripted([
      { toolCalls: [{ id: "d1", name: "search_tools", input: { query: "list allowed directories" } }] },
      { toolCalls: [{ id: "d2", name: "call_tool", input: { name: "filesystem_list_allowed_directories", arguments: "{}" } }] },
      { text: "listed" },
    ]);
    const result = await generateText({ model, tools: tight, prompt: "where may you read?", stopWhen: stepCountIs(5) });
    expect(result.text).toBe("listed");
    expect(String(toolResults(prompts[1])[0]?.output.value)).toContain("filesystem_list_allowed_directories");
    expect(String(toolResults(prompts[2]).find((r) => r.toolCallId === "d2")?.output.value)).toContain(servers.root);
    expect(() => createAiSdkTools(servers.runtime, { discovery: { threshold: 2 } })).toThrow(/threshold must be in \(0, 1\]/);
  });

  it("resultBudget: a large file is spilled to a handle with a notice, read_result pages it, nothing is cut silently", async () => {
    servers.runtime.resetRun();
    const path = join(servers.root, "large.txt");
    const lines = Array.from({ length: 4_000 }, (_, i) => `row ${String(i).padStart(5, "0")} of the large file`);
    writeFileSync(path, lines.join("\n"));
    const tools = createAiSdkTools(servers.runtime, { resultBudget: { toolTokens: 500, turnTokens: 5_000 } });
    expect(Object.keys(tools)).toContain("read_result");
    const { model, prompts } = scripted([
      { toolCalls: [{ id: "r1", name: "filesystem_read_text_file", input: { path } }] },
      { toolCalls: [{ id: "r2", name: "read_result", input: { handle: "res_1", offset: 40_000, limit: 1_000 } }] },
      { text: "read" },
    ]);
    const result = await generateText({ model, tools, prompt: "read large.txt", stopWhen: stepCountIs(5) });
    expect(result.text).toBe("read");
    const first = String(toolResults(prompts[1])[0]?.output.value);
    expect(first).toMatch(/over its 500-token budget/);
    expect(first).toMatch(/The full result is held as res_1: call read_result/);
    expect(first.length).toBeLessThan(2_600); // 500 tokens at the default estimate (characters / 4), plus the notice's own rounding
    const page = String(toolResults(prompts[2]).find((r) => r.toolCallId === "r2")?.output.value);
    // The page is the server's text at the offset asked for (the held text is the rendered result: the file's lines).
    expect(page).toMatch(/res_1: characters 40000-41000 of \d+\./);
    expect(page).toMatch(/row \d{5} of the large file/);
  });
});
