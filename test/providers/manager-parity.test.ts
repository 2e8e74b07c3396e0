/**
 * The manager path at parity with the generated path, against the real server-memory,
 * server-filesystem and server-everything: arguments checked against the live inputSchema (ajv,
 * loaded lazily) with the same field issues as the generated codecs, the same "closest names",
 * a server-side input validation error mapped to correct_call, and the provider adapters over the
 * manager's mirrored registry (with the schema rewrites each provider needed for the live catalogues).
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime, type ToolFailure } from "@toolwright/runtime";
import { validateFailure } from "@toolwright/runtime/caller";
import { createMcpManager, type McpManager } from "@toolwright/runtime/manager";
import { createProviderTools, providerSchema, SCHEMA_PROVIDERS } from "@toolwright/runtime/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memorySpecMap } from "../../examples/catalogues/src/gen/memory/index.js";
import { EVERYTHING, MEMORY, NODE, serverEntry } from "../manager/helpers.js";

const FILESYSTEM = serverEntry("@modelcontextprotocol/server-filesystem");
let dir = "";
const managers: McpManager[] = [];

function start(validateArguments?: "off" | "auto") {
  const runtime = createRuntime();
  const manager = createMcpManager(
    {
      mcpServers: {
        memory: { command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: join(dir, `m${managers.length}.jsonl`) } },
        filesystem: { command: NODE, args: [FILESYSTEM, dir] },
        everything: { command: NODE, args: [EVERYTHING, "stdio"] },
      },
    } as never,
    { registry: runtime, ...(validateArguments ? { validateArguments } : {}) },
  );
  managers.push(manager);
  return { manager, runtime };
}

const failure = (r: { ok: boolean; failure?: ToolFailure }) => {
  expect(r.ok).toBe(false);
  expect(validateFailure(r.failure)).toEqual([]);
  return r.failure as ToolFailure;
};

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "tw-manager-parity-")));
});
afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  rmSync(dir, { recursive: true, force: true });
});

describe("manager.callTool validates against the live inputSchema", () => {
  it("gives the generated codec's field issues before anything is sent", async () => {
    const { manager } = start();
    await manager.start();
    const args = { entities: [{ name: "Ada", entityType: 7, observations: "wrote" }] };
    const viaManager = failure(await manager.callTool("memory.create_entities", args));
    const viaCodec = memorySpecMap.create_entities.decodePayload(args);
    expect(viaCodec.ok).toBe(false);
    expect(viaManager).toMatchObject({ kind: "invalid_call", recovery: { action: "correct_call", priorInput: args } });
    expect(viaManager.recovery.issues).toEqual(viaCodec.ok ? [] : viaCodec.issues);
    // Nothing reached the server: the graph is still empty.
    const graph = await manager.callTool("memory.read_graph", {});
    expect(graph.ok && graph.structured).toEqual({ entities: [], relations: [] });
  });

  it("refuses an unknown name with the closest names, like the runtime", async () => {
    const { manager } = start();
    await manager.start();
    const typo = failure(await manager.callTool("memory.create_entitis", {}));
    expect(typo).toMatchObject({ kind: "invalid_call", reason: "tool_unavailable", recovery: { action: "replan" } });
    expect(typo.suggestions?.[0]).toBe("create_entities");
    const nowhere = failure(await manager.callTool("nowhere.read", {}));
    expect(nowhere.reason).toBe("tool_unavailable");
  });

  it("with validation off, the server's 'MCP error -32602: Input validation error' maps to correct_call", async () => {
    const { manager } = start("off");
    await manager.start();
    const args = { entities: "nope" };
    const rejected = failure(await manager.callTool("memory.create_entities", args));
    expect(rejected.message).toMatch(/MCP error -32602: Input validation error/);
    expect(rejected).toMatchObject({ kind: "domain_rejection", recovery: { action: "correct_call", priorInput: args } });
  });
});

describe("provider adapters over the manager's live registry", () => {
  it("the mirrored specs validate too: a bad call comes back as a rendered correction, a good one runs", async () => {
    const { manager, runtime } = start();
    await manager.start();
    const tools = createProviderTools(runtime, { format: "openai-chat" });
    const definitions = tools.definitions();
    expect(definitions.length).toBe(manager.tools().length);
    const { outcomes, messages } = await tools.run({
      tool_calls: [
        {
          id: "a",
          type: "function",
          function: { name: "create_entities", arguments: '{"entities":[{"name":"Ada","entityType":"person","observations":[]}]}' },
        },
        { id: "b", type: "function", function: { name: "open_nodes", arguments: '{"names":"Ada"}' } },
      ],
    });
    expect(outcomes.map((o) => o.result.ok)).toEqual([true, false]);
    expect(messages[1]?.content).toMatch(/- names is invalid \(invalid field type\); expected array; got "Ada"/);
    expect(problemsOf(tools.problems())).toEqual([]);
  });

  it("the live catalogues certify for every provider without errors (rewrites listed per provider)", async () => {
    const { manager } = start();
    await manager.start();
    const byServer = new Map<string, number>();
    for (const t of manager.tools()) byServer.set(t.server, (byServer.get(t.server) ?? 0) + 1);
    expect(Object.fromEntries(byServer)).toMatchObject({ memory: 9, filesystem: 14 });
    expect(byServer.get("everything")).toBeGreaterThanOrEqual(10);
    const rewrites: { [key: string]: { [key: string]: number } } = {};
    for (const provider of SCHEMA_PROVIDERS) {
      for (const t of manager.tools()) {
        for (const note of providerSchema(t.descriptor.inputSchema, provider).notes) {
          expect(note.severity, `${provider} ${t.id} ${note.message}`).not.toBe("error");
          const key = `${t.server} ${provider}`;
          rewrites[key] ??= {};
          const k = `${note.severity}:${note.keyword}`;
          (rewrites[key] as { [key: string]: number })[k] = ((rewrites[key] as { [key: string]: number })[k] ?? 0) + 1;
        }
      }
    }
    // OpenAI strict mode needs rewrites on every catalogue (closed objects at least); Anthropic none.
    for (const server of ["memory", "filesystem", "everything"]) {
      expect(Object.keys(rewrites[`${server} openai`] ?? {})).toContain("info:additionalProperties");
      expect(rewrites[`${server} anthropic`]).toBeUndefined();
    }
    console.log(`schema rewrites on the live catalogues: ${JSON.stringify(rewrites)}`);
  });
});

function problemsOf(p: readonly { tool: string }[]): string[] {
  return p.map((x) => x.tool);
}
