/**
 * Result budgets with the real server-filesystem and server-memory behind the runtime: a 5 MB tool
 * result stays within a 20K-token turn budget (counted with the real o200k tokenizer), the model is
 * told what was left out, and `read_result` pages the rest, exactly; a result with a declared type
 * is projected (fields chosen from its output schema) rather than cut.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "@toolwright/runtime";
import { createMcpManager } from "@toolwright/runtime/manager";
import { createProviderTools, createResultBudget, createTokenAccount } from "@toolwright/runtime/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealServers, startRealServers } from "../../examples/providers/real-servers.js";
import { countTokens } from "../../packages/codegen/src/tokens/count.js";
import { MEMORY, NODE } from "../manager/helpers.js";

let servers: RealServers;
beforeAll(() => {
  servers = startRealServers();
});
afterAll(async () => {
  await servers.close();
});

type Call = { id: string; name: string; arguments: string };
const response = (calls: Call[]) => ({
  choices: [
    {
      message: {
        role: "assistant",
        tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
      },
    },
  ],
});

describe("result budgets", () => {
  it("a 5 MB result stays within a 20K-token turn, says what was left out, and the model pages the rest", async () => {
    // 5 MB of numbered lines, so any page can be checked against the file.
    const lines = Array.from({ length: 80_000 }, (_, i) => `line ${String(i).padStart(6, "0")} ${"abcdefghij".repeat(6)}`);
    const file = join(servers.root, "big.txt");
    const content = `${lines.join("\n")}\n`;
    writeFileSync(file, content);
    expect(content.length).toBeGreaterThan(5_000_000);
    const account = createTokenAccount();
    const budgeted = createResultBudget(servers.runtime, { toolTokens: 6_000, turnTokens: 20_000, countTokens, account });
    // maxChars: 0 — the budget decides what fits; the adapter's own character cap would cut pages again.
    const tools = createProviderTools(budgeted, { format: "openai-chat", maxChars: 0 });
    expect(tools.definitions().map((d) => d.function.name)).toContain("read_result");

    budgeted.startTurn();
    const first = await tools.run(
      response([
        { id: "c1", name: "filesystem_read_text_file", arguments: JSON.stringify({ path: file, head: null, tail: null }) },
        { id: "c2", name: "filesystem_read_text_file", arguments: JSON.stringify({ path: file, head: null, tail: null }) },
      ]),
    );
    const [a, b] = first.outcomes;
    expect(a?.text).toMatch(/over its 6000-token budget/);
    const handle = /held as (res_\d+)/.exec(a?.text ?? "")?.[1] ?? "";
    expect(handle).not.toBe("");
    // The page shown is the real start of the file.
    expect(a?.text.startsWith(content.slice(0, 1000))).toBe(true);
    const shown = Number(/Shown: characters 0-(\d+)/.exec(a?.text ?? "")?.[1]);
    expect(shown).toBeGreaterThan(10_000);
    // Paging in the same turn: the turn budget caps every page; once used up, the text says so.
    const pages = [];
    for (let i = 0; i < 20 && !/used up/.test(pages.at(-1) ?? ""); i++) {
      const r = await tools.run(
        response([{ id: `p${i}`, name: "read_result", arguments: JSON.stringify({ handle, offset: shown, limit: 50_000 }) }]),
      );
      pages.push(r.outcomes[0]?.text ?? "");
    }
    // Each page is the exact slice of the held text that starts where the shown part ended.
    expect(pages[0]?.startsWith(content.slice(shown, shown + 1000))).toBe(true);
    const turn = [a?.text, b?.text, ...pages].map((t) => countTokens(t ?? "")).reduce((x, y) => x + y, 0);
    expect(turn).toBeLessThanOrEqual(20_000);
    expect(budgeted.turnTokens()).toBeLessThanOrEqual(20_000);
    expect(pages.at(-1)).toMatch(/result budget is used up; call read_result .* again next turn/);

    // Next turn: read the last page; it is the exact end of the file.
    budgeted.startTurn();
    const total = Number(/\((\d+) characters\)/.exec(a?.text ?? "")?.[1]);
    const last = await tools.run(
      response([{ id: "l", name: "read_result", arguments: JSON.stringify({ handle, offset: total - 500, limit: 500 }) }]),
    );
    const text = last.outcomes[0]?.text ?? "";
    expect(text).toMatch(/End of result\.\]$/);
    expect(text).toContain(lines.at(-1));
    // A middle page is the exact slice.
    const mid = await tools.run(
      response([{ id: "m", name: "read_result", arguments: JSON.stringify({ handle, offset: 2_000_000, limit: 3_000 }) }]),
    );
    const midText = mid.outcomes[0]?.text ?? "";
    expect(midText).toMatch(/characters 2000000-2003000 of \d+\. Next: read_result \{"handle":"res_\d+","offset":2003000,"limit":3000\}/);
    expect(budgeted.truncations().map((t) => t.why)).toEqual(["tool_budget", "tool_budget"]);
    // The run's attribution: what the two 5 MB results would have cost against what was returned.
    const attribution = account.attribution();
    expect(attribution.resultTokensFull).toBeGreaterThan(2_000_000);
    expect(attribution.savedByBudgets).toBe(attribution.resultTokensFull - attribution.resultTokensReturned);
  });

  it("a typed result over budget is projected with its output schema, and the left-out fields are named", async () => {
    const observations = Array.from({ length: 40 }, (_, i) => `observation ${i} ${"x".repeat(300)}`);
    const entities = Array.from({ length: 30 }, (_, i) => ({ name: `entity-${i}`, entityType: "person", observations }));
    const created = await servers.runtime.execute({ tool: "memory.create_entities", arguments: { entities } });
    expect(created.ok).toBe(true);
    const budgeted = createResultBudget(servers.runtime, { toolTokens: 3_000, countTokens });
    const tools = createProviderTools(budgeted, { format: "openai-chat", maxChars: 0 });
    const r = await tools.run(response([{ id: "g", name: "memory_read_graph", arguments: "{}" }]));
    const text = r.outcomes[0]?.text ?? "";
    expect(countTokens(text)).toBeLessThanOrEqual(3_000);
    expect(text).toMatch(/Shown: a projection; left out: entities\[\]\.observations/);
    const projection = JSON.parse(text.slice(0, text.indexOf("\n[")));
    expect(projection.entities.slice(0, 30).map((e: { name: string }) => e.name)).toEqual(entities.map((e) => e.name));
    expect(projection.entities[0]).toEqual({ name: "entity-0", entityType: "person" });
    // The whole graph is still there to page, from offset 0.
    const handle = /held as (res_\d+)/.exec(text)?.[1];
    const page = await tools.run(
      response([{ id: "p", name: "read_result", arguments: JSON.stringify({ handle, offset: 0, limit: 2_000 }) }]),
    );
    expect(page.outcomes[0]?.text).toContain("observation 0");
  });

  it("a small result passes through unchanged; bad read_result arguments are the usual correct_call failure", async () => {
    const budgeted = createResultBudget(servers.runtime, { countTokens });
    const tools = createProviderTools(budgeted, { format: "openai-chat", maxChars: 0 });
    const plain = createProviderTools(servers.runtime, { format: "openai-chat", maxChars: 0 });
    const call = { id: "n", name: "filesystem_list_allowed_directories", arguments: "{}" };
    expect((await tools.run(response([call]))).outcomes[0]?.text).toBe((await plain.run(response([call]))).outcomes[0]?.text);
    const bad = await tools.run(
      response([{ id: "b", name: "read_result", arguments: JSON.stringify({ handle: "res_1", offset: -1, limit: 10 }) }]),
    );
    expect(bad.outcomes[0]?.result.ok).toBe(false);
    expect(bad.outcomes[0]?.text).toMatch(/offset .*integer >= 0/);
    const unknown = await tools.run(
      response([{ id: "u", name: "read_result", arguments: JSON.stringify({ handle: "res_999", offset: 0, limit: 10 }) }]),
    );
    expect(unknown.outcomes[0]?.text).toMatch(/No result is held as "res_999"/);
  });

  it("works the same through the manager's mirrored registry (live schemas, no generated code)", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "tw-budget-manager-")));
    const runtime = createRuntime();
    const manager = createMcpManager(
      { mcpServers: { memory: { command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, "m.jsonl") } } } } as never,
      { registry: runtime },
    );
    try {
      await manager.start();
      const observations = Array.from({ length: 40 }, (_, i) => `note ${i} ${"y".repeat(300)}`);
      const entities = Array.from({ length: 20 }, (_, i) => ({ name: `m-${i}`, entityType: "thing", observations }));
      expect((await manager.callTool("memory.create_entities", { entities })).ok).toBe(true);
      const budgeted = createResultBudget(runtime, { toolTokens: 2_000, countTokens });
      const tools = createProviderTools(budgeted, { format: "anthropic", maxChars: 0 });
      const name = tools.specs().find((s) => s.id.endsWith("read_graph"))?.providerName ?? "";
      const r = await tools.run({ content: [{ type: "tool_use", id: "t1", name, input: {} }] });
      const text = r.outcomes[0]?.text ?? "";
      expect(countTokens(text)).toBeLessThanOrEqual(2_000);
      expect(text).toMatch(/left out: entities\[\]\.observations/);
      const handle = /held as (res_\d+)/.exec(text)?.[1];
      const page = await tools.run({
        content: [{ type: "tool_use", id: "t2", name: "read_result", input: { handle, offset: 0, limit: 1_000 } }],
      });
      expect(page.outcomes[0]?.text).toContain("note 0");
    } finally {
      await manager.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
