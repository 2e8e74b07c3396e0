/**
 * Class 7 of #18: a `tools/call` result that breaks the protocol's shape is `malformed_result` with
 * the evidence (which field, what was expected, what came), on the raw caller, the typed path and
 * the manager, from a real stdio server that answers the broken result verbatim; and the same for
 * a third-party caller's result through invokeTool.
 */

import { callerFunc } from "@toolwright/runtime/caller";
import { invokeTool, type ToolSpec } from "@toolwright/runtime/codegen";
import { createMcpManager, type HttpClientFactory, type ServerClient } from "@toolwright/runtime/manager";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { beforeAll, describe, expect, it } from "vitest";
import { isToolFailure } from "../../packages/runtime/src/failure/failure.js";
import { HOSTILE_STDIO_SERVER } from "../support/hostile-stdio-server.js";
import { guardLeaks } from "../support/leak-guard.js";

let caller: StdioCaller;

beforeAll(() => {
  caller = createStdioCaller({ name: "hostile", command: process.execPath, args: [HOSTILE_STDIO_SERVER] });
});
guardLeaks(async () => {
  await caller.close();
});

const spec: ToolSpec = {
  id: "hostile.malformed",
  toolset: "hostile",
  name: "malformed",
  providerName: "malformed",
  inputSchema: { type: "object" },
  decodePayload: (value: unknown) => ({ ok: true, value }),
};

/** Broken results and the issue each must report. */
const CASES: readonly [string, unknown, { field: string; constraint: string; expected?: string; actual?: unknown }][] = [
  [
    "content is a string",
    { content: "oops, not an array" },
    { field: "content", constraint: "invalid_field_type", expected: "array", actual: "oops, not an array" },
  ],
  [
    "content is an object",
    { content: { type: "text", text: "x" } },
    { field: "content", constraint: "invalid_field_type", expected: "array" },
  ],
  ["a block without type", { content: [{ text: "hi" }] }, { field: "content[0].type", constraint: "missing_field" }],
  ["a block that is a string", { content: ["hi"] }, { field: "content[0]", constraint: "invalid_field_type", actual: "hi" }],
  [
    "a text block whose text is a number",
    { content: [{ type: "text", text: 42 }] },
    { field: "content[0].text", constraint: "invalid_field_type", actual: 42 },
  ],
  [
    "an image without data",
    { content: [{ type: "image", mimeType: "image/png" }] },
    { field: "content[0].data", constraint: "missing_field" },
  ],
  [
    "a resource without uri",
    { content: [{ type: "resource", resource: { text: "x" } }] },
    { field: "content[0].resource.uri", constraint: "invalid_field_type" },
  ],
  [
    "structuredContent is an array",
    { content: [], structuredContent: [1, 2] },
    { field: "structuredContent", constraint: "invalid_field_type", expected: "object" },
  ],
  [
    "structuredContent is a string",
    { content: [], structuredContent: "42" },
    { field: "structuredContent", constraint: "invalid_field_type", actual: "42" },
  ],
  [
    "isError is a string",
    { content: [], isError: "yes" },
    { field: "isError", constraint: "invalid_field_type", expected: "boolean", actual: "yes" },
  ],
  ["the result is a number", 7, { field: "", constraint: "invalid_field_type", actual: 7 }],
];

describe("a real server answers broken results", () => {
  it.each(CASES)("%s: malformed_result / replan with the issue as evidence, raw and typed", async (_name, result, issue) => {
    const raw = await caller.callTool({ name: "malformed", arguments: { result } });
    expect(raw.ok).toBe(false);
    if (raw.ok) return;
    expect(raw.failure).toMatchObject({ kind: "malformed_result", recovery: { action: "replan" }, retryable: false, server: "hostile" });
    expect(raw.failure.recovery.issues).toEqual(expect.arrayContaining([expect.objectContaining(issue)]));
    expect(isToolFailure(raw.failure)).toBe(true);
    const typed = await invokeTool(caller, spec, { result });
    expect(typed).toMatchObject({ ok: false, failure: { kind: "malformed_result", tool: "hostile.malformed" } });
    expect(typed.ok || typed.failure.recovery.issues).toEqual(expect.arrayContaining([expect.objectContaining(issue)]));
  });

  it("the content kept as evidence when it is an array; a well-formed result still passes", async () => {
    const broken = await caller.callTool({
      name: "malformed",
      arguments: { result: { content: [{ type: "text", text: "a" }, { nope: 1 }] } },
    });
    expect(broken.ok || broken.failure.content).toEqual([{ type: "text", text: "a" }, { nope: 1 }]);
    const fine = await invokeTool(caller, spec, { result: { content: [{ type: "text", text: "fine" }], structuredContent: { a: 1 } } });
    expect(fine).toMatchObject({ ok: true, value: "fine" });
    const future = await invokeTool(caller, spec, { result: { content: [{ type: "hologram", frames: 3 }] } });
    expect(future.ok).toBe(true);
  });

  it("manager.callTool maps the same way", async () => {
    const manager = createMcpManager({
      mcpServers: { hostile: { transport: "stdio", command: process.execPath, args: [HOSTILE_STDIO_SERVER], env: {} } },
    });
    try {
      await manager.start();
      const result = await manager.callTool("malformed", { result: { content: "oops, not an array" } });
      expect(result).toMatchObject({
        ok: false,
        failure: { kind: "malformed_result", recovery: { action: "replan" }, tool: "hostile.malformed" },
      });
      expect(result.ok || result.failure.message).toMatch(/content is not array/);
    } finally {
      await manager.stop();
    }
  });
});

it("a custom HTTP client factory's broken result through manager.callTool is malformed_result too", async () => {
  // The built-in callers' sessions check every result's shape, and the manager then skips its own
  // check; a custom factory's client (here one that answers a canned result) gets the full check.
  let answer: unknown;
  const createHttpClient: HttpClientFactory = (o) =>
    ({
      server: o.name,
      handshake: undefined,
      connect: async () => ({
        ok: true,
        value: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "x", version: "1" } },
      }),
      listTools: async () => ({ ok: true, value: [{ name: "canned", inputSchema: { type: "object" } }] }),
      callTool: async () => ({ ok: true, value: answer }),
      close: async () => {},
    }) as unknown as ServerClient;
  const manager = createMcpManager(
    { mcpServers: { custom: { transport: "http", url: "http://127.0.0.1:9/mcp", headers: {} } } },
    { client: { createHttpClient } },
  );
  try {
    await manager.start();
    answer = { content: "oops, not an array" };
    const broken = await manager.callTool("custom.canned", {});
    expect(broken).toMatchObject({
      ok: false,
      failure: { kind: "malformed_result", tool: "custom.canned", recovery: { action: "replan", issues: [{ field: "content" }] } },
    });
    // A result with no content at all is tolerated, as the sessions tolerate it: content reads [].
    answer = { structuredContent: { n: 1 } };
    expect(await manager.callTool("custom.canned", {})).toEqual({ ok: true, value: "", content: [], structured: { n: 1 } });
  } finally {
    await manager.stop();
  }
});

it("a third-party caller's broken result through invokeTool is malformed_result too", async () => {
  const thirdParty = callerFunc("other", () => ({ ok: true, value: { content: "oops" } as never }));
  const result = await invokeTool(thirdParty, spec, {});
  expect(result).toMatchObject({
    ok: false,
    failure: { kind: "malformed_result", recovery: { action: "replan", issues: [{ field: "content" }] } },
  });
});
