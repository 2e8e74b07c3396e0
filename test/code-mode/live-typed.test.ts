/**
 * Code mode over the manager's live registry is type-checked (issue 27, item 6): no `toolwright gen`
 * ran, so the declarations come from the live tool schemas of a real server-everything over stdio.
 * A wrong field type, a wrong enum value and an unknown tool come back as diagnostics and nothing
 * reaches the server; a correct program runs against the real server.
 */
import { createCodeModeTools } from "@toolwright/code-mode";
import { createRuntime } from "@toolwright/runtime";
import { createMcpManager } from "@toolwright/runtime/manager";
import { createProviderTools } from "@toolwright/runtime/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING, NODE } from "../manager/helpers.js";

const runtime = createRuntime();
const manager = createMcpManager({ mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"] } } } as never, {
  registry: runtime,
});
let sent = 0;
beforeAll(async () => {
  await manager.start();
});
afterAll(async () => {
  await manager.stop();
});

/** The registry as the provider binding sees it, counting every call that reaches a server. */
const counted = {
  specs: () => runtime.specs(),
  lookup: (tool: string) => runtime.lookup(tool),
  execute: (request: Parameters<typeof runtime.execute>[0], options?: Parameters<typeof runtime.execute>[1]) => {
    sent++;
    return runtime.execute(request, options);
  },
};

describe("code mode over a live registry (no gen) is type-checked from the live schemas", () => {
  const tools = () =>
    createProviderTools(counted as never, { format: "openai-chat", codeMode: { plugin: createCodeModeTools(), mode: "code" } });

  it("says TypeScript, and a correct program runs against the real server", async () => {
    const t = tools();
    expect(t.definitions()[0]?.function.description).toContain("It is type-checked first");
    const ok = await t.runCall({
      id: "a",
      name: "run_code",
      arguments: { code: `const r = await everything.getSum({ a: 2, b: 40 });\nreturn JSON.stringify(r).includes("42");` },
    });
    expect(ok.result.ok).toBe(true);
    expect(ok.text).toBe("true");
    expect(sent).toBe(1);
  });

  it("wrong field types, unknown tools and unknown fields fail the check with positions; nothing is sent", async () => {
    const before = sent;
    const bad = await tools().runCall({
      id: "b",
      name: "run_code",
      arguments: {
        code: [
          `await everything.echo({ message: "hi" });`,
          `const s = await everything.getSum({ a: "2", b: 40 });`,
          `await everything.noSuchTool({});`,
          `await everything.echo({ message: "x", volume: 3 });`,
        ].join("\n"),
      },
    });
    expect(bad.result.ok).toBe(false);
    const failure = bad.result.ok ? undefined : (bad.result.failure as { tool: string; diagnostics?: { line: number; message: string }[] });
    expect(failure?.tool).toBe("run_code");
    const lines = (failure?.diagnostics ?? []).map((d) => d.line);
    expect(lines).toEqual([2, 3, 4]);
    expect(failure?.diagnostics?.[0]?.message).toMatch(/string.*not assignable.*number/);
    expect(failure?.diagnostics?.[1]?.message).toMatch(/noSuchTool/);
    expect(failure?.diagnostics?.[2]?.message).toMatch(/volume/);
    // Nothing ran: not even the correct first line's echo.
    expect(sent).toBe(before);
  });

  it("typeCheck: false keeps programs plain JavaScript", async () => {
    const t = createProviderTools(counted as never, {
      format: "openai-chat",
      codeMode: { plugin: createCodeModeTools({ typeCheck: false }), mode: "code" },
    });
    expect(t.definitions()[0]?.function.description).toContain("not type-checked");
    const r = await t.runCall({ id: "c", name: "run_code", arguments: { code: `const x: number = 1; return x;` } });
    expect(r.result.ok).toBe(false);
  });
});
