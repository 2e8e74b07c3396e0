/**
 * Class 5 of #18: deadlines hold. A call to a stdio server that never answers and ignores SIGTERM
 * fails at its connect deadline while the process is still alive (the kill goes on in the
 * background), and close()/stop() still wait until it is gone. Over HTTP, a `server/discover` probe
 * that hangs leaves `initialize` its share of the budget, and failure messages state the budget the
 * user set. Only ordering and message facts are asserted, never wall-clock thresholds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearHttpEraCache, createHttpCaller } from "@toolwright/runtime/http";
import { createMcpManager } from "@toolwright/runtime/manager";
import { createStdioCaller } from "@toolwright/runtime/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTILE_STDIO_SERVER, isRunning, readPid } from "../support/hostile-stdio-server.js";
import { guardLeaks } from "../support/leak-guard.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tw-deadlines-"));
});
guardLeaks(async () => {
  rmSync(dir, { recursive: true, force: true });
});

const stubborn = (pidFile: string) => [`HOSTILE_SILENT=1`, `HOSTILE_IGNORE_TERM=1`, `HOSTILE_PID=${pidFile}`];

describe("stdio: a server that never answers and ignores SIGTERM", () => {
  it("the call fails at the connect deadline, before the process is killed; close() waits until it is gone", async () => {
    const pidFile = join(dir, "caller.pid");
    // A long grace: the old behaviour (stdin, SIGTERM, SIGKILL before answering) would answer after 2 × 2000 ms.
    const caller = createStdioCaller({
      name: "stubborn",
      command: process.execPath,
      args: [HOSTILE_STDIO_SERVER],
      env: stubborn(pidFile),
      connectTimeoutMs: 1500,
      timeoutMs: 3000,
      closeGraceMs: 2000,
    });
    const result = await caller.callTool({ name: "anything", arguments: {} });
    const pid = await readPid(pidFile);
    expect(pid).toBeDefined();
    // Resolved while the process still lives: the answer did not wait for the kill sequence.
    expect(isRunning(pid as number)).toBe(true);
    expect(result).toMatchObject({ ok: false, failure: { kind: "unavailable", recovery: { action: "retry" } } });
    expect(result.ok || result.failure.message).toMatch(/initialize got no answer within the 1500 ms connect budget \(connectTimeoutMs\)/);
    await caller.close();
    expect(isRunning(pid as number)).toBe(false);
  });

  it("manager.callTool answers at the deadline too, and stop() waits for the kill", async () => {
    const pidFile = join(dir, "manager.pid");
    const manager = createMcpManager(
      {
        mcpServers: {
          stubborn: {
            transport: "stdio",
            command: process.execPath,
            args: [HOSTILE_STDIO_SERVER],
            env: Object.fromEntries(stubborn(pidFile).map((e) => e.split("=") as [string, string])),
            connectTimeoutMs: 1500,
            requestTimeoutMs: 3000,
          },
        },
      },
      { lazy: true, client: { closeGraceMs: 2000 } },
    );
    const result = await manager.callTool("stubborn.anything", {});
    const pid = await readPid(pidFile);
    expect(isRunning(pid as number)).toBe(true);
    expect(result).toMatchObject({ ok: false, failure: { kind: "unavailable", server: "stubborn" } });
    const message = result.ok ? "" : result.failure.message;
    expect(message).toMatch(/1500 ms connect budget/);
    // The server's name is said once, not repeated by each layer.
    expect(message.startsWith("stubborn: ")).toBe(true);
    expect(message).not.toMatch(/stubborn: stubborn:/);
    expect(manager.listServers()[0]?.error).not.toMatch(/^stubborn:/);
    await manager.stop();
    expect(isRunning(pid as number)).toBe(false);
  });
});

describe("HTTP: the connect budget is split between the probe and initialize", () => {
  let server: Server;
  let url: string;
  let hangDiscover = true;
  let hangAll = false;
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        if (req.method !== "POST") {
          res.writeHead(405).end();
          return;
        }
        const msg = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
        seen.push(msg.method);
        if (hangAll || (hangDiscover && msg.method === "server/discover")) return; // never answers
        if (msg.id === undefined) {
          res.writeHead(202).end();
          return;
        }
        const result =
          msg.method === "initialize"
            ? { protocolVersion: msg.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "slowprobe", version: "1" } }
            : msg.method === "tools/list"
              ? { tools: [{ name: "echo", inputSchema: { type: "object" } }] }
              : { content: [{ type: "text", text: "ok" }] };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("a probe that never answers does not eat the budget: initialize still connects within connectTimeoutMs", async () => {
    clearHttpEraCache();
    seen.length = 0;
    hangDiscover = true;
    hangAll = false;
    // The probe gets at most half the budget; the half left must carry initialize even on a loaded
    // machine, so the budget is seconds, not the 1.5 s of the deadline test below.
    const caller = createHttpCaller({ url, era: "auto", connectTimeoutMs: 8000, probeTimeoutMs: 60_000 });
    try {
      const handshake = await caller.connect();
      expect(handshake.ok).toBe(true);
      expect(seen.slice(0, 2)).toEqual(["server/discover", "initialize"]);
      const call = await caller.callTool({ name: "echo", arguments: {} });
      expect(call.ok).toBe(true);
    } finally {
      await caller.close();
    }
  });

  it("a server that answers nothing: the message names the 1500 ms the user set, not the few ms left", async () => {
    clearHttpEraCache();
    hangAll = true;
    const caller = createHttpCaller({ url, era: "auto", connectTimeoutMs: 1500 });
    try {
      const call = await caller.callTool({ name: "echo", arguments: {} });
      expect(call).toMatchObject({ ok: false, failure: { kind: "unavailable" } });
      const message = call.ok ? "" : call.failure.message;
      expect(message).toMatch(/initialize got no answer within the 1500 ms connect budget \(connectTimeoutMs\)/);
      expect(message).not.toMatch(/within \d ms/);
    } finally {
      hangAll = false;
      await caller.close();
    }
  });
});
