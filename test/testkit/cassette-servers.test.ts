/**
 * Cassettes from real servers: server-everything (stdio and streamable HTTP), server-memory and
 * server-filesystem over stdio in the legacy era (over streamable HTTP behind a bridge:
 * cassette-bridge.test.ts), and the runtime's demo server over stdio in the
 * 2026-07-28 era. Each session is recorded twice (the cassettes must be byte-identical) and
 * replayed with no process and no network through the same generated typed clients (the answers
 * must be byte-identical to the real ones). A real-looking token in the caller's environment and
 * in its Authorization header never reaches a cassette.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { SessionCaller } from "@toolwright/runtime/caller";
import { createClientFeatures } from "@toolwright/runtime/client-features";
import { MODERN_PROTOCOL_VERSION } from "@toolwright/runtime/protocol";
import { type HttpServerHandle, serveHttp } from "@toolwright/runtime/server";
import { createStdioCaller, type StdioCallerOptions } from "@toolwright/runtime/stdio";
import { createRecordingCaller, createReplayCaller, parseCassette, type RecordTarget, verifyCassette } from "@toolwright/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEverythingClient } from "../../examples/catalogues/src/gen/everything/index.js";
import { createEverythingFeaturesClient } from "../../examples/catalogues/src/gen/everything-features/index.js";
import { createDemoServer } from "../server/fixtures/demo-server.js";
import { startEverything, stopEverything } from "../support/everything-server.js";
import { DEMO, demoSession, EVERYTHING, everythingSession, FILESYSTEM, filesystemSession, MEMORY, memorySession, TSX } from "./sessions.js";

// Real-looking secrets: a GitHub-style token in the environment, a bearer token in a header.
const ENV_TOKEN = "ghp_R3alLook1ngT0kenV4lue0123456789abcdEF";
const BEARER = "sk-live-9f8e7d6c5b4a39281706f5e4d3c2b1a0";
process.env.TW_CASSETTE_TOKEN = ENV_TOKEN;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
};

type Session = (caller: SessionCaller) => Promise<string[]>;

/** Records one session: the cassette text, the real answers, and the file it was saved to. */
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

/** Records twice (fresh state each time via `target()`), replays, and checks both identities and secrecy. */
async function roundTrip(target: () => RecordTarget, session: Session, server: string, replayOptions = {}) {
  const first = await record(target(), session, server);
  const second = await record(target(), session, server);
  expect(second.text).toBe(first.text);
  for (const secret of [ENV_TOKEN, BEARER]) expect(first.text).not.toContain(secret);
  const replay = createReplayCaller(first.text, replayOptions);
  try {
    const replayed = await session(replay);
    expect(replayed).toEqual(first.answers);
    expect(replay.replay.remaining()).toBe(0);
  } finally {
    await replay.close();
  }
  return first;
}

describe("cassettes from server-everything", () => {
  it("over stdio: re-recorded byte-identically, replayed into the same typed answers; the env token is redacted", async () => {
    const target = (): { stdio: StdioCallerOptions } => ({
      stdio: { command: process.execPath, args: [EVERYTHING, "stdio"], name: "everything", env: ["TW_CASSETTE_TOKEN"] },
    });
    // get-env prints the child's environment: the token crosses the wire for real.
    const withEnv: Session = async (caller) => [
      ...(await everythingSession(caller)),
      JSON.stringify(await createEverythingClient(caller).getEnv({})),
    ];
    const recording = createRecordingCaller(target(), { server: "everything" });
    const real = await withEnv(recording.caller);
    const text = recording.cassette();
    await recording.close();
    expect(real.at(-1)).toContain(ENV_TOKEN);
    expect(text).not.toContain(ENV_TOKEN);
    expect(text).toContain("[redacted]");
    const header = parseCassette(text).header;
    expect(header).toMatchObject({ cassette: 1, server: "everything", transport: "stdio" });
    expect(text).toContain('"method":"notifications/progress"');
    const replay = createReplayCaller(text);
    const replayed = await withEnv(replay);
    await replay.close();
    // Every answer but the environment's is byte-identical; that one carries the redaction instead of the token.
    expect(replayed.slice(0, -1)).toEqual(real.slice(0, -1));
    expect(replayed.at(-1)).not.toContain(ENV_TOKEN);
    expect(replayed.at(-1)).toContain("[redacted]");
    const { text: cassette } = await roundTrip(target, everythingSession, "everything");
    // The live server still gives every recorded answer.
    const live = createStdioCaller(target().stdio);
    const report = await verifyCassette(cassette, live);
    await live.close();
    expect(report).toEqual({ ok: true, checked: 8, differences: [] });
  });

  describe("over streamable HTTP", () => {
    let child: ChildProcess | undefined;
    let url = "";
    beforeAll(async () => {
      const started = await startEverything("streamableHttp");
      child = started.child;
      url = `http://127.0.0.1:${started.port}/mcp`;
    });
    afterAll(() => stopEverything(child));

    it("with a bearer header: re-recorded byte-identically, replayed into the same typed answers, no token in the cassette", async () => {
      const target = (): RecordTarget => ({
        http: { url, name: "everything", era: "legacy", headers: { Authorization: `Bearer ${BEARER}` } },
      });
      const { text } = await roundTrip(target, everythingSession, "everything-http");
      expect(parseCassette(text).header).toMatchObject({ transport: "streamable-http", session: true });
    });
  });
});

describe("a cassette from server-everything over legacy HTTP+SSE", () => {
  let child: ChildProcess | undefined;
  let url = "";
  beforeAll(async () => {
    const started = await startEverything("sse");
    child = started.child;
    url = `http://127.0.0.1:${started.port}/sse`;
  });
  afterAll(() => stopEverything(child));

  it("records the caller's probes and fallback, and replays the session without them", async () => {
    // server-everything registers more tools when the client says `initialized` and announces them
    // with tools/list_changed on the SSE stream, a socket apart from the POSTs: whether that
    // arrives before or after the client's next POST is a race (under load, either). The session
    // waits for it, as the filesystem session waits for roots, so every recording has one order.
    let announced: () => void = () => {};
    const onListChanged = () => announced();
    const target = (): RecordTarget => ({
      http: { url, name: "everything", headers: { Authorization: `Bearer ${BEARER}` }, onListChanged },
    });
    const session: Session = async (caller) => {
      const listChanged = new Promise<void>((resolve) => {
        announced = resolve;
      });
      await caller.connect();
      await listChanged;
      return everythingSession(caller);
    };
    const { text } = await roundTrip(target, session, "everything-sse", { onListChanged });
    expect(text).toContain('"method":"notifications/tools/list_changed"');
    expect(parseCassette(text).header).toMatchObject({ transport: "legacy-sse" });
    // The server/discover probe and the initialize POST were refused with 404 before the fallback.
    expect(text).toContain('{"dir":"fault","fault":{"message":"Not Found","status":404,"type":"http"},"id":1}');
  });
});

describe("server requests from server-everything over stdio", () => {
  it("sampling and elicitation requests are recorded with the client's answers, and replayed to the replay caller's handlers", async () => {
    let asked = 0;
    const features = createClientFeatures({
      sampling: {
        createMessage: (req) => ({ role: "assistant", content: { type: "text", text: `sampled ${req.maxTokens}` }, model: "scripted-1" }),
      },
      elicitation: {
        form: () => {
          asked++;
          return { action: "decline" };
        },
      },
    });
    const target = (): RecordTarget => ({
      stdio: {
        command: process.execPath,
        args: [EVERYTHING, "stdio"],
        name: "everything",
        capabilities: features.capabilities,
        handlers: features.handlers,
      },
    });
    const session: Session = async (caller) => {
      const client = createEverythingFeaturesClient(caller);
      return [
        JSON.stringify(await client.triggerSamplingRequest({ prompt: "Say hi", maxTokens: 12 })),
        JSON.stringify(await client.triggerElicitationRequest({})),
      ];
    };
    const { text, answers } = await roundTrip(target, session, "everything-features", {
      capabilities: features.capabilities,
      handlers: features.handlers,
    });
    expect(text).toContain('"method":"sampling/createMessage"');
    expect(text).toContain('"method":"elicitation/create"');
    expect(text).toContain("sampled 12");
    expect(answers[0]).toContain("sampled 12");
    // Two recordings and one replay: the replay asked the replay caller's own handler.
    expect(asked).toBe(3);
  });
});

describe("cassettes from server-memory and server-filesystem over stdio", () => {
  it("server-memory: a graph written and read, an error for an unknown entity", async () => {
    const target = (): RecordTarget => {
      const file = join(tempDir("tw-memory-"), "memory.jsonl");
      return {
        stdio: { command: process.execPath, args: [MEMORY], name: "memory", env: [`MEMORY_FILE_PATH=${file}`, "TW_CASSETTE_TOKEN"] },
      };
    };
    const { text } = await roundTrip(target, memorySession, "memory");
    expect(text).toContain('"isError":true');
  });

  it("server-filesystem: the roots request from the server is recorded and replayed", async () => {
    const root = tempDir("tw-fs-");
    // The server asks for roots right after the handshake; the session waits for that, so the
    // request lands at the same point of every recording (and of the replay).
    let asked: () => void = () => {};
    const features = createClientFeatures({
      roots: {
        list: () => {
          asked();
          return [{ uri: pathToFileURL(root).href, name: "sandbox" }];
        },
      },
    });
    const target = (): RecordTarget => {
      rmSync(join(root, "note.txt"), { force: true });
      rmSync(join(root, "sub"), { recursive: true, force: true });
      return {
        stdio: {
          command: process.execPath,
          args: [FILESYSTEM, root],
          name: "filesystem",
          capabilities: features.capabilities,
          handlers: features.handlers,
        },
      };
    };
    const session: Session = async (caller) => {
      const rootsAsked = new Promise<void>((resolve) => {
        asked = resolve;
      });
      await caller.connect();
      await rootsAsked;
      // One turn, so the client's answer to roots/list is on the wire before the first call.
      await new Promise((resolve) => setImmediate(resolve));
      return filesystemSession(caller, root);
    };
    const { text } = await roundTrip(target, session, "filesystem", { capabilities: features.capabilities, handlers: features.handlers });
    expect(text).toContain('"method":"roots/list"');
  });
});

describe("a 2026-07-28 cassette from the runtime's demo server over stdio", () => {
  it("records progress, an elicitation round trip and failures, and replays them", async () => {
    const handlers = new Map([["elicitation/create", async () => ({ action: "accept", content: { name: "Grace" } })]]);
    const target = (): RecordTarget => ({
      stdio: {
        command: process.execPath,
        args: [TSX, DEMO],
        name: "demo",
        era: MODERN_PROTOCOL_VERSION,
        handlers,
        connectTimeoutMs: 30_000,
      },
    });
    const { text } = await roundTrip(target, demoSession, "demo", { handlers });
    expect(parseCassette(text).header.era).toBe(MODERN_PROTOCOL_VERSION);
    expect(text).toContain('"method":"elicitation/create"');
    expect(text).toContain('"method":"notifications/progress"');
  });
});

describe("a 2026-07-28 cassette from the demo server over streamable HTTP", () => {
  let http: HttpServerHandle;
  beforeAll(async () => {
    http = await serveHttp(createDemoServer(), { port: 0, host: "127.0.0.1" });
  });
  afterAll(() => http.close());

  it("with a bearer header: progress, an input_required round trip and failures, replayed; no token in the cassette", async () => {
    const handlers = new Map([["elicitation/create", async () => ({ action: "accept", content: { name: "Grace" } })]]);
    const target = (): RecordTarget => ({
      http: { url: http.url, name: "demo", era: MODERN_PROTOCOL_VERSION, handlers, headers: { Authorization: `Bearer ${BEARER}` } },
    });
    const { text } = await roundTrip(target, demoSession, "demo-http", { handlers });
    expect(parseCassette(text).header).toMatchObject({ transport: "streamable-http", era: MODERN_PROTOCOL_VERSION });
    expect(text).toContain('"resultType":"input_required"');
    expect(text).toContain('"method":"notifications/progress"');
  });
});
