/**
 * Cassettes from server-memory and server-filesystem over streamable HTTP. Neither has an HTTP mode,
 * so each runs behind a real stdio→HTTP bridge from npm (`mcp-proxy`) on 127.0.0.1, as a user
 * would put it online. Each session is recorded twice over HTTP, each time behind a fresh bridge
 * over fresh state (the cassettes must be byte-identical), replayed with no process and no network
 * (the answers must be byte-identical to the real ones), and its tool results must equal a stdio
 * recording of the same server. A real-looking token in the server's environment and a bearer
 * header on every request reach no cassette; no bridge nor server process outlives the file.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { createRecordingCaller, createReplayCaller, parseCassette, type RecordTarget } from "@toolwright/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { alive, listeningOn, type RunningBridge, startBridge, stopBridge } from "../support/stdio-bridge.js";
import { FILESYSTEM, filesystemSession, MEMORY, memorySession } from "./sessions.js";

// Real-looking secrets: a GitHub-style token in the server's environment, a bearer token in a header.
const ENV_TOKEN = "ghp_R3alLook1ngT0kenV4lue0123456789abcdEF";
const BEARER = "sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0";

const dirs: string[] = [];
const started: RunningBridge[] = [];
const orphans: number[] = [];
afterAll(async () => {
  // Every bridge is stopped where it was used; this catches one a failed test left running.
  for (const bridge of started) if ((await stopBridge(bridge)).orphan) orphans.push(bridge.serverPid);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  expect(orphans).toEqual([]);
  expect(started.filter((b) => alive(b.child.pid ?? -1) || alive(b.serverPid))).toEqual([]);
});
const tempDir = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
};

type Session = (caller: SessionCaller) => Promise<string[]>;

/** Records one session against `target`: the cassette text (also saved and read back) and the real answers. */
async function record(target: RecordTarget, session: Session, server: string) {
  const recording = createRecordingCaller(target, { server });
  try {
    const answers = await session(recording.caller);
    const file = join(tempDir("tw-cassette-"), `${server}.cassette.jsonl`);
    const text = recording.save(file);
    expect(readFileSync(file, "utf8")).toBe(text);
    return { text, answers };
  } finally {
    await recording.close();
  }
}

/** Records `session` over HTTP behind a fresh bridge in front of `node args`, then stops the bridge and checks nothing is left. */
async function recordBridged(args: string[], env: Record<string, string>, session: Session, server: string) {
  const bridge = await startBridge(process.execPath, args, { PATH: process.env.PATH ?? "", TW_CASSETTE_TOKEN: ENV_TOKEN, ...env });
  started.push(bridge);
  // Loopback only: one listening socket, on 127.0.0.1.
  expect(listeningOn(Number(new URL(bridge.url).port))).toEqual(["0100007F"]);
  try {
    const target: RecordTarget = { http: { url: bridge.url, name: server, era: "legacy", headers: { Authorization: `Bearer ${BEARER}` } } };
    return await record(target, session, server);
  } finally {
    const { orphan } = await stopBridge(bridge);
    expect(orphan).toBe(false);
    expect(alive(bridge.serverPid)).toBe(false);
  }
}

/**
 * Two HTTP recordings (byte-identical), a replay (byte-identical answers), then a stdio recording
 * whose calls and answers must be the HTTP ones; resolves with the HTTP cassette.
 */
async function roundTripBridged(args: () => string[], env: () => Record<string, string>, session: Session, server: string) {
  // The same server name as over stdio: a failure names its server, and a replay takes the cassette's.
  const first = await recordBridged(args(), env(), session, server);
  const second = await recordBridged(args(), env(), session, server);
  expect(second.text).toBe(first.text);
  for (const secret of [ENV_TOKEN, BEARER]) expect(first.text).not.toContain(secret);
  // Volatile values stay out: the port is in no line, the session id only as `session: true`.
  expect(first.text).not.toContain("127.0.0.1");
  expect(parseCassette(first.text).header).toMatchObject({ transport: "streamable-http", session: true });
  const replay = createReplayCaller(first.text);
  try {
    expect(await session(replay)).toEqual(first.answers);
    expect(replay.replay.remaining()).toBe(0);
  } finally {
    await replay.close();
  }
  const envNow = env();
  const stdio = await record(
    {
      stdio: {
        command: process.execPath,
        args: args(),
        name: server,
        env: [...Object.entries(envNow).map(([k, v]) => `${k}=${v}`), `TW_CASSETTE_TOKEN=${ENV_TOKEN}`],
      },
    },
    session,
    server,
  );
  expect(stdio.text).not.toContain(ENV_TOKEN);
  // Lines: header, initialize, its answer, initialized, then the calls. The bridge answers the
  // handshake itself from the server's own (same values, its key order); every call after it
  // crosses the bridge untouched, so those lines are the stdio cassette's, byte for byte.
  const [httpLines, stdioLines] = [first.text, stdio.text].map((t) => t.split("\n"));
  expect(JSON.parse(httpLines[2])).toEqual(JSON.parse(stdioLines[2]));
  expect(httpLines.slice(3)).toEqual(stdioLines.slice(3));
  expect(first.answers).toEqual(stdio.answers);
  return first.text;
}

describe("cassettes from stdio-only servers over streamable HTTP, behind mcp-proxy on 127.0.0.1", () => {
  it("server-memory: re-recorded byte-identically, replayed into the same typed results as over stdio; no secret in the cassette", async () => {
    const env = () => ({ MEMORY_FILE_PATH: join(tempDir("tw-memory-"), "memory.jsonl") });
    const text = await roundTripBridged(() => [MEMORY], env, memorySession, "memory");
    expect(text).toContain('"isError":true');
  });

  it("server-filesystem: re-recorded byte-identically, replayed into the same typed results as over stdio", async () => {
    const root = tempDir("tw-fs-");
    // Fresh state for each recording: the session writes a file and makes a folder.
    const args = () => {
      rmSync(join(root, "note.txt"), { force: true });
      rmSync(join(root, "sub"), { recursive: true, force: true });
      return [FILESYSTEM, root];
    };
    const session: Session = (caller) => filesystemSession(caller, root);
    const text = await roundTripBridged(args, () => ({}), session, "filesystem");
    expect(text).toContain('"isError":true');
    expect(text).toContain(`Successfully wrote to ${root}/note.txt`);
  });
});
