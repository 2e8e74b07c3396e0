/**
 * `createProviderTools` unit behaviour with in-memory callers: which calls overlap (read-only or
 * idempotent ones) and which run alone in order, rejections counted by the policy, Gemini names
 * that must start with a letter, and the call/result shapes of each format.
 */
import { createInMemoryCaller, createRuntime } from "@toolwright/runtime";
import { createProviderTools, extractToolCalls, toolMessages } from "@toolwright/runtime/providers";
import { describe, expect, it } from "vitest";
import { spec } from "../failures/fixtures.js";
import { createResearchBotRuntime } from "../golden/agent-subset/expected/agents/index.js";

function setup(policy = {}) {
  const log: string[] = [];
  const slow = (name: string) => async () => {
    log.push(`start ${name}`);
    await new Promise((r) => setTimeout(r, 20));
    log.push(`end ${name}`);
    return { content: [{ type: "text" as const, text: `${name} done` }] };
  };
  const caller = createInMemoryCaller("s", { read: slow("read"), list: slow("list"), write: slow("write"), "3d-print": slow("3d-print") });
  const runtime = createRuntime({ policy });
  runtime.registerToolset({
    toolset: "t",
    caller,
    specs: [
      spec("t", "read", { p: "string" }, { annotations: { readOnly: true } }),
      spec("t", "list", { p: "string" }, { annotations: { idempotent: true } }),
      spec("t", "write", { p: "string" }),
      { ...spec("t", "3d-print", { p: "string" }), providerName: "3d-print" },
    ],
  });
  return { runtime, log };
}

const chat = (...calls: [string, string, unknown][]) => ({
  tool_calls: calls.map(([id, name, args]) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } })),
});

describe("createProviderTools.run", () => {
  it("overlaps read-only and idempotent calls, runs any other call alone and in order", async () => {
    const { runtime, log } = setup();
    const tools = createProviderTools(runtime, { format: "openai-chat", strict: false });
    const { outcomes } = await tools.run(
      chat(["1", "t_read", { p: "a" }], ["2", "t_list", { p: "b" }], ["3", "t_write", { p: "c" }], ["4", "t_read", { p: "d" }]),
    );
    expect(outcomes.map((o) => o.call.id)).toEqual(["1", "2", "3", "4"]);
    expect(log).toEqual(["start read", "start list", "end read", "end list", "start write", "end write", "start read", "end read"]);
  });

  it("refused calls count toward the policy: two rejections in a row stop the run", async () => {
    const { runtime } = setup({ maxConsecutiveFailedToolCalls: 2 });
    const tools = createProviderTools(runtime, { format: "openai-chat" });
    const first = await tools.run(chat(["1", "t_wirte", { p: "a" }]));
    const second = await tools.run(chat(["2", "t_write", "not an object"]));
    const third = await tools.run(chat(["3", "t_write", { p: "ok" }]));
    expect(
      [first, second, third].map((r) =>
        r.outcomes[0]?.result.ok ? "ok" : (r.outcomes[0]?.result.failure.reason ?? r.outcomes[0]?.result.failure.kind),
      ),
    ).toEqual(["tool_unavailable", "invalid_call", "max_consecutive_failures"]);
    expect(runtime.usage().toolCalls).toBe(0);
  });

  it("Gemini names start with a letter or _ and map back", async () => {
    const { runtime, log } = setup();
    const tools = createProviderTools(runtime, { format: "gemini" });
    expect(tools.definitions().map((d) => d.name)).toEqual(["t_read", "t_list", "t_write", "_3d-print"]);
    const { messages } = await tools.run({
      candidates: [{ content: { parts: [{ functionCall: { name: "_3d-print", args: { p: "x" } } }] } }],
    });
    expect(log).toEqual(["start 3d-print", "end 3d-print"]);
    expect(messages).toEqual([
      { role: "user", parts: [{ functionResponse: { id: "call_0", name: "_3d-print", response: { output: "3d-print done" } } }] },
    ]);
  });
});

describe("from an agent", () => {
  it("offers only the agent's subset, under the agent's run policy", async () => {
    const docs = createInMemoryCaller("docs", { search: () => ({ content: [{ type: "text", text: "hit" }] }) });
    const runtime = createResearchBotRuntime({ docs, web: createInMemoryCaller("web", {}) });
    const tools = createProviderTools(runtime, { format: "anthropic" });
    expect(tools.definitions().map((d) => d.name)).toEqual(["docs_search", "docs_read", "web_fetch"]);
    // docs_delete exists in the toolset but not for this agent: refused with the closest names.
    const { outcomes } = await tools.run({ content: [{ type: "tool_use", id: "x", name: "docs_delete", input: { id: "1" } }] });
    expect(outcomes[0]?.result.ok === false && outcomes[0].result.failure.reason).toBe("tool_unavailable");
    expect(runtime.policy.maxToolCalls).toBe(20);
  });
});

describe("formats", () => {
  it("extracts calls from each provider's response shapes", () => {
    expect(
      extractToolCalls("openai-chat", { choices: [{ message: { tool_calls: [{ id: "a", function: { name: "x", arguments: "{}" } }] } }] }),
    ).toEqual([{ id: "a", name: "x", arguments: "{}" }]);
    expect(
      extractToolCalls("openai-responses", {
        output: [{ type: "message" }, { type: "function_call", call_id: "b", name: "y", arguments: "{}" }],
      }),
    ).toEqual([{ id: "b", name: "y", arguments: "{}" }]);
    expect(
      extractToolCalls("anthropic", { content: [{ type: "text" }, { type: "tool_use", id: "c", name: "z", input: { q: 1 } }] }),
    ).toEqual([{ id: "c", name: "z", arguments: { q: 1 } }]);
    expect(extractToolCalls("gemini", [{ name: "w", args: { q: 2 }, id: "g1" }])).toEqual([{ id: "g1", name: "w", arguments: { q: 2 } }]);
    expect(extractToolCalls("anthropic", "garbage")).toEqual([]);
  });

  it("renders result items with call ids and failures marked", () => {
    const calls = [
      { id: "a", name: "x", ok: true, text: "fine" },
      { id: "b", name: "y", ok: false, text: "bad" },
    ];
    expect(toolMessages("openai-chat", calls)).toEqual([
      { role: "tool", tool_call_id: "a", content: "fine" },
      { role: "tool", tool_call_id: "b", content: "bad" },
    ]);
    expect(toolMessages("anthropic", calls)).toEqual([
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "a", content: "fine" },
          { type: "tool_result", tool_use_id: "b", content: "bad", is_error: true },
        ],
      },
    ]);
    expect(toolMessages("openai-responses", [])).toEqual([]);
    expect(toolMessages("anthropic", [])).toEqual([]);
  });
});
