/**
 * A mock with handlers out of process: the `toolwright mock` child imports the test's handlers
 * module (`--handlers`, or `startMock(..., { transport: "stdio", handlers })`) and answers with it,
 * over stdio and over streamable HTTP on 127.0.0.1. The answers come from the child (its pid is in
 * them), are checked against the output schema there as in memory, and are recorded for the
 * parent. A handlers path that is not a file, or a module that does not fit the toolset, is
 * refused with the path named.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createHttpCaller } from "@toolwright/runtime/http";
import { type RunningMock, startMock } from "@toolwright/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createEverythingClient } from "../../examples/catalogues/src/gen/everything/client.gen.js";
import { createEverythingMock } from "../../examples/catalogues/src/gen/everything/mock.gen.js";
import { runToolwright, TOOLWRIGHT_CLI } from "../support/toolwright-cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const OUT = "examples/catalogues/src/gen";
const HANDLERS = "test/testkit/fixtures/everything-handlers.ts";

let running: RunningMock | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe("startMock over stdio with a handlers module", () => {
  it("the child answers with the module's handlers, checks each answer, and the parent reads calls and failures", async () => {
    running = await startMock(createEverythingMock(), { transport: "stdio", out: OUT, cwd: root, handlers: HANDLERS });
    expect(running.command?.args).toContain("--handlers");
    const client = createEverythingClient(running.caller);
    const echo = await client.echo({ message: "hi" });
    expect(echo.ok).toBe(true);
    const pid = Number(/pid (\d+)/.exec(echo.ok ? echo.value : "")?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(process.pid);
    expect(echo).toMatchObject({ ok: true, value: `Echo from pid ${pid}: hi` });
    expect(await client.getSum({ a: 2, b: 40 })).toMatchObject({ ok: true, value: "The sum of 2 and 40 is 42 (call 1)." });
    expect(await client.getStructuredContent({ location: "Chicago" })).toMatchObject({
      ok: true,
      value: { temperature: 22.5, conditions: "Partly cloudy", humidity: 65 },
    });
    const broken = await client.getStructuredContent({ location: "New York" });
    expect(broken.ok).toBe(false);
    expect(broken.ok ? "" : broken.failure.message).toContain(
      "mock everything.get-structured-content: the handler's answer breaks the output schema",
    );
    expect(running.calls.map((c) => c.tool)).toEqual(["echo", "get-sum", "get-structured-content", "get-structured-content"]);
    expect(running.failures).toHaveLength(1);
    expect(running.failures[0]).toMatchObject({ tool: "get-structured-content", call: 2 });
    expect(running.failures[0]?.message).toMatch(/humidity/);
  });

  it("a full result from the child arrives as sent, and each call's _meta reaches the parent's record", async () => {
    running = await startMock(createEverythingMock(), { transport: "stdio", out: OUT, cwd: root, handlers: HANDLERS });
    const meta = { "io.example/idempotency-key": "wf-1:step-3", progressToken: "p-9" };
    const la = await running.caller.callTool({ name: "get-structured-content", arguments: { location: "Los Angeles" }, meta });
    expect(la.ok).toBe(true);
    const value = la.ok ? la.value : undefined;
    expect(value?.content).toEqual([{ type: "text", text: expect.stringMatching(/^Los Angeles: 18 °C, rain \(pid \d+\)$/) }]);
    expect(value?.structuredContent).toEqual({ temperature: 18, conditions: "Rain", humidity: 90 });
    expect(value?._meta).toMatchObject({ "example/station": "LFPG" });
    await running.caller.callTool({ name: "echo", arguments: { message: "no meta" } });
    const [first, second] = running.calls;
    expect(first?._meta).toMatchObject(meta);
    expect(second?._meta).not.toHaveProperty("io.example/idempotency-key");
    expect(running.failures).toEqual([]);
  });

  it("takes a file URL too", async () => {
    const url = pathToFileURL(join(root, HANDLERS));
    running = await startMock(createEverythingMock(), { transport: "stdio", out: OUT, cwd: root, handlers: url });
    const sum = await createEverythingClient(running.caller).getSum({ a: 1, b: 1 });
    expect(sum).toMatchObject({ ok: true, value: "The sum of 1 and 1 is 2 (call 1)." });
  });

  it("refuses a path that is not a file, naming it, before any child starts", async () => {
    await expect(startMock(createEverythingMock(), { transport: "stdio", out: OUT, cwd: root, handlers: "test/testkit" })).rejects.toThrow(
      /handlers "test\/testkit" is not a file \(resolved to ".*test\/testkit"\)/,
    );
    await expect(startMock(createEverythingMock(), { transport: "stdio", out: OUT, cwd: root, handlers: "no/such.ts" })).rejects.toThrow(
      /handlers "no\/such\.ts" is not a file/,
    );
    await expect(startMock(createEverythingMock(), { transport: "http", handlers: HANDLERS })).rejects.toThrow(
      /a handlers module is for the stdio child/,
    );
  });
});

describe("toolwright mock --handlers", () => {
  it("over HTTP on 127.0.0.1: the child serves the module's answers", async () => {
    const child = spawn(
      process.execPath,
      [TOOLWRIGHT_CLI, "mock", "--out", OUT, "--toolset", "everything", "--http", "--handlers", HANDLERS],
      {
        cwd: root,
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    try {
      const url = await new Promise<string>((done, fail) => {
        let err = "";
        child.stderr.on("data", (chunk: Buffer) => {
          err += chunk.toString();
          const m = /serving toolset "everything" at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(err);
          if (m?.[1]) done(m[1]);
        });
        child.once("exit", (code) => fail(new Error(`toolwright mock exited ${code}: ${err}`)));
      });
      const caller = createHttpCaller({ name: "everything", url });
      try {
        const client = createEverythingClient(caller);
        const echo = await client.echo({ message: "over http" });
        expect(echo).toMatchObject({ ok: true, value: `Echo from pid ${child.pid}: over http` });
        const broken = await client.getStructuredContent({ location: "New York" });
        expect(broken.ok ? "" : broken.failure.message).toContain("the handler's answer breaks the output schema");
      } finally {
        await caller.close();
      }
    } finally {
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  });

  it.each([
    ["a folder", "test/testkit", /--handlers "test\/testkit": not a file/],
    ["a missing file", "test/testkit/nope.ts", /--handlers "test\/testkit\/nope\.ts": no such file/],
    [
      "a handler for no tool",
      "test/testkit/fixtures/bad-handlers.ts",
      /toolset "everything" has no tool for handler "launchRockets" \(handlers: "echo", /,
    ],
    ["a module with no handlers object", "test/testkit/fixtures/no-default-handlers.ts", /default export must be the handlers object/],
  ])("refuses %s with exit 2, naming the path", async (_what, path, message) => {
    const run = await runToolwright(["mock", "--out", OUT, "--toolset", "everything", "--handlers", path], {
      cwd: root,
      killAfterMs: 60_000,
    });
    expect(run.output).toMatch(message);
    expect(run.status).toBe(2);
  });
});
