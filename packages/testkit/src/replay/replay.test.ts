/**
 * Replay units, on the runtime's real tool server in this process (no process, no network):
 * hundreds of calls replayed in strict and matching mode, a call the cassette does not hold
 * failing with the nearest recorded call named, ignored fields, and cassette parse errors.
 */
import { createHostedCaller, type SessionCaller } from "@toolwright/runtime/caller";
import { createToolServer, type ServerTool } from "@toolwright/runtime/server";
import { describe, expect, it } from "vitest";
import { CassetteError, parseCassette } from "../cassette/format.js";
import { createRecordingCaller } from "../cassette/record.js";
import { createReplayCaller } from "./replay-caller.js";
import { verifyCassette } from "./verify.js";

// biome-ignore lint/suspicious/noExplicitAny: the list holds tools of different argument types.
const tool = <A>(t: ServerTool<A>): ServerTool<any> => t;

/** A calculator server; `drift` makes `add` answer one more (a server that changed). */
function calculator(drift = 0) {
  return createToolServer({
    name: "calc",
    version: "1.0.0",
    tools: [
      tool({
        name: "add",
        inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
        outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
        handler: (args: { a: number; b: number }) => ({ structuredContent: { sum: args.a + args.b + drift } }),
      }),
      tool({
        name: "echo",
        inputSchema: { type: "object", properties: { message: { type: "string" }, when: { type: "string" } }, required: ["message"] },
        handler: (args: { message: string }) => ({ content: [{ type: "text", text: `Echo: ${args.message}` }] }),
      }),
    ],
  });
}

/** A server with one tool that always runs as a task; `drift` changes its report. */
function reporter(drift = 0) {
  return createToolServer({
    name: "calc",
    version: "1.0.0",
    tools: [
      tool({
        name: "report",
        execution: { taskSupport: "required" },
        inputSchema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
        handler: (args: { topic: string }) => ({ content: [{ type: "text", text: `report on ${args.topic}${"!".repeat(drift)}` }] }),
      }),
    ],
  });
}

const show = (value: unknown) => JSON.stringify(value);

/** Records `calls` add calls and one echo against the calculator, returning the cassette and the real answers. */
async function recordCalculator(calls: number) {
  const recording = createRecordingCaller({ hosted: { name: "calc", host: calculator() } });
  const answers: string[] = [];
  for (let i = 0; i < calls; i++) answers.push(show(await recording.caller.callTool({ name: "add", arguments: { a: i, b: 1 } })));
  answers.push(show(await recording.caller.callTool({ name: "echo", arguments: { message: "hi", when: "monday" } })));
  const text = recording.cassette();
  await recording.close();
  return { text, answers };
}

async function using<T>(caller: SessionCaller, run: (caller: SessionCaller) => Promise<T>): Promise<T> {
  try {
    return await run(caller);
  } finally {
    await caller.close();
  }
}

describe("createReplayCaller", () => {
  it("replays 300 recorded calls in strict order into the same answers", async () => {
    const { text, answers } = await recordCalculator(300);
    const replay = createReplayCaller(text);
    const replayed = await using(replay, async (c) => {
      const out: string[] = [];
      for (let i = 0; i < 300; i++) out.push(show(await c.callTool({ name: "add", arguments: { a: i, b: 1 } })));
      out.push(show(await c.callTool({ name: "echo", arguments: { message: "hi", when: "monday" } })));
      return out;
    });
    expect(replayed).toEqual(answers);
    expect(replay.replay.served).toBe(302); // initialize, 300 adds, echo
    expect(replay.replay.remaining()).toBe(0);
  });

  it("strict: a call out of order fails with the next recorded call and what differs", async () => {
    const { text } = await recordCalculator(3);
    const outcome = await using(createReplayCaller(text), (c) => c.callTool({ name: "add", arguments: { a: 0, b: 2 } }));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.failure.kind).toBe("invalid_call");
    expect(outcome.failure.message).toContain('the next recorded request is #2: tools/call add {"a":0,"b":1}');
    expect(outcome.failure.message).toContain("arguments.b: recorded 1, got 2");
  });

  it("matching: any order, repeats reuse recorded answers, an unrecorded call names the nearest one", async () => {
    const { text, answers } = await recordCalculator(50);
    const replay = createReplayCaller(text, { mode: "matching" });
    await using(replay, async (c) => {
      for (let round = 0; round < 4; round++) {
        for (let i = 49; i >= 0; i--) expect(show(await c.callTool({ name: "add", arguments: { b: 1, a: i } }))).toBe(answers[i]);
      }
      const missing = await c.callTool({ name: "add", arguments: { a: 7, b: 5 } });
      expect(missing.ok).toBe(false);
      if (missing.ok) return;
      expect(missing.failure.message).toContain('the cassette holds no call tools/call add {"a":7,"b":5}');
      expect(missing.failure.message).toContain('nearest recorded request is #9: tools/call add {"a":7,"b":1}');
      expect(missing.failure.message).toContain("arguments.b: recorded 1, got 5");
      const unknown = await c.callTool({ name: "ech", arguments: { message: "hi" } });
      expect(!unknown.ok && unknown.failure.message).toContain(
        'nearest recorded request is #52: tools/call echo {"message":"hi","when":"monday"}',
      );
    });
    expect(replay.replay.served).toBe(201);
  });

  it("matching with ignored fields answers a call that differs only there", async () => {
    const { text, answers } = await recordCalculator(1);
    const strictAnswer = await using(createReplayCaller(text, { mode: "matching" }), (c) =>
      c.callTool({ name: "echo", arguments: { message: "hi", when: "tuesday" } }),
    );
    expect(strictAnswer.ok).toBe(false);
    const ignored = await using(createReplayCaller(text, { mode: "matching", ignore: ["arguments.when"] }), (c) =>
      c.callTool({ name: "echo", arguments: { message: "hi", when: "tuesday" } }),
    );
    expect(show(ignored)).toBe(answers[1]);
  });
});

describe("parseCassette", () => {
  it("names the source and line of a bad cassette", () => {
    expect(() => parseCassette("", "x.jsonl")).toThrow("x.jsonl: empty, expected a header line");
    expect(() => parseCassette('{"cassette":2,"server":"s"}\n', "x.jsonl")).toThrow("x.jsonl:1: cassette format 2 is not supported");
    expect(() => parseCassette('{"cassette":1,"server":"s","transport":"stdio"}\n{nope\n', "x.jsonl")).toThrow(/x\.jsonl:2: not JSON/);
    expect(() => parseCassette('{"cassette":1,"server":"s","transport":"stdio"}\n{"dir":"up"}\n', "x.jsonl")).toThrow(CassetteError);
  });
});

describe("verifyCassette", () => {
  it("finds no difference against the same server, and every drifted answer against a changed one", async () => {
    const { text } = await recordCalculator(3);
    const same = await using(createHostedCaller({ name: "calc", host: calculator() }), (c) => verifyCassette(text, c));
    expect(same).toEqual({ ok: true, checked: 4, differences: [] });
    const drifted = await using(createHostedCaller({ name: "calc", host: calculator(1) }), (c) => verifyCassette(text, c));
    expect(drifted.ok).toBe(false);
    expect(drifted.checked).toBe(4);
    expect(drifted.differences.map((d) => d.request)).toEqual([
      'tools/call add {"a":0,"b":1}',
      'tools/call add {"a":1,"b":1}',
      'tools/call add {"a":2,"b":1}',
    ]);
    expect(drifted.differences[0]?.differences).toContain("result.structuredContent.sum: recorded 1, got 2");
  });
});

describe("recorded failures and secrets", () => {
  it("a refused send (an HTTP 401) replays as the HTTP failure it was: auth_required, the status kept", async () => {
    const { text } = await recordCalculator(0);
    const lines = text.trimEnd().split("\n");
    // The echo exchange as an HTTP caller records a 401: the request went out, the transport refused it.
    const echoSend = lines.findIndex((l) => l.includes('"name":"echo"'));
    const id = (JSON.parse(lines[echoSend] as string) as { msg: { id: number } }).msg.id;
    const faulted = [
      ...lines.slice(0, echoSend + 1),
      JSON.stringify({ dir: "fault", fault: { message: "unauthorized", status: 401, type: "http" }, id }),
    ];
    const outcome = await using(createReplayCaller(`${faulted.join("\n")}\n`), (c) =>
      c.callTool({ name: "echo", arguments: { message: "hi", when: "monday" } }),
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.failure).toMatchObject({
      kind: "auth_required",
      source: "http",
      httpStatus: 401,
      message: "calc: HTTP 401 unauthorized",
    });
  });

  it("a hand-edited fault that is not a wire fault replays as a transport failure naming what was recorded", async () => {
    const { text } = await recordCalculator(0);
    const lines = text.trimEnd().split("\n");
    const echoSend = lines.findIndex((l) => l.includes('"name":"echo"'));
    const id = (JSON.parse(lines[echoSend] as string) as { msg: { id: number } }).msg.id;
    const faulted = [...lines.slice(0, echoSend + 1), JSON.stringify({ dir: "fault", fault: { message: "odd", type: "gremlin" }, id })];
    const outcome = await using(createReplayCaller(`${faulted.join("\n")}\n`), (c) =>
      c.callTool({ name: "echo", arguments: { message: "hi", when: "monday" } }),
    );
    expect(outcome).toMatchObject({
      ok: false,
      failure: { kind: "unavailable", source: "transport", message: "calc: recorded gremlin failure: odd" },
    });
  });

  it("redacts registered and given secrets and bearer text in every recorded message", async () => {
    const recording = createRecordingCaller({ hosted: { name: "calc", host: calculator() } }, { secrets: ["hunter2-secret-value"] });
    await recording.caller.callTool({ name: "echo", arguments: { message: "pw hunter2-secret-value; Authorization: Bearer abc.def-123" } });
    const text = recording.cassette();
    await recording.close();
    expect(text).not.toContain("hunter2-secret-value");
    expect(text).not.toContain("abc.def-123");
    expect(text).toContain("Bearer [redacted]");
  });
});

describe("verifyCassette with a task", () => {
  it("follows the live server's own task id through the recorded tasks/get and tasks/result", async () => {
    const recording = createRecordingCaller({ hosted: { name: "calc", host: reporter() } });
    const answer = await recording.caller.callTool({ name: "report", arguments: { topic: "tides" } });
    expect(answer.ok).toBe(true);
    const text = recording.cassette();
    await recording.close();
    expect(text).toContain('"taskId":"task-1"');
    // The replay serves the task's polls as recorded: the same answer, through the same task flow,
    // with the server's random task id as the cassette numbered it.
    const replayed = await using(createReplayCaller(text), (c) => c.callTool({ name: "report", arguments: { topic: "tides" } }));
    const liveId = /"taskId":"([^"]+)"/.exec(show(answer))?.[1] ?? "";
    expect(liveId).not.toBe("task-1");
    expect(show(replayed)).toBe(show(answer).split(liveId).join("task-1"));
    const ignore = [
      "task.createdAt",
      "task.lastUpdatedAt",
      "createdAt",
      "lastUpdatedAt",
      "pollInterval",
      "task.pollInterval",
      "ttl",
      "task.ttl",
    ];
    const same = await using(createHostedCaller({ name: "calc", host: reporter() }), (c) => verifyCassette(text, c, { ignore }));
    expect(same.differences).toEqual([]);
    expect(same.checked).toBeGreaterThanOrEqual(3);
    const drifted = await using(createHostedCaller({ name: "calc", host: reporter(1) }), (c) => verifyCassette(text, c, { ignore }));
    expect(drifted.differences.map((d) => d.differences.join("; ")).join("\n")).toContain(
      'recorded "report on tides", got "report on tides!"',
    );
  });
});
