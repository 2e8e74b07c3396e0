/**
 * The faithfulness check through the built `toolwright` bin: `toolwright record` writes a cassette
 * of the real server-everything (examples/catalogues), then `toolwright mock --verify` replays it
 * against the live server and against the generated mock. The real cassette passes with no
 * `--ignore` (the mock lists every tool as the lock holds it: execution, `$schema`); a cassette
 * whose answers drifted (a changed echo text, a structured result the server no longer gives, a
 * changed tool description) fails with exit 1 and names every difference, for each side.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type JsonObject, parseCassette, printCassette } from "@toolwright/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../product/support.js";
import { runToolwright } from "../support/toolwright-cli.js";

const DESIGN = "examples/catalogues/design.ts";
let dir = "";
let cassette = "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tw-verify-"));
  cassette = join(dir, "everything.cassette.jsonl");
  const run = await runToolwright(["record", DESIGN, "--server", "everything", "--tool", "echo", "--tool", "get-sum", "--out", cassette], {
    cwd: REPO,
  });
  expect(run.status, run.output).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const verify = (file: string) =>
  runToolwright(["mock", DESIGN, "--toolset", "everything", "--out", "examples/catalogues/src/gen", "--verify", file], {
    cwd: REPO,
  });

describe("toolwright mock --verify", () => {
  it("passes a cassette recorded from the server: the live server and the mock both agree with it", async () => {
    const run = await verify(cassette);
    expect(run.output).toContain("live server: 3 request(s) replayed, 0 differ");
    expect(run.output).toContain("mock: 3 request(s) replayed, 0 differ");
    expect(run.status).toBe(0);
  });

  it("fails a drifted cassette with exit 1 and names every difference on each side", async () => {
    const parsed = parseCassette(readFileSync(cassette, "utf8"), cassette);
    const events = parsed.events.map((event) => {
      if (event.dir !== "recv") return event;
      const result = event.msg.result as JsonObject | undefined;
      const text = JSON.stringify(result ?? {});
      if (text.includes("Echo: example")) {
        return { ...event, msg: { ...event.msg, result: { content: [{ type: "text", text: "Echo (v1): example" }] } } };
      }
      if (text.includes("The sum of")) return { ...event, msg: { ...event.msg, result: { ...result, structuredContent: { sum: 2 } } } };
      if (Array.isArray(result?.tools)) {
        const tools = (result.tools as JsonObject[]).map((t) => (t.name === "echo" ? { ...t, description: "Echoes, as it used to" } : t));
        return { ...event, msg: { ...event.msg, result: { ...result, tools } } };
      }
      return event;
    });
    const drifted = join(dir, "drifted.cassette.jsonl");
    writeFileSync(drifted, printCassette({ header: parsed.header, events }));
    const run = await verify(drifted);
    expect(run.status).toBe(1);
    expect(run.output).toContain("live server: 3 request(s) replayed, 3 differ");
    expect(run.output).toMatch(
      /live server: #2 tools\/list \{\}: result\.tools\.\d+\.description: recorded "Echoes, as it used to", got "Echoes back the input string"/,
    );
    expect(run.output).toContain(
      'live server: #3 tools/call echo {"message":"example"}: result.content.0.text: recorded "Echo (v1): example", got "Echo: example"',
    );
    expect(run.output).toContain(
      'live server: #4 tools/call get-sum {"a":1,"b":1}: result.structuredContent: recorded {"sum":2}, got nothing',
    );
    // The mock answers from schemas: the same structure for echo, but no structured sum, and the lock's description.
    expect(run.output).toContain("mock: 3 request(s) replayed, 2 differ");
    expect(run.output).toContain(
      'mock: #4 tools/call get-sum {"a":1,"b":1}: result.structuredContent: recorded {"sum":"number"}, got nothing',
    );
    expect(run.output).not.toContain("mock: #3");
  });
});
