/**
 * Class 4 of #18: a secret the allowlist passes to a server comes back in a failure through every
 * path that builds one: an `isError` result's text (invokeTool, the runtime registry,
 * manager.callTool), a JSON-RPC error's message and data (raw caller, typed path, manager), and a
 * third-party caller's own failure. The real server echoes the secret it was given; no failure may
 * hold it anywhere (message, content, rpc.data, evidence, keys included).
 */

import { randomBytes } from "node:crypto";
import { createRuntime, type ToolFailure } from "@toolwright/runtime";
import { callerFunc } from "@toolwright/runtime/caller";
import { invokeTool, type ToolSpec } from "@toolwright/runtime/codegen";
import { createMcpManager, parseMcpConfig } from "@toolwright/runtime/manager";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { renderFailure } from "../../packages/runtime/src/planner/render.js";
import { HOSTILE_STDIO_SERVER } from "../support/hostile-stdio-server.js";
import { guardLeaks } from "../support/leak-guard.js";

const SECRET = `tw-secret-${randomBytes(8).toString("hex")}`;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(() => {
  process.env.MY_TOKEN = SECRET;
});
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});
guardLeaks(async () => {
  delete process.env.MY_TOKEN;
});

const spec = (name: string): ToolSpec => ({
  id: `hostile.${name}`,
  toolset: "hostile",
  name,
  providerName: name,
  inputSchema: { type: "object" },
  decodePayload: (value: unknown) => ({ ok: true, value }),
});

function openCaller() {
  const caller = createStdioCaller({ name: "hostile", command: process.execPath, args: [HOSTILE_STDIO_SERVER], env: ["MY_TOKEN"] });
  cleanups.push(() => caller.close());
  return caller;
}

/** The failure holds no secret in any string (keys too), and says where it was redacted. */
function expectClean(failure: ToolFailure | undefined): void {
  expect(failure).toBeDefined();
  const text = JSON.stringify(failure);
  expect(text).not.toContain(SECRET);
  expect(renderFailure(failure as ToolFailure)).not.toContain(SECRET);
  expect(text).toContain("[redacted]");
}

describe("the server really echoes the secret it was given", () => {
  it("the env tool shows MY_TOKEN reached the child, so the checks below are not vacuous", async () => {
    const caller = openCaller();
    const env = await caller.callTool({ name: "env", arguments: {} });
    expect(env.ok && JSON.stringify(env.value)).toContain(SECRET);
  });
});

describe("isError text and JSON-RPC errors, through every path", () => {
  it("invokeTool: the isError result and the error's message and data", async () => {
    const caller = openCaller();
    const leak = await invokeTool(caller, spec("leak"), {});
    expect(leak).toMatchObject({ ok: false, failure: { kind: "domain_rejection" } });
    expectClean(leak.ok ? undefined : leak.failure);
    expect(leak.ok || leak.failure.message).toBe("token rejected: [redacted]");
    const data = await invokeTool(caller, spec("leak_data"), {});
    expect(data).toMatchObject({ ok: false, failure: { rpc: { code: -32603 } } });
    expectClean(data.ok ? undefined : data.failure);
  });

  it("the raw caller's JSON-RPC error: message and data", async () => {
    const caller = openCaller();
    const raw = await caller.callTool({ name: "leak_data", arguments: {} });
    expect(raw.ok).toBe(false);
    expectClean(raw.ok ? undefined : raw.failure);
    expect(raw.ok || raw.failure.rpc?.data).toEqual({ echoed: "[redacted]", nested: [{ "[redacted]": "[redacted]" }] });
  });

  it("the runtime registry: execute on a registered toolset", async () => {
    const caller = openCaller();
    const runtime = createRuntime();
    runtime.registerToolset({ toolset: "hostile", specs: [spec("leak"), spec("leak_data")], caller });
    for (const tool of ["hostile.leak", "hostile.leak_data"]) {
      const result = await runtime.execute({ tool, arguments: {} });
      expectClean(result.ok ? undefined : result.failure);
    }
  });

  it("manager.callTool, with the secret given through mcp.json ${VAR}", async () => {
    const text = JSON.stringify({
      mcpServers: { hostile: { command: process.execPath, args: [HOSTILE_STDIO_SERVER], env: { MY_TOKEN: ["$", "{MY_TOKEN}"].join("") } } },
    });
    const manager = createMcpManager(parseMcpConfig(text, { env: { MY_TOKEN: SECRET } }));
    cleanups.push(() => manager.stop());
    await manager.start();
    const env = await manager.callTool("hostile.env", {});
    expect(env.ok && env.value).toContain(SECRET);
    for (const tool of ["leak", "hostile.leak_data"]) {
      const result = await manager.callTool(tool, {});
      expect(result.ok).toBe(false);
      expectClean(result.ok ? undefined : result.failure);
    }
  });

  it("a third-party caller's own failure is scrubbed too while a caller holding the secret is open", async () => {
    openCaller();
    const thirdParty = callerFunc("other", () => ({
      ok: false,
      failure: {
        kind: "internal",
        message: `upstream said ${SECRET}`,
        recovery: { action: "replan" },
        tool: "x",
        server: "other",
        retryable: false,
      },
    }));
    const result = await invokeTool(thirdParty, spec("x"), {});
    expectClean(result.ok ? undefined : result.failure);
  });
});
