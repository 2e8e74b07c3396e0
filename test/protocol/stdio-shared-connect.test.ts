/**
 * The stdio connect is shared by every call waiting for it: one call's abort must stop only that
 * call's wait, never the connect the other calls are waiting on.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createStdioCaller, type StdioCaller } from "@toolwright/runtime/stdio";
import { afterEach, expect, it } from "vitest";
import { createLeakCheck } from "../support/leak-check.js";

const require = createRequire(import.meta.url);
const everything = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");

let caller: StdioCaller | undefined;
afterEach(async () => {
  await caller?.close();
  caller = undefined;
});

it("a call aborted while connecting is canceled; a call sharing that connect still succeeds", async () => {
  caller = createStdioCaller({ name: "everything", command: process.execPath, args: [everything, "stdio"] });
  const controller = new AbortController();
  const aborted = caller.callTool({ name: "echo", arguments: { message: "a" } }, { signal: controller.signal });
  const other = caller.callTool({ name: "echo", arguments: { message: "b" } });
  // Abort while the child is still starting: server-everything takes hundreds of ms to answer initialize.
  await new Promise((resolve) => setImmediate(resolve));
  expect(caller.handshake).toBeUndefined();
  controller.abort();
  const [a, b] = await Promise.all([aborted, other]);
  expect(a).toMatchObject({ ok: false, failure: { kind: "canceled" } });
  expect(b).toMatchObject({ ok: true, value: { content: [{ type: "text", text: "Echo: b" }] } });
});

it("close() during a connect stops it: the waiting call is a canceled value and the child is gone", async () => {
  const leaks = createLeakCheck();
  const local = createStdioCaller({ name: "everything", command: process.execPath, args: [everything, "stdio"] });
  const pending = local.callTool({ name: "echo", arguments: { message: "x" } });
  await new Promise((resolve) => setImmediate(resolve));
  expect(local.handshake).toBeUndefined();
  await local.close();
  expect(await pending).toMatchObject({ ok: false, failure: { kind: "canceled" } });
  // The child and its pipes are gone: no handle is left over the baseline taken before the spawn.
  const report = await leaks.check();
  leaks.dispose();
  expect(report.handles).toEqual([]);
});
