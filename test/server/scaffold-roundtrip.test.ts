/**
 * Round trip: the server generated from an `mcpServer` declaration (test/golden/mcp-server-scaffold)
 * is served over stdio (a real child process through tsx) and streamable HTTP (127.0.0.1, port 0),
 * and called by its own generated client through createStdioCaller / createHttpCaller. Inputs are
 * validated before the handler runs; structured outputs are validated before they are sent. The
 * declared prompt, resource and template are served by the typed handlers and read through the
 * client's typed `getExplainPrompt`, `readConstants` and `readHistory`.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { createHttpCaller } from "@toolwright/runtime/http";
import type { ServeHandle } from "@toolwright/runtime/server";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calcSpecs, createCalcClient } from "../golden/mcp-server-scaffold/expected/calc/index.js";
import { calcServerInfo, serveCalcServer } from "../golden/mcp-server-scaffold/expected/servers/calc/index.js";
import { calcCompletions, calcHandlers, handlerCalls } from "./fixtures/scaffold-calc-handlers.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);
const tsxCli = fileURLToPath(new URL("dist/cli.mjs", `file://${require.resolve("tsx/package.json")}`));
const script = fileURLToPath(new URL("./fixtures/scaffold-calc-serve.ts", import.meta.url));

let http: ServeHandle | undefined;
const callers: SessionCaller[] = [];

beforeAll(async () => {
  // The stdio child imports @toolwright/runtime through its package exports (dist).
  const build = spawnSync(join(repo, "node_modules", ".bin", "tsc"), ["-b", "packages/dsl", "packages/runtime"], {
    cwd: repo,
    encoding: "utf8",
  });
  expect(build.status, build.stdout).toBe(0);
  http = await serveCalcServer(calcHandlers, { transport: "http", port: 0, host: "127.0.0.1" }, { completions: calcCompletions });
}, 120_000);

afterAll(async () => {
  await Promise.all(callers.map((c) => c.close?.()));
  await http?.close();
});

const transports: [string, () => SessionCaller][] = [
  [
    "stdio",
    () => createStdioCaller({ name: "calc", command: process.execPath, args: [tsxCli, script], cwd: repo, connectTimeoutMs: 30_000 }),
  ],
  ["streamable HTTP", () => createHttpCaller({ name: "calc", url: http?.url as string })],
  [
    "stdio, stateless 2026-07-28",
    () =>
      createStdioCaller({
        name: "calc",
        command: process.execPath,
        args: [tsxCli, script],
        cwd: repo,
        connectTimeoutMs: 30_000,
        era: "2026-07-28",
      }),
  ],
  ["streamable HTTP, stateless 2026-07-28", () => createHttpCaller({ name: "calc", url: http?.url as string, era: "2026-07-28" })],
];

describe.each(transports)("generated calc server over %s, called by its generated client", (label, make) => {
  let caller: SessionCaller;
  beforeAll(() => {
    caller = make();
    callers.push(caller);
  });

  it("lists exactly the declared tools with their schemas and annotations", async () => {
    const listed = await caller.listTools?.({ timeoutMs: 30_000 });
    if (!listed?.ok) throw new Error(`list failed: ${listed?.failure.message}`);
    expect(listed.value.map((t) => t.name)).toEqual(calcSpecs.map((s) => s.name));
    for (const spec of calcSpecs) {
      const t = listed.value.find((x) => x.name === spec.name);
      const dialect = "https://json-schema.org/draft/2020-12/schema";
      expect(t?.inputSchema).toEqual({ $schema: dialect, ...spec.inputSchema });
      expect(t?.outputSchema).toEqual(spec.outputSchema && { $schema: dialect, ...spec.outputSchema });
    }
    expect(listed.value[0]?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    expect(listed.value[2]?._meta).toEqual({ "example.com/category": "text" });
  });

  it("typed calls round-trip: structured results decode, text results join", async () => {
    const calc = createCalcClient(caller);
    const sum = await calc.add({ a: 1.5, b: 2 }, { timeoutMs: 30_000 });
    expect(sum.ok && sum.value).toEqual({ sum: 3.5 });
    const half = await calc.divide({ a: 1, b: 2 });
    expect(half.ok && half.value).toBe("0.5");
    const words = await calc.splitWords({ text: "one two  three", limit: 2 });
    expect(words.ok && words.value).toEqual({ words: ["one", "two"], count: 2 });
    const zero = await calc.divide({ a: 1, b: 0 });
    expect(zero.ok).toBe(false);
    expect(!zero.ok && zero.failure.message).toContain("Cannot divide by zero");
  });

  it("the server validates input before the handler runs (field issues in _meta)", async () => {
    const before = handlerCalls.length;
    const raw = await caller.callTool({ name: "split-words", arguments: { text: "", limit: 500 } });
    // In-process (HTTP) the handler's own log shows it never ran.
    if (label.startsWith("streamable HTTP")) expect(handlerCalls.length).toBe(before);
    expect(raw.ok && raw.value.isError).toBe(true);
    const issues = (raw.ok && (raw.value._meta?.["io.toolwright/issues"] as { field: string; constraint: string }[])) || [];
    expect(issues.map((i) => `${i.field}:${i.constraint}`).sort()).toEqual(["limit:invalid_range", "text:invalid_length"]);
  });

  it("prompt, resource and template: listed as declared, got and read through the typed client", async () => {
    const calc = createCalcClient(caller);
    const prompt = await calc.getExplainPrompt({ operation: "divide", style: "long" }, { timeoutMs: 30_000 });
    if (!prompt.ok) throw new Error(prompt.failure.message);
    expect(prompt.value.messages).toEqual([{ role: "user", content: { type: "text", text: "Explain divide in a long answer." } }]);
    const constants = await calc.readConstants();
    if (!constants.ok) throw new Error(constants.failure.message);
    expect(constants.value).toEqual([
      { uri: "calc://constants", mimeType: "application/json", text: JSON.stringify({ pi: Math.PI, e: Math.E }) },
    ]);
    const day = await calc.readHistory({ day: "2026-12-01", entry: "3" });
    expect(day.ok && day.value).toEqual([
      {
        uri: "calc://history/2026-12-01?entry=3",
        mimeType: "text/plain",
        text: "calc://history/2026-12-01?entry=3: day 2026-12-01, entry 3",
      },
    ]);
    // The optional {?entry} left out of the URI reaches the handler as "".
    const all = await caller.readResource("calc://history/2026-12-02");
    expect(all?.ok && all.value[0]).toMatchObject({ text: "calc://history/2026-12-02: day 2026-12-02, entry (all)" });
    // The server refuses a prompt without its required argument before the handler runs.
    const before = handlerCalls.length;
    const missing = await caller.getPrompt("explain", {});
    expect(missing?.ok).toBe(false);
    expect(!missing?.ok && missing?.failure.message).toMatch(/operation/);
    if (label.startsWith("streamable HTTP")) expect(handlerCalls.length).toBe(before);
    const prompts = await caller.listPrompts();
    expect(prompts?.ok && prompts.value).toEqual([
      {
        name: "explain",
        title: "Explain a result",
        description: "Asks the model to explain an operation",
        arguments: [
          { name: "operation", description: "add, divide or split-words", required: true },
          { name: "style", description: "short or long" },
        ],
      },
    ]);
    const resources = await caller.listResources();
    expect(resources?.ok && resources.value).toEqual([
      { uri: "calc://constants", name: "constants", description: "Named constants as JSON", mimeType: "application/json" },
    ]);
    const templates = await caller.listResourceTemplates();
    expect(templates?.ok && templates.value).toEqual([
      { uriTemplate: "calc://history/{day}{?entry}", name: "history", description: "One day of results", mimeType: "text/plain" },
    ]);
  });

  it("typed completers answer completion/complete for the prompt's argument and the template's variable", async () => {
    const op = await caller.complete({ type: "ref/prompt", name: "explain" }, { name: "operation", value: "d" });
    expect(op.ok && op.value.values).toEqual(["divide"]);
    const day = await caller.complete({ type: "ref/resource", uri: "calc://history/{day}{?entry}" }, { name: "day", value: "2026-12" });
    expect(day.ok && day.value.values).toEqual(["2026-12-01", "2026-12-02"]);
    // No completer for "style": an empty answer, not an error.
    const style = await caller.complete({ type: "ref/prompt", name: "explain" }, { name: "style", value: "s" });
    expect(style.ok && style.value.values).toEqual([]);
  });

  it("the server validates structured output against the output schema", async () => {
    const raw = await caller.callTool({ name: "split-words", arguments: { text: "BAD" } });
    expect(raw.ok && raw.value.isError).toBe(true);
    expect(raw.ok && raw.value.structuredContent).toBeUndefined();
    if (label.startsWith("streamable HTTP")) expect(handlerCalls.at(-1)).toBe("split-words");
  });
});

it("serverInfo comes from the declaration", () => {
  expect(calcServerInfo).toEqual({
    name: "calc",
    version: "1.2.0",
    title: "Calculator",
    protocolVersion: "2025-11-25",
    instructions: "Small arithmetic.",
  });
});
