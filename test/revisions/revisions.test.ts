/**
 * Every registered protocol revision — the built-in legacy family and 2026-07-28, and the
 * test-only ones of test/revisions/registered.ts — runs the same client/server suite with
 * Toolwright on both sides, over real stdio and real Streamable HTTP on 127.0.0.1: handshake,
 * tools/list, tools/call, tasks, errors. Callers are pinned to the revision by its name; the
 * server (a child process) registers the same revisions and answers each request in its revision.
 */
import "./registered.js";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearHttpEraCache, createHttpCaller } from "../../packages/runtime/src/http.js";
import { listRevisions, type Revision } from "../../packages/runtime/src/protocol.js";
import { createStdioCaller } from "../../packages/runtime/src/stdio.js";

const require = createRequire(import.meta.url);
const tsxCli = fileURLToPath(new URL("dist/cli.mjs", `file://${require.resolve("tsx/package.json")}`));
const script = fileURLToPath(new URL("./serve.ts", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));

type AnyCaller = ReturnType<typeof createStdioCaller> | ReturnType<typeof createHttpCaller>;

let httpServer: ChildProcess | undefined;
let httpUrl = "";

beforeAll(async () => {
  httpServer = spawn(process.execPath, [tsxCli, script, "--http", "--port", "0", "--host", "127.0.0.1"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const out = httpServer.stdout as NonNullable<ChildProcess["stdout"]>;
  let text = "";
  while (!text.includes("\n")) {
    const [chunk] = (await Promise.race([once(out, "data"), once(httpServer, "exit")])) as [Buffer | number];
    if (!Buffer.isBuffer(chunk)) throw new Error(`the HTTP revision server exited (${String(chunk)}) before printing its URL`);
    text += chunk.toString("utf8");
  }
  httpUrl = text.trim();
});

afterAll(async () => {
  const child = httpServer;
  if (child && child.exitCode === null) {
    const exited = once(child, "exit");
    child.kill();
    await exited;
  }
});

const transports = {
  stdio: (revision: Revision): AnyCaller =>
    createStdioCaller({
      name: "revisions",
      command: process.execPath,
      args: [tsxCli, script],
      cwd: root,
      era: revision.name,
      connectTimeoutMs: 30_000,
    }),
  http: (revision: Revision): AnyCaller => {
    clearHttpEraCache();
    return createHttpCaller({ name: "revisions", url: httpUrl, era: revision.name, connectTimeoutMs: 30_000 });
  },
} as const;

const text = (value: unknown) => ((value as { content?: { text?: string }[] }).content ?? []).map((c) => c.text).join("");

it("runs at least one test-only revision beside the two built-in ones", () => {
  expect(listRevisions().length).toBeGreaterThanOrEqual(3);
});

for (const [transport, open] of Object.entries(transports)) {
  describe.each(listRevisions().map((r) => [r.name, r] as const))(`%s over ${transport}`, (_name, revision) => {
    let caller: AnyCaller;
    beforeAll(async () => {
      caller = open(revision);
      const hello = await caller.connect();
      expect(hello.ok, JSON.stringify(!hello.ok && hello.failure)).toBe(true);
    });
    afterAll(async () => {
      await caller.close();
    });

    it("handshake: negotiates a version of this revision", () => {
      expect(revision.versions).toContain(caller.handshake?.protocolVersion);
      expect(caller.handshake?.serverInfo?.name).toBe("tasks-fixture");
    });

    it("tools/list: lists every tool", async () => {
      const listed = await caller.listTools();
      expect(listed.ok && listed.value.map((t) => t.name).sort()).toEqual(["oops", "plain", "report", "slow"]);
    });

    it("tools/call: answers in the revision's result shape", async () => {
      const called = await caller.callTool({ name: "plain", arguments: {} });
      expect(called.ok && text(called.value)).toBe("plain");
      // The raw answer: the test-only revision's server adds its required field, the others do not.
      const raw = await caller.request("tools/call", { name: "plain", arguments: {} });
      expect(raw.ok).toBe(true);
      const receipt = (raw.ok ? raw.value : {}) as { receipt?: unknown };
      if (revision.encodeToolResult) expect(receipt.receipt).toMatch(/^receipt-\d+$/);
      else expect(receipt.receipt).toBeUndefined();
    });

    it("tasks: a task-capable tool runs as a task and its result comes back", async () => {
      const statuses: string[] = [];
      const called = await caller.callTool(
        { name: "slow", arguments: { ms: 20 } },
        { task: { augment: true, pollIntervalMs: 20, onStatus: (s) => statuses.push(s.status) } },
      );
      expect(called.ok && text(called.value)).toBe("slow done");
      // At least the first status of the created task was seen: the call went through the task layer.
      expect(statuses.length).toBeGreaterThan(0);
    });

    it("errors: a tool's isError result and an unknown tool, as every revision answers them", async () => {
      // A returned isError is the server's answer, a result (it may have run as a task).
      const oops = await caller.callTool({ name: "oops", arguments: {} });
      expect(oops.ok && oops.value.isError).toBe(true);
      expect(oops.ok && text(oops.value)).toBe("it broke");
      // An unknown tool is the server's -32602, mapped to a failure the planner replans on.
      const unknown = await caller.callTool({ name: "no_such_tool", arguments: {} });
      expect(unknown.ok).toBe(false);
      expect(!unknown.ok && unknown.failure).toMatchObject({ kind: "invalid_call", tool: "no_such_tool", rpc: { code: -32602 } });
    });
  });
}
