/**
 * The code-mode demo offline: both runs on the generated mocks of server-filesystem and
 * server-memory (mock-servers.ts), in this process; no MCP server process, no network (the scripted
 * model is a 127.0.0.1 endpoint of this process). The mocks are held to the real servers: they must
 * answer the requests of the cassettes recorded from them (`cassettes/`) with the recorded
 * structured answers. test/examples/code-mode-live.test.ts runs the demo on the live servers and
 * checks the cassettes against them.
 */
import { join } from "node:path";
import { startMock, verifyCassette } from "@toolwright/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createFilesystemMock } from "../catalogues/src/gen/filesystem/mock.gen.js";
import { createMemoryMock } from "../catalogues/src/gen/memory/mock.gen.js";
import { readCassette } from "./cassettes.js";
import { expectDemo } from "./expect-demo.js";
import { runDemo } from "./main.js";
import { type MockTaskServers, startMockServers } from "./mock-servers.js";
import { EXPECTED, PEOPLE_WORKFLOW } from "./task.js";

describe("npm run demo:code-mode, offline", () => {
  let servers: MockTaskServers | undefined;
  afterEach(() => servers?.close());

  it("does the task both ways on the mocks and prints the measured context tokens and round trips", async () => {
    const started: MockTaskServers[] = [];
    const printed: string[] = [];
    const { direct, code } = await runDemo(
      (line) => printed.push(line),
      async () => {
        const s = await startMockServers();
        started.push(s);
        return s;
      },
    );
    expectDemo(direct, code, printed, "generated mocks, in memory");
    // Each run had its own mocks, and both runs asked them the same: one listing, four reads, one write; one store, one relate.
    expect(started).toHaveLength(2);
    for (const { mocks } of started) {
      expect(mocks.filesystem.calls.map((c) => c.tool).sort()).toEqual([
        "list_directory",
        "read_text_file",
        "read_text_file",
        "read_text_file",
        "read_text_file",
        "write_file",
      ]);
      expect(mocks.memory.calls.map((c) => c.tool)).toEqual(["create_entities", "create_relations"]);
      expect([...mocks.filesystem.failures, ...mocks.memory.failures]).toEqual([]);
    }
  });

  it("the mocks answer the recorded requests as the real servers did", async () => {
    servers = await startMockServers();
    await PEOPLE_WORKFLOW.setUp(servers);
    for (const server of ["filesystem", "memory"] as const) {
      // Text blocks, structured answers and isError must all equal the recorded ones.
      const report = await verifyCassette(readCassette(server), servers.mocks[server].caller);
      expect({ server, differences: report.differences }).toEqual({ server, differences: [] });
      expect(report.checked).toBeGreaterThan(0);
    }
    // The recorded requests alone did the task on the mocks, as they did on the real servers.
    expect(servers.read(join(servers.root, "summary.md"))).toBe(EXPECTED.summary);
    expect(PEOPLE_WORKFLOW.done(servers)).toBe(true);
  });

  it("the check has teeth: the mock's default answers (no handlers) differ from the recording", async () => {
    await using plain = await startMock(createFilesystemMock());
    const report = await verifyCassette(readCassette("filesystem"), plain.caller, { ignore: ["content"] });
    expect(report.ok).toBe(false);
    expect(report.differences.map((d) => d.request)).toContain('tools/call list_directory {"path":"/recorded/code-mode-root/people"}');
  });

  it("text blocks are checked too: plain answers (the JSON of the structured answer as text) differ from the recording", async () => {
    await using plain = await startMock(
      createMemoryMock({ createEntities: ({ entities }) => ({ entities }), createRelations: ({ relations }) => ({ relations }) }),
    );
    const report = await verifyCassette(readCassette("memory"), plain.caller);
    expect(report.differences.map((d) => d.request.split(" ")[1])).toEqual(["create_entities", "create_relations"]);
    expect(report.differences.flatMap((d) => d.differences).every((line) => line.startsWith("result.content.0.text: "))).toBe(true);
  });
});
