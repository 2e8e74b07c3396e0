/**
 * A crash over stdio is a real process exit: a tool server (run with tsx) behind `withFaults` with
 * `onCrash: process.exit`, through the generated client and through the manager. The call in
 * flight ends as unavailable / retry with the exit code; the next call starts a new process.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { createMcpManager } from "@toolwright/runtime/manager";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import type { FaultPlan } from "@toolwright/testkit";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createEverythingClient } from "../../examples/everything/src/gen/everything/index.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";

const require = createRequire(import.meta.url);
const tsxCli = fileURLToPath(new URL("dist/cli.mjs", `file://${require.resolve("tsx/package.json")}`));
const script = fileURLToPath(new URL("./fixtures/faulty-stdio-server.ts", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));
const plan: FaultPlan = [{ tool: "echo", call: 2, fault: { kind: "crash" } }];

const closers: (() => Promise<void>)[] = [];
let leaks: LeakCheck;
beforeAll(() => {
  leaks = createLeakCheck();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

it("through the generated client: the process exits mid-call: unavailable, retry, exit code kept; the next call respawns", async () => {
  const caller = createStdioCaller({
    name: "everything",
    command: process.execPath,
    args: [tsxCli, script, JSON.stringify(plan)],
    cwd: root,
  });
  closers.push(() => caller.close());
  const client = createEverythingClient(caller);
  expect(await client.echo({ message: "a" })).toMatchObject({ ok: true });
  const r = await client.echo({ message: "b" });
  expect(r).toMatchObject({ ok: false, failure: { kind: "unavailable", retryable: true, exitCode: 70, recovery: { action: "retry" } } });
  expect(await client.echo({ message: "c" })).toMatchObject({ ok: true });
});

it("through the manager: the same failure, and the server is restarted for the next call", async () => {
  const manager = createMcpManager({
    mcpServers: {
      everything: { transport: "stdio", command: process.execPath, args: [tsxCli, script, JSON.stringify(plan)], env: {}, cwd: root },
    },
  });
  closers.push(() => manager.stop());
  await manager.start();
  expect(await manager.callTool("everything.echo", { message: "a" })).toMatchObject({ ok: true });
  const r = await manager.callTool("everything.echo", { message: "b" });
  expect(r).toMatchObject({
    ok: false,
    failure: { kind: "unavailable", exitCode: 70, server: "everything", recovery: { action: "retry" } },
  });
  await expect.poll(async () => (await manager.callTool("everything.echo", { message: "c" })).ok).toBe(true);
});
