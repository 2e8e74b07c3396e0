/**
 * @toolwright/langchain against the real @langchain/core: the tools bind to a chat model (a
 * scripted BaseChatModel subclass that replays AIMessages), tool calls from the model run against
 * the real server-memory and server-filesystem, and a bad call comes back as an error ToolMessage
 * with the rendered failure instead of a thrown ToolInputParsingException.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { createLangChainTools } from "@toolwright/langchain";
import type { ToolResult } from "@toolwright/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";

/** A chat model that answers with the scripted messages in order and records the tools bound to it. */
class ScriptedChatModel extends BaseChatModel {
  bound: ReturnType<typeof convertToOpenAITool>[] = [];
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
  override bindTools(tools: StructuredToolInterface[]) {
    this.bound = tools.map((t) => convertToOpenAITool(t));
    return this;
  }
}

let servers: RealServers;
beforeAll(() => {
  servers = startRealServers();
});
afterAll(() => servers.close());

describe("LangChain tools", () => {
  it("are LangChain tools with the spec's name, description and JSON Schema", () => {
    const tools = createLangChainTools(servers.runtime);
    expect(tools).toHaveLength(23);
    const read = tools.find((t) => t.name === "filesystem_read_text_file");
    expect(read).toBeDefined();
    const asOpenAI = convertToOpenAITool(read as NonNullable<typeof read>);
    expect(asOpenAI.function.name).toBe("filesystem_read_text_file");
    expect(asOpenAI.function.parameters).toMatchObject({ type: "object", required: ["path"], properties: { path: { type: "string" } } });
  });

  it("a bound chat model's tool calls run for real; a bad call is an error ToolMessage, not an exception", async () => {
    const tools = createLangChainTools(servers.runtime);
    const byName = new Map(tools.map((t) => [t.name, t]));
    const notes = join(servers.root, "notes.txt");
    const model = new ScriptedChatModel([
      new AIMessage({
        content: "",
        tool_calls: [
          {
            id: "lc1",
            name: "memory_create_entities",
            args: { entities: [{ name: "Ada", entityType: "person", observations: ["notes"] }] },
            type: "tool_call",
          },
          { id: "lc2", name: "filesystem_read_text_file", args: { path: notes } },
          { id: "lc3", name: "memory_open_nodes", args: { names: "Ada" } },
        ],
      }),
      new AIMessage("Ada is in memory and in the notes."),
    ]);
    const bound = model.bindTools(tools);
    expect(model.bound.map((t) => t.function.name)).toContain("memory_open_nodes");
    const history: BaseMessage[] = [new HumanMessage("Who is Ada?")];
    const first = await bound.invoke(history);
    expect(first.tool_calls?.map((c) => c.id)).toEqual(["lc1", "lc2", "lc3"]);
    history.push(first);
    for (const c of first.tool_calls ?? []) history.push((await byName.get(c.name)?.invoke({ ...c, type: "tool_call" })) as ToolMessage);
    const results = history.filter((m): m is ToolMessage => m instanceof ToolMessage);
    expect(results.map((m) => [m.tool_call_id, m.status])).toEqual([
      ["lc1", "success"],
      ["lc2", "success"],
      ["lc3", "error"],
    ]);
    expect(String(results[1]?.content)).toContain("Ada wrote the first program.");
    expect(String(results[2]?.content)).toMatch(/- names is invalid \(invalid field type\); expected array; got "Ada"/);
    const artifact = results[2]?.artifact as ToolResult<unknown>;
    expect(artifact.ok === false && artifact.failure.recovery.action).toBe("correct_call");
    const second = await bound.invoke(history);
    expect(second.content).toBe("Ada is in memory and in the notes.");
    const graph = await servers.runtime.execute({ tool: "memory.read_graph", arguments: {} });
    expect(graph.ok && JSON.stringify(graph.structured)).toContain('"name":"Ada"');
  });

  it("plain-argument invoke (no tool call) returns the text", async () => {
    const [read] = createLangChainTools(servers.runtime, { filter: (s) => s.id === "filesystem.list_allowed_directories" });
    expect(read?.name).toBe("filesystem_list_allowed_directories");
    expect(String(await read?.invoke({}))).toContain(servers.root);
  });

  it("discovery and resultBudget: local search past the context share, a large result spilled and paged through read_result", async () => {
    expect(createLangChainTools(servers.runtime, { discovery: { contextWindow: 1_000_000, threshold: 0.05 } })).toHaveLength(23);
    const searched = createLangChainTools(servers.runtime, { discovery: { contextWindow: 100_000, threshold: 0.01 } });
    expect(searched.map((t) => t.name)).toEqual(["search_tools", "describe_tool", "call_tool"]);
    const found = await searched[0]?.invoke({ id: "s1", name: "search_tools", args: { query: "read text file" }, type: "tool_call" });
    expect(String((found as ToolMessage).content)).toContain("filesystem_read_text_file");

    const path = join(servers.root, "large.txt");
    writeFileSync(path, Array.from({ length: 4_000 }, (_, i) => `row ${String(i).padStart(5, "0")} of the large file`).join("\n"));
    const tools = createLangChainTools(servers.runtime, { resultBudget: { toolTokens: 500 } });
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.has("read_result")).toBe(true);
    const model = new ScriptedChatModel([
      new AIMessage({ content: "", tool_calls: [{ id: "b1", name: "filesystem_read_text_file", args: { path }, type: "tool_call" }] }),
    ]);
    const call = (await model.bindTools(tools).invoke([new HumanMessage("read large.txt")])).tool_calls?.[0];
    const first = (await byName.get("filesystem_read_text_file")?.invoke({ ...call, type: "tool_call" })) as ToolMessage;
    expect(first.status).toBe("success");
    expect(String(first.content)).toMatch(/over its 500-token budget.*held as res_\d+/s);
    const handle = /held as (res_\d+)/.exec(String(first.content))?.[1] as string;
    const page = (await byName.get("read_result")?.invoke({
      id: "b2",
      name: "read_result",
      args: { handle, offset: 40_000, limit: 1_000 },
      type: "tool_call",
    })) as ToolMessage;
    expect(String(page.content)).toMatch(new RegExp(`${handle}: characters 40000-41000 of \\d+\\.`));
    expect(String(page.content)).toMatch(/row \d{5} of the large file/);
  });
});
