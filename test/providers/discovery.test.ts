/**
 * Provider-native progressive discovery through the real `@anthropic-ai/sdk` and `openai` clients
 * against a scripted 127.0.0.1 endpoint, with the real server-memory and server-filesystem behind
 * the runtime. Checks the wire: Anthropic's tool search tool with deferred tools and
 * `input_examples`, OpenAI Responses' `tool_search` with one namespace per toolset, local search
 * for Chat Completions, the threshold as a share of the context window, stable text across turns,
 * and the fallback to the plain list when the provider refuses deferred loading.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { createDiscoveryTools, createProviderTools, createTokenAccount } from "@toolwright/runtime/providers";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";
import { anthropicMessage, responsesAnswer } from "../../examples/providers/scripted-provider.js";
import { makeUserSpec } from "../golden/scalars/expected/scalars/specs.gen.js";

type Body = { [key: string]: unknown };
type Answer = { status: number; body: unknown };

/** A scripted endpoint whose answers carry a status, so a provider's 400 refusal is real HTTP. */
async function startEndpoint() {
  const queue: Answer[] = [];
  const bodies: Body[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}"));
      const answer = queue.shift() ?? { status: 500, body: { error: { type: "api_error", message: "nothing scripted" } } };
      res.statusCode = answer.status;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    script: (...answers: Answer[]) => queue.push(...answers),
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let servers: RealServers;
let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
beforeAll(async () => {
  servers = startRealServers();
  endpoint = await startEndpoint();
});
afterAll(async () => {
  await endpoint.close();
  await servers.close();
});

const anthropic = () => new Anthropic({ apiKey: "test-key", baseURL: endpoint.url, maxRetries: 0 });
const openai = () => new OpenAI({ apiKey: "test-key", baseURL: `${endpoint.url}/v1`, maxRetries: 0 });
// 23 tools of about 2,500 tokens: 1% of a 100K window is 1,000 tokens, so the catalogue is deferred.
const SMALL_WINDOW = { contextWindow: 100_000, threshold: 0.01 };

describe("Anthropic: tool search tool, defer_loading and input_examples", () => {
  it("sends every tool deferred behind the BM25 tool search tool, with the design's examples, and runs the loaded tool", async () => {
    const tools = createDiscoveryTools(servers.runtime, { format: "anthropic", ...SMALL_WINDOW });
    expect(tools.plan()).toMatchObject({ mode: "native", tools: servers.runtime.specs().length });
    endpoint.bodies.length = 0;
    endpoint.script({
      status: 200,
      body: {
        ...anthropicMessage([{ type: "tool_use", id: "toolu_1", name: "memory_read_graph", input: {} }]),
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_bm25", input: { query: "knowledge graph" } },
          {
            type: "tool_search_tool_result",
            tool_use_id: "srvtoolu_1",
            content: {
              type: "tool_search_tool_search_result",
              tool_references: [{ type: "tool_reference", tool_name: "memory_read_graph" }],
            },
          },
          { type: "tool_use", id: "toolu_1", name: "memory_read_graph", input: {} },
        ],
      },
    });
    const sent = await tools.send((defs) =>
      anthropic().messages.create({
        model: "claude-test",
        max_tokens: 100,
        messages: [{ role: "user", content: "What is in the graph?" }],
        tools: defs as Anthropic.Messages.ToolUnion[],
      }),
    );
    expect(sent.fallback).toBeUndefined();
    const wire = endpoint.bodies[0]?.tools as Body[];
    expect(wire[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    const specs = servers.runtime.specs();
    expect(wire.slice(1).map((t) => t.name)).toEqual(specs.map((s) => s.providerName));
    for (const [i, spec] of specs.entries()) {
      const t = wire[i + 1] as Body;
      expect(t.defer_loading, spec.id).toBe(true);
      expect(t.input_schema, spec.id).toMatchObject({ type: "object" });
      if (spec.exampleJson) expect(t.input_examples, spec.id).toEqual([JSON.parse(spec.exampleJson)]);
      else expect(t.input_examples, spec.id).toBeUndefined();
    }
    expect(wire.filter((t) => t.input_examples !== undefined).length).toBeGreaterThan(0);
    // The deferred tool the model loaded runs against the real memory server.
    const { outcomes, messages } = await tools.run(sent.response);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.result.ok).toBe(true);
    expect(messages[0]?.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
    // Stable across turns: the same catalogue renders byte-identical tools (prompt caches stay warm).
    expect(JSON.stringify(tools.definitions())).toBe(JSON.stringify(wire));
  });

  it("carries every example the design declares (gen → spec → input_examples), in design order", async () => {
    // The golden scalars design declares two examples for make-user; its generated spec holds both.
    expect(makeUserSpec.examplesJson).toHaveLength(2);
    const runner = {
      specs: () => [makeUserSpec],
      lookup: (tool: string) => (tool === makeUserSpec.id || tool === makeUserSpec.providerName ? { spec: makeUserSpec } : undefined),
      execute: async () => ({ ok: true as const, value: {}, content: [], structured: undefined }),
    };
    const tools = createDiscoveryTools(runner as never, { format: "anthropic", contextWindow: 1_000, threshold: 0.001 });
    endpoint.bodies.length = 0;
    endpoint.script({ status: 200, body: anthropicMessage([{ type: "text", text: "ok" }]) });
    await tools.send((defs) =>
      anthropic().messages.create({
        model: "claude-test",
        max_tokens: 10,
        messages: [{ role: "user", content: "add a user" }],
        tools: defs as Anthropic.Messages.ToolUnion[],
      }),
    );
    const wire = endpoint.bodies[0]?.tools as Body[];
    expect(wire[1]).toMatchObject({ name: makeUserSpec.providerName, defer_loading: true });
    expect(wire[1]?.input_examples).toEqual([
      { email: "ada@example.com", handle: "ada", role: "owner" },
      { email: "grace@example.com", handle: "grace", role: "reader", admin: false },
    ]);
  });

  it("falls back to the plain tool list when the provider refuses deferred loading, and says so", async () => {
    const tools = createDiscoveryTools(servers.runtime, { format: "anthropic", ...SMALL_WINDOW });
    endpoint.bodies.length = 0;
    endpoint.script(
      {
        status: 400,
        body: {
          type: "error",
          error: { type: "invalid_request_error", message: "tools.0: Input tag 'tool_search_tool_bm25_20251119' is not supported" },
        },
      },
      { status: 200, body: anthropicMessage([{ type: "text", text: "ok" }]) },
    );
    const sent = await tools.send((defs) =>
      anthropic().messages.create({
        model: "claude-test",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
        tools: defs as Anthropic.Messages.ToolUnion[],
      }),
    );
    expect(sent.fallback).toMatchObject({ from: "native", to: "all" });
    expect(sent.fallback?.reason).toMatch(/^400: .*tool_search_tool_bm25_20251119/);
    expect(sent.plan).toMatchObject({ mode: "all", fallback: sent.fallback });
    expect(endpoint.bodies).toHaveLength(2);
    const retried = endpoint.bodies[1]?.tools as Body[];
    expect(retried).toEqual(createProviderTools(servers.runtime, { format: "anthropic" }).definitions());
    expect(JSON.stringify(retried)).not.toMatch(/defer_loading|tool_search/);
    // The binding remembers: the next turn sends the plain list without asking again.
    expect(tools.plan().mode).toBe("all");
  });

  it("a refusal that is not about the request (a 500) propagates as the request's own error", async () => {
    const tools = createDiscoveryTools(servers.runtime, { format: "anthropic", ...SMALL_WINDOW });
    endpoint.script({ status: 500, body: { type: "error", error: { type: "api_error", message: "down" } } });
    await expect(
      tools.send((defs) =>
        anthropic().messages.create({
          model: "claude-test",
          max_tokens: 10,
          messages: [{ role: "user", content: "hi" }],
          tools: defs as Anthropic.Messages.ToolUnion[],
        }),
      ),
    ).rejects.toMatchObject({ status: 500 });
    expect(tools.plan().mode).toBe("native");
  });
});

describe("OpenAI Responses: tool_search, namespaces and defer_loading", () => {
  it("sends hosted tool search and one namespace per toolset with deferred functions, and runs a namespaced call", async () => {
    const tools = createDiscoveryTools(servers.runtime, { format: "openai-responses", ...SMALL_WINDOW });
    endpoint.bodies.length = 0;
    const answer = responsesAnswer("resp_1", [{ callId: "call_1", name: "memory_read_graph", arguments: "{}" }]);
    endpoint.script({
      status: 200,
      body: {
        ...answer,
        output: [
          { type: "tool_search_call", id: "ts_1", call_id: null, execution: "server", status: "completed", arguments: { query: "graph" } },
          { type: "tool_search_output", id: "tso_1", call_id: null, execution: "server", status: "completed", tools: [] },
          { ...(answer.output[0] as Body), namespace: "memory" },
        ],
      },
    });
    const sent = await tools.send((defs) =>
      openai().responses.create({ model: "gpt-test", input: "What is in the graph?", tools: defs as OpenAI.Responses.Tool[] }),
    );
    const wire = endpoint.bodies[0]?.tools as Body[];
    expect(wire[0]).toEqual({ type: "tool_search" });
    expect(wire.slice(1).map((n) => [n.type, n.name])).toEqual([
      ["namespace", "memory"],
      ["namespace", "filesystem"],
    ]);
    const specs = servers.runtime.specs();
    for (const ns of wire.slice(1)) {
      const fns = ns.tools as Body[];
      expect(fns.map((f) => f.name)).toEqual(specs.filter((s) => s.toolset === ns.name).map((s) => s.providerName));
      for (const f of fns) expect(f).toMatchObject({ type: "function", defer_loading: true, strict: expect.any(Boolean) });
      expect(ns.description).toMatch(new RegExp(`^Tools of ${String(ns.name)}: `));
    }
    const { outcomes } = await tools.run(sent.response);
    expect(outcomes.map((o) => [o.call.name, o.result.ok])).toEqual([["memory_read_graph", true]]);
    expect(JSON.stringify(tools.definitions())).toBe(JSON.stringify(wire));
  });

  it("namespaces: false sends flat deferred functions", () => {
    const tools = createDiscoveryTools(servers.runtime, { format: "openai-responses", namespaces: false, ...SMALL_WINDOW });
    const defs = tools.definitions() as Body[];
    expect(defs[0]).toEqual({ type: "tool_search" });
    expect(defs.slice(1).every((d) => d.type === "function" && d.defer_loading === true)).toBe(true);
  });
});

describe("the switch is a share of the context window, not a tool count", () => {
  it("the same catalogue is sent whole in a big window and discovered in a small one; Chat Completions searches locally", async () => {
    const big = createDiscoveryTools(servers.runtime, { format: "openai-chat", contextWindow: 1_000_000, threshold: 0.05 });
    expect(big.plan().mode).toBe("all");
    expect(big.definitions()).toEqual(createProviderTools(servers.runtime, { format: "openai-chat" }).definitions());
    const small = createDiscoveryTools(servers.runtime, { format: "openai-chat", ...SMALL_WINDOW });
    const plan = small.plan();
    expect(plan).toMatchObject({ mode: "local", thresholdTokens: 1_000 });
    expect(plan.catalogueTokens).toBeGreaterThan(1_000);
    const names = (small.definitions() as { function: { name: string } }[]).map((d) => d.function.name);
    expect(names).toEqual(["search_tools", "describe_tool", "call_tool"]);
    // A real counter changes the price, and so the decision, at the same threshold.
    const cheap = createDiscoveryTools(servers.runtime, { format: "anthropic", ...SMALL_WINDOW, countTokens: () => 10 });
    expect(cheap.plan()).toMatchObject({ mode: "all", catalogueTokens: 10 });
    // native: false searches locally even where the provider has deferred loading.
    expect(createDiscoveryTools(servers.runtime, { format: "anthropic", native: false, ...SMALL_WINDOW }).plan().mode).toBe("local");
    expect(() => createDiscoveryTools(servers.runtime, { format: "anthropic", threshold: 2 })).toThrow(/threshold must be in \(0, 1\]/);
  });

  it("token attribution: definitions sent against the whole catalogue, per run", () => {
    const account = createTokenAccount();
    const tools = createDiscoveryTools(servers.runtime, { format: "anthropic", ...SMALL_WINDOW, account });
    tools.definitions();
    tools.definitions();
    const a = account.attribution();
    expect(a.turns).toBe(2);
    expect(a.definitionTokensFull).toBe(2 * tools.plan().catalogueTokens);
    // Only the search tool is loaded; the deferred definitions are not in the context.
    expect(a.definitionTokensSent).toBe(
      2 * Math.ceil(JSON.stringify([{ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" }]).length / 4),
    );
    expect(a.savedBySearch).toBe(a.definitionTokensFull - a.definitionTokensSent);
  });

  it("local search answers at the detail asked: name, summary, signature, full schema", async () => {
    const tools = createDiscoveryTools(servers.runtime, { format: "openai-chat", ...SMALL_WINDOW });
    const ask = async (detail: string | null) =>
      (await tools.runCall({ id: "s", name: "search_tools", arguments: JSON.stringify({ query: "read a text file", limit: 2, detail }) }))
        .text;
    const name = await ask("name");
    const summary = await ask(null);
    const signature = await ask("signature");
    const full = await ask("full");
    expect(name).toMatch(/^2 tools:\n- filesystem_read_text_file\n- \w+\nJSON: /);
    expect(summary).toMatch(/- filesystem_read_text_file \[read-only\]: /);
    expect(signature).toMatch(/- filesystem_read_text_file\(head\?: number, path: string, tail\?: number\) \[read-only\]: /);
    expect(full).toMatch(/Arguments \(JSON Schema\): \{"properties":\{"head"/);
    expect(name.length).toBeLessThan(summary.length);
    expect(summary.length).toBeLessThan(signature.length);
    expect(signature.length).toBeLessThan(full.length);
    const bad = await tools.runCall({
      id: "b",
      name: "search_tools",
      arguments: JSON.stringify({ query: "x", limit: null, detail: "everything" }),
    });
    expect(bad.result.ok).toBe(false);
    expect(bad.text).toMatch(/detail has a value that is not allowed/);
  });
});
