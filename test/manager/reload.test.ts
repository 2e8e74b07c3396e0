/**
 * Live config changes: applyConfig reconnects only changed servers, and the file watcher applies
 * an edit (one added, one changed, one removed) exactly, keeping the last good config on a bad edit.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type ApplySummary,
  createMcpManager,
  loadMcpConfig,
  type McpManager,
  parseMcpConfig,
  watchManagerConfig,
} from "../../packages/runtime/src/manager.js";
import { createLeakCheck, type LeakCheck } from "../support/leak-check.js";
import { alive, DYNAMIC, NODE, tempDir } from "./helpers.js";

let manager: McpManager | undefined;
let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  await manager?.stop();
  manager = undefined;
  tmp.cleanup();
});

const dyn = (more: object = {}) => ({ command: NODE, args: [DYNAMIC], ...more });
const pidOf = (name: string) => manager?.listServers().find((s) => s.name === name)?.pid;

// No child process, handle, listener or watcher may outlive this file's tests.
let leaks: LeakCheck;
beforeAll(() => {
  leaks = createLeakCheck();
});
afterAll(async () => {
  const report = await leaks.check();
  leaks.dispose();
  expect(report).toEqual({ processes: [], handles: [], warnings: [], listeners: [] });
});

describe("applyConfig", () => {
  it("reconnects only servers whose connection fields changed and returns their names", async () => {
    manager = createMcpManager(parseMcpConfig(JSON.stringify({ mcpServers: { a: dyn(), b: dyn(), c: dyn() } })), {
      collisionPolicy: "prefix",
    });
    await manager.start();
    const [a, b, c] = [pidOf("a"), pidOf("b"), pidOf("c")];
    const next = parseMcpConfig(
      JSON.stringify({
        mcpServers: { a: dyn({ denyTools: ["alpha"] }), b: dyn({ env: { X: "1" } }), c: dyn({ requestTimeoutMs: 5000 }) },
      }),
    );
    const changed = await manager.applyConfig(next);
    expect(changed).toEqual(["b"]);
    expect(pidOf("a")).toBe(a);
    expect(pidOf("c")).toBe(c);
    expect(pidOf("b")).not.toBe(b);
    expect(alive(b as number)).toBe(false);
    expect(manager.tools().some((t) => t.id === "a.alpha")).toBe(false);
    expect(manager.tools().some((t) => t.id === "b.alpha")).toBe(true);
  });
});

describe("config file watcher", () => {
  it("applies an edit exactly: one added, one changed, one removed; a broken edit keeps the last good config", async () => {
    const projectDir = join(tmp.dir, "project");
    const file = join(projectDir, ".toolwright", "mcp.json");
    mkdirSync(join(projectDir, ".toolwright"), { recursive: true });
    const write = (servers: object) => writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
    write({ keep: dyn(), change: dyn(), drop: dyn() });
    const load = { projectDir, globalDir: join(tmp.dir, "global") };
    const applied: ApplySummary[] = [];
    const errors: Error[] = [];
    manager = createMcpManager(loadMcpConfig(load), { collisionPolicy: "prefix", onConfigApplied: (s) => applied.push(s) });
    await manager.start();
    const before = { keep: pidOf("keep"), change: pidOf("change"), drop: pidOf("drop") };
    const watcher = watchManagerConfig(manager, { ...load, debounceMs: 30, onError: (e) => errors.push(e) });
    expect(watcher.files).toContain(file);

    write({ keep: dyn(), change: dyn({ args: [DYNAMIC, "--changed"] }), add: dyn() });
    await vi.waitFor(() => expect(applied.length).toBe(1), { timeout: 30_000 });
    expect(applied[0]).toEqual({ added: ["add"], removed: ["drop"], changed: ["change"], updated: [] });
    expect(
      manager
        .listServers()
        .map((s) => [s.name, s.connected])
        .sort(),
    ).toEqual([
      ["add", true],
      ["change", true],
      ["keep", true],
    ]);
    expect(pidOf("keep")).toBe(before.keep);
    expect(pidOf("change")).not.toBe(before.change);
    expect(alive(before.drop as number)).toBe(false);
    expect(manager.tools().some((t) => t.server === "drop")).toBe(false);
    expect(manager.tools().some((t) => t.id === "add.alpha")).toBe(true);

    writeFileSync(file, '{ "mcpServers": { "keep": ');
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 30_000 });
    expect(errors[0]?.message).toContain(file);
    expect(errors[0]?.message).toMatch(/invalid JSON/);
    expect(applied.length).toBe(1);
    expect(Object.keys(manager.config().mcpServers).sort()).toEqual(["add", "change", "keep"]);
    expect(manager.listServers().every((s) => s.connected)).toBe(true);

    write({ keep: dyn() });
    await vi.waitFor(() => expect(applied.length).toBe(2), { timeout: 30_000 });
    expect(applied[1]).toEqual({ added: [], removed: ["change", "add"], changed: [], updated: [] });
    expect(pidOf("keep")).toBe(before.keep);

    // stop() closes the watcher: a later edit reaches nobody.
    const errorsBefore = errors.length;
    await manager.stop();
    write({ keep: dyn(), another: dyn() });
    await new Promise((r) => setTimeout(r, 300));
    expect(applied.length).toBe(2);
    expect(errors).toHaveLength(errorsBefore);
  });

  it("picks up a project file created after the watcher started (no .toolwright/ at first)", async () => {
    const projectDir = join(tmp.dir, "fresh");
    mkdirSync(projectDir);
    const load = { projectDir, globalDir: join(tmp.dir, "global") };
    const applied: ApplySummary[] = [];
    manager = createMcpManager(loadMcpConfig(load), { onConfigApplied: (s) => applied.push(s) });
    await manager.start();
    expect(manager.listServers()).toEqual([]);
    watchManagerConfig(manager, { ...load, debounceMs: 10, pollIntervalMs: 20 });
    mkdirSync(join(projectDir, ".toolwright"));
    writeFileSync(join(projectDir, ".toolwright", "mcp.json"), JSON.stringify({ mcpServers: { late: dyn() } }));
    await vi.waitFor(() => expect(applied.length).toBe(1), { timeout: 30_000 });
    expect(applied[0]?.added).toEqual(["late"]);
    expect(manager.listServers()[0]?.connected).toBe(true);
  });
});
