/**
 * The generated mock of server-everything's real lock (examples/catalogues, pulled from the npm
 * server) runs three ways, and one planner, written once against the generated typed client, runs
 * unchanged against each: in memory, over streamable HTTP on 127.0.0.1, and over stdio (the
 * `toolwright mock` command as a child process). The mock records what it was called with.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Caller } from "@toolwright/runtime";
import { createHttpCaller } from "@toolwright/runtime/http";
import { type RunningMock, startMock } from "@toolwright/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createEverythingClient } from "../../examples/catalogues/src/gen/everything/client.gen.js";
import { createEverythingMock } from "../../examples/catalogues/src/gen/everything/mock.gen.js";
import { createMemoryClient } from "../../examples/catalogues/src/gen/memory/client.gen.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const join = (...parts: string[]) => parts.join("/");

/** The planner under test: only the generated typed client, never the transport. */
async function planner(caller: Caller) {
  const client = createEverythingClient(caller);
  const echo = await client.echo({ message: "hello" });
  const sum = await client.getSum({ a: 2, b: 40 });
  const weather = await client.getStructuredContent({ location: "Chicago" });
  if (!echo.ok || !sum.ok || !weather.ok) return { ok: false as const, failures: [echo, sum, weather].filter((r) => !r.ok) };
  return { ok: true as const, echo: echo.value, sum: sum.value, weather: weather.value };
}

const handlers = {
  echo: ({ message }: { message: string }) => `Echo: ${message}`,
  getSum: ({ a, b }: { a: number; b: number }) => `The sum of ${a} and ${b} is ${a + b}.`,
  getStructuredContent: () => ({ temperature: 22.5, conditions: "Partly cloudy", humidity: 65 }),
};

let running: RunningMock | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe("one planner, three transports, one generated mock", () => {
  for (const transport of ["memory", "http"] as const) {
    it(`${transport}: handlers answer, typed results arrive, calls are recorded`, async () => {
      running = await startMock(createEverythingMock(handlers), { transport });
      if (transport === "http") expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(running.server?.info.name).toBe("everything");
      const out = await planner(running.caller);
      expect(out).toEqual({
        ok: true,
        echo: "Echo: hello",
        sum: "The sum of 2 and 40 is 42.",
        weather: { temperature: 22.5, conditions: "Partly cloudy", humidity: 65 },
      });
      expect(running.calls.map((c) => [c.tool, c.call, c.seq])).toEqual([
        ["echo", 1, 1],
        ["get-sum", 1, 2],
        ["get-structured-content", 1, 3],
      ]);
      expect(running.callsTo("get-sum")[0]?.arguments).toEqual({ a: 2, b: 40 });
      expect(running.failures).toEqual([]);
    });
  }

  it("stdio: `toolwright mock` serves the defaults from the lock, and the parent reads the calls", async () => {
    running = await startMock(createEverythingMock(), { transport: "stdio", out: "examples/catalogues/src/gen", cwd: root });
    expect(running.command?.args).toContain("mock");
    const out = await planner(running.caller);
    expect(out).toEqual({
      ok: true,
      echo: "mock answer of everything.echo",
      sum: "mock answer of everything.get-sum",
      // A sample of the output schema: deterministic, and checked against it by the mock.
      weather: { conditions: "string", humidity: 0, temperature: 0 },
    });
    expect(running.calls.map((c) => c.tool)).toEqual(["echo", "get-sum", "get-structured-content"]);
    expect(running.callsTo("echo")[0]?.arguments).toEqual({ message: "hello" });
  });

  it("stdio refuses handlers (they live in this process) with a clear error", async () => {
    await expect(startMock(createEverythingMock(handlers), { transport: "stdio", out: "x" })).rejects.toThrow(
      /handlers run in this process and cannot answer over stdio \(echo, get-structured-content, get-sum\)/,
    );
  });
});

describe("every answer is checked against the output schema", () => {
  it("a handler returning a wrong shape fails the call, naming toolset, tool and field", async () => {
    const wrong = { getStructuredContent: () => ({ temperature: "warm", conditions: "Sunny" }) as never };
    running = await startMock(createEverythingMock(wrong));
    const client = createEverythingClient(running.caller);
    const weather = await client.getStructuredContent({ location: "Chicago" });
    expect(weather.ok).toBe(false);
    const message = weather.ok ? "" : weather.failure.message;
    expect(message).toContain("mock everything.get-structured-content: the handler's answer breaks the output schema");
    expect(message).toMatch(/humidity/);
    expect(message).toMatch(/temperature/);
    expect(running.failures).toHaveLength(1);
    expect(running.failures[0]).toMatchObject({ tool: "get-structured-content", call: 1 });
  });

  it("a text tool's handler must return a string", async () => {
    running = await startMock(createEverythingMock({ echo: () => 42 as never }));
    const echo = await createEverythingClient(running.caller).echo({ message: "x" });
    expect(echo.ok).toBe(false);
    expect(running.failures[0]?.message).toMatch(/mock everything\.echo: the handler's answer must be a string.*got number/);
  });

  it("a wrong payload never reaches the handler: the generated decoder answers, and the call is not recorded", async () => {
    let reached = 0;
    running = await startMock(
      createEverythingMock({
        getSum: () => {
          reached++;
          return "never";
        },
      }),
    );
    const caller = running.caller;
    // Past the typed client (which would refuse it locally), straight to the mock server.
    const raw = await caller.callTool({ name: "get-sum", arguments: { a: "two", b: 3 } });
    expect(raw.ok && raw.value.isError).toBe(true);
    expect(JSON.stringify(raw.ok ? raw.value.content : [])).toMatch(/a/);
    expect(reached).toBe(0);
    expect(running.calls).toEqual([]);
  });

  it("callsTo names the tools on a typo, and two mocks share no record", async () => {
    running = await startMock(createEverythingMock());
    const other = await startMock(createEverythingMock());
    try {
      await createEverythingClient(running.caller).echo({ message: "one" });
      expect(running.calls).toHaveLength(1);
      expect(other.calls).toHaveLength(0);
      expect(() => running?.callsTo("ecko")).toThrow(/no tool "ecko" \(it has "echo"/);
    } finally {
      await other.close();
    }
  });
});

describe("toolwright mock --http", () => {
  it("serves a toolset's mock on 127.0.0.1, prints the URL on stderr, and ends on SIGTERM", async () => {
    const bin = join(root, "packages", "codegen", "dist", "bin.js");
    const child = spawn(process.execPath, [bin, "mock", "--out", "examples/catalogues/src/gen", "--toolset", "memory", "--http"], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    try {
      const url = await new Promise<string>((done, fail) => {
        let err = "";
        child.stderr.on("data", (chunk: Buffer) => {
          err += chunk.toString();
          const m = /serving toolset "memory" at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(err);
          if (m?.[1]) done(m[1]);
        });
        child.once("exit", (code) => fail(new Error(`toolwright mock exited ${code}: ${err}`)));
      });
      const caller = createHttpCaller({ name: "memory", url });
      try {
        const graph = await createMemoryClient(caller).readGraph({});
        expect(graph.ok && graph.value.entities.length).toBe(1);
      } finally {
        await caller.close();
      }
    } finally {
      child.kill("SIGTERM");
      // Ends gracefully (status 0), not killed by the signal.
      expect(await exited).toBe(0);
    }
  });
});
