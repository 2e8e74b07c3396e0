/**
 * Class 8 of #18: a server that starts a helper in its own session (`detached`, like a browser
 * launcher) must not leave it running after close(). The helper is a real `sleep` in its own
 * session and process group, so a process-group kill alone misses it; close() walks /proc for
 * descendants while the server lives and kills them too. Also through the manager's stop().
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMcpManager } from "@toolwright/runtime/manager";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { beforeAll, expect, it } from "vitest";
import { HOSTILE_STDIO_SERVER, isRunning, procStat, readPid, waitFor } from "../support/hostile-stdio-server.js";
import { guardLeaks } from "../support/leak-guard.js";

let dir: string;
const helpers: number[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tw-grandchild-"));
});
guardLeaks(async () => {
  // Never leave a helper behind, even when an assertion failed.
  for (const pid of helpers) if (isRunning(pid)) process.kill(pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** The helper's pid, checked to really sit outside the server's session and group. */
async function helperOf(file: string, serverPid: number | undefined): Promise<number> {
  const pid = (await readPid(file)) as number;
  expect(pid).toBeDefined();
  helpers.push(pid);
  expect(isRunning(pid)).toBe(true);
  const helper = procStat(pid);
  const server = procStat(serverPid as number);
  expect(server).toBeDefined();
  expect(helper?.session).not.toBe(server?.session);
  expect(helper?.pgrp).not.toBe(server?.pgrp);
  return pid;
}

it.runIf(process.platform === "linux")("close() kills a helper the server started in its own session", async () => {
  const file = join(dir, "caller-helper.pid");
  const caller = createStdioCaller({
    name: "launcher",
    command: process.execPath,
    args: [HOSTILE_STDIO_SERVER],
    env: [`HOSTILE_GRANDCHILD=${file}`],
  });
  const listed = await caller.listTools();
  expect(listed.ok).toBe(true);
  const helper = await helperOf(file, caller.pid);
  await caller.close();
  // The kill is sent before close() resolves; a reaped or zombie helper runs nothing.
  expect(await waitFor(() => (isRunning(helper) ? undefined : true), 50)).toBe(true);
});

it.runIf(process.platform === "linux")("manager.stop() kills it too, and so does a server that ignores SIGTERM", async () => {
  const file = join(dir, "manager-helper.pid");
  const manager = createMcpManager(
    {
      mcpServers: {
        launcher: {
          transport: "stdio",
          command: process.execPath,
          args: [HOSTILE_STDIO_SERVER],
          env: { HOSTILE_GRANDCHILD: file, HOSTILE_IGNORE_TERM: "1" },
        },
      },
    },
    { client: { closeGraceMs: 300 } },
  );
  const [status] = await manager.start();
  expect(status?.connected).toBe(true);
  const helper = await helperOf(file, status?.pid);
  await manager.stop();
  expect(await waitFor(() => (isRunning(helper) ? undefined : true), 50)).toBe(true);
  expect(isRunning(status?.pid as number)).toBe(false);
});
