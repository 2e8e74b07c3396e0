/**
 * Tool search over large catalogues: the model sees search_tools / describe_tool / call_tool, never
 * more than the provider's cap, ranking uses names, descriptions and annotations, and calls made
 * through call_tool give the same validation and failure values under the same run policy. Also
 * measures tokens per turn with and without it (real servers' catalogues and 500 synthetic tools).
 */
import { join } from "node:path";
import { createRuntime, type Runtime } from "@toolwright/runtime";
import { createProviderTools, createToolSearch, PROVIDER_TOOL_CAP, type ProviderFormat, rankTools } from "@toolwright/runtime/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingSpecs } from "../../examples/catalogues/src/gen/everything/index.js";
import { definitionTokens, syntheticCatalogue, textTokens } from "../../examples/providers/catalogue.js";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";

let servers: RealServers;
beforeAll(() => {
  servers = startRealServers({ policy: { maxToolCalls: 3 } });
  servers.runtime.registerToolset(syntheticCatalogue(500));
});
afterAll(() => servers.close());

const call = (id: string, name: string, args: unknown) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });

describe("tool search", () => {
  it("switches on past the provider's cap and never sends more than the cap", () => {
    const runtime = servers.runtime;
    expect(runtime.specs()).toHaveLength(523);
    for (const format of ["openai-chat", "openai-responses", "anthropic", "gemini"] as ProviderFormat[]) {
      const tools = createProviderTools(runtime, { format });
      const definitions = tools.definitions();
      expect(definitions.length).toBeLessThanOrEqual(PROVIDER_TOOL_CAP[format]);
      expect(tools.specs().map((s) => s.providerName)).toEqual(["search_tools", "describe_tool", "call_tool"]);
    }
    expect(() => createProviderTools(runtime, { format: "openai-chat", toolSearch: false }).definitions()).toThrow(
      /523 tools exceed openai-chat's cap of 128 per request; use toolSearch or a filter/,
    );
    // A small catalogue is sent as is.
    const small = createRuntime();
    small.registerToolset(syntheticCatalogue(20));
    expect(createProviderTools(small, { format: "openai-chat" }).definitions()).toHaveLength(20);
  });

  it("ranks on names, descriptions and annotations", () => {
    const specs = servers.runtime.specs();
    expect(rankTools("read a text file", specs, 3)[0]?.providerName).toBe("filesystem_read_text_file");
    expect(rankTools("delete entities from the knowledge graph", specs, 3)[0]?.providerName).toBe("memory_delete_entities");
    expect(rankTools("billing invoice archive", specs, 1)[0]?.providerName).toBe("billing_archive_invoice");
    // "read-only" matches the readOnly annotation: the four read-only billing invoice tools come first.
    expect(rankTools("billing invoice", specs, 1)[0]?.annotations?.readOnly).toBe(false);
    const readOnly = rankTools("read-only invoice billing", specs, 4);
    expect(readOnly.map((s) => s.providerName)).toEqual([
      "billing_list_invoice",
      "billing_get_invoice",
      "billing_search_invoice",
      "billing_export_invoice",
    ]);
    expect(rankTools("zebra quantum", specs, 5)).toEqual([]);
  });

  it("search → describe → call runs the real tool; a bad call_tool gives the same failure as a direct call", async () => {
    servers.runtime.resetRun();
    const tools = createProviderTools(servers.runtime, { format: "openai-chat" });
    const notes = join(servers.root, "notes.txt");
    const first = await tools.run({
      tool_calls: [
        call("s", "search_tools", { query: "read text file", limit: null }),
        call("d", "describe_tool", { name: "filesystem_read_text_file" }),
      ],
    });
    expect(first.messages[0]?.content).toMatch(/^\d+ tools:\n- filesystem_read_text_file \[read-only\]: Read the complete contents/);
    expect(first.messages[1]?.content).toContain('"path":{"type":"string"}');
    expect(servers.runtime.usage().toolCalls).toBe(0); // discovery sends nothing to a server

    const second = await tools.run({
      tool_calls: [
        call("ok", "call_tool", { name: "filesystem_read_text_file", arguments: JSON.stringify({ path: notes }) }),
        call("bad", "call_tool", { name: "filesystem_read_text_file", arguments: JSON.stringify({ path: 7 }) }),
        call("typo", "call_tool", { name: "filesystem_read_txt_file", arguments: "{}" }),
      ],
    });
    expect(second.outcomes.map((o) => o.result.ok)).toEqual([true, false, false]);
    expect(second.messages[0]?.content).toContain("Ada wrote the first program.");
    const direct = await servers.runtime.execute({ tool: "filesystem.read_text_file", arguments: { path: 7 } });
    const viaSearch = second.outcomes[1]?.result;
    expect(viaSearch?.ok === false && viaSearch.failure).toEqual(direct.ok === false && direct.failure);
    const typo = second.outcomes[2]?.result;
    expect(typo?.ok === false && typo.failure).toMatchObject({
      reason: "tool_unavailable",
      suggestions: ["filesystem_read_text_file", "filesystem_read_file", "filesystem_read_media_file"],
    });
  });

  it("calls through call_tool count toward the run policy", async () => {
    servers.runtime.resetRun();
    const tools = createProviderTools(servers.runtime, { format: "anthropic" });
    const use = (id: string) => ({ type: "tool_use", id, name: "call_tool", input: { name: "memory_read_graph", arguments: "{}" } });
    const { outcomes } = await tools.run({ content: [use("1"), use("2"), use("3"), use("4")] });
    expect(outcomes.map((o) => (o.result.ok ? "ok" : o.result.failure.reason))).toEqual(["ok", "ok", "ok", "max_tool_calls"]);
  });

  it("createToolSearch works over any runner (a runtime with only the synthetic catalogue)", async () => {
    const runtime: Runtime = createRuntime();
    runtime.registerToolset(syntheticCatalogue(500));
    const search = createToolSearch(runtime, { defaultLimit: 2 });
    const found = await search.execute({ tool: "toolwright.search_tools", arguments: { query: "sync customers crm" } });
    expect(found.ok && found.structured).toEqual({ tools: ["crm_sync_customer", "crm_sync_invoice"] });
  });
});

describe("tokens per turn (o200k_base), with and without tool search", () => {
  it("measures the real servers' catalogues and a 500-tool synthetic one", () => {
    const catalogues: [string, Runtime][] = [];
    const only = (name: string, specs: Runtime["specs"] extends () => infer S ? S : never) => {
      const r = createRuntime();
      r.registerToolset({ toolset: name, specs, caller: servers.memory });
      catalogues.push([name, r]);
    };
    only(
      "memory (9)",
      servers.runtime.specs().filter((s) => s.toolset === "memory"),
    );
    only(
      "filesystem (14)",
      servers.runtime.specs().filter((s) => s.toolset === "filesystem"),
    );
    only(`everything (${everythingSpecs.length})`, everythingSpecs);
    only(`all three (${23 + everythingSpecs.length})`, [
      ...servers.runtime.specs().filter((s) => s.toolset !== "synthetic"),
      ...everythingSpecs,
    ]);
    const synthetic = createRuntime();
    synthetic.registerToolset(syntheticCatalogue(500));
    catalogues.push(["synthetic (500)", synthetic]);
    const rows: string[] = [];
    for (const [name, runtime] of catalogues) {
      const without = definitionTokens(runtime, "openai-chat", false);
      const withSearch = definitionTokens(runtime, "openai-chat", true);
      const anthropic = definitionTokens(runtime, "anthropic", false);
      rows.push(`${name}: openai-chat ${without.tokens} -> ${withSearch.tokens} with search; anthropic ${anthropic.tokens}`);
      expect(withSearch.tools).toBe(3);
      if (name.startsWith("synthetic")) expect(withSearch.tokens * 50).toBeLessThan(without.tokens);
    }
    // One discovery round trip costs a search result and one describe_tool answer, once.
    const search = createToolSearch(synthetic);
    const hits = (r: { ok: boolean; content?: readonly { type: string; text?: string }[] }) => (r.ok ? String(r.content?.[0]?.text) : "");
    return Promise.all([
      search.execute({ tool: "toolwright.search_tools", arguments: { query: "archive old invoices" } }),
      search.execute({ tool: "toolwright.describe_tool", arguments: { name: "billing_archive_invoice" } }),
    ]).then(([s, d]) => {
      rows.push(`discovery: search_tools result ${textTokens(hits(s))} tokens, describe_tool result ${textTokens(hits(d))} tokens`);
      console.log(`tokens per turn:\n${rows.join("\n")}`);
      expect(textTokens(hits(s))).toBeGreaterThan(0);
    });
  });
});
