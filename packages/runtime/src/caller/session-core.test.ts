/**
 * The session-caller core with a connector whose open the test holds back: the connect is shared
 * and survives a waiting call's abort, close() ends it, a lost session is retried once, secrets
 * never reach a failure, and connects after failures follow the one restart backoff.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { WireFault } from "../failure/wire-fault.js";
import { createConnectBudget, openSession } from "../protocol/mcp-client.js";
import type { Outcome } from "../protocol/mcp-session.js";
import { createRpcPeer } from "../protocol/rpc-peer.js";
import { createToolServer } from "../server/tool-server.js";
import type { ServerTool } from "../server/types.js";
import { createInMemoryPipe, type InMemoryPipe } from "../transport/in-memory.js";
import { backoffDelay } from "./backoff.js";
import { isCallerClosedError } from "./caller.js";
import { type ConnectorLink, connectionOn, type SessionConnection, type SessionCoreSpec } from "./connector.js";
import { createSessionCore } from "./session-core.js";

interface TestConnection extends SessionConnection {
  readonly pipe: InMemoryPipe;
}

const echo: ServerTool = {
  name: "echo",
  inputSchema: { type: "object" },
  handler: (args) => ({ content: [{ type: "text", text: String(args.text) }] }),
};

/** A connector over the in-memory transport to a real tool server, with hooks to hold or fail opens. */
function harness(extra: Partial<SessionCoreSpec> = {}, connector: { ignoreSignal?: boolean } = {}) {
  const server = createToolServer({ name: "srv", version: "1.0.0", tools: [echo] });
  const opens: AbortSignal[] = [];
  const disposed: TestConnection[] = [];
  let gate: Promise<void> = Promise.resolve();
  let failNext: WireFault | undefined;
  let lostOnce: WireFault | undefined;
  let link: ConnectorLink<TestConnection> | undefined;
  const core = createSessionCore<TestConnection>(
    { server: "srv", options: {}, era: "legacy", secrets: [], listen: false, warn: () => {}, ...extra },
    (l) => {
      link = l;
      return {
        async open(signal): Promise<Outcome<TestConnection>> {
          opens.push(signal);
          await gate;
          if (failNext) {
            const fault = failNext;
            failNext = undefined;
            return { ok: false, fault };
          }
          let conn: TestConnection | undefined;
          const pipe = createInMemoryPipe(server, (value) => peer.receive(value));
          const peer = createRpcPeer({ send: (message) => pipe.send(message), onNotification: (n) => conn && l.notification(conn, n) });
          conn = connectionOn(peer, { pipe });
          const session = await openSession(peer, l.identity, l.era, {
            budget: createConnectBudget(5000),
            probeTimeoutMs: 1000,
            signal: connector.ignoreSignal ? undefined : signal,
          });
          if (!session.ok) return session;
          conn.session = session.value;
          return { ok: true, value: conn };
        },
        async dispose(conn) {
          disposed.push(conn);
          conn.pipe.close();
        },
        sessionLost(_conn, fault) {
          if (lostOnce === undefined || fault.message !== lostOnce.message) return false;
          lostOnce = undefined;
          return true;
        },
      };
    },
  );
  const caller = core.caller({ extra: 1 });
  return {
    core,
    caller,
    opens,
    disposed,
    link: () => link as ConnectorLink<TestConnection>,
    hold() {
      let release = () => {};
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return release;
    },
    failNextOpen(fault: WireFault) {
      failNext = fault;
    },
    loseSessionOn(fault: WireFault) {
      lostOnce = fault;
    },
  };
}

const call = { name: "echo", arguments: { text: "hi" } };

afterEach(() => {
  vi.useRealTimers();
});

describe("session core: the shared connect", () => {
  it("one connect serves every call waiting for it; a live connection is reused", async () => {
    const h = harness();
    const release = h.hold();
    const a = h.caller.callTool(call);
    const b = h.caller.listTools();
    release();
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra).toMatchObject({ ok: true, value: { content: [{ type: "text", text: "hi" }] } });
    expect(rb).toMatchObject({ ok: true, value: [{ name: "echo" }] });
    expect((await h.caller.callTool(call)).ok).toBe(true);
    expect(h.opens).toHaveLength(1);
    expect(h.caller.handshake?.serverInfo?.name).toBe("srv");
    expect((h.caller as unknown as { extra: number }).extra).toBe(1);
    await h.caller.close();
  });

  it("a call aborted while connecting is canceled; the shared connect goes on for the other call", async () => {
    const h = harness();
    const release = h.hold();
    const controller = new AbortController();
    const aborted = h.caller.callTool(call, { signal: controller.signal });
    const other = h.caller.callTool(call);
    controller.abort();
    const first = await aborted;
    expect(first.ok).toBe(false);
    if (!first.ok) expect(first.failure).toMatchObject({ kind: "canceled", message: expect.stringContaining("aborted while connecting") });
    // The connect runs on the caller's own life signal, which the call's abort did not touch.
    expect(h.opens[0]?.aborted).toBe(false);
    release();
    expect((await other).ok).toBe(true);
    expect(h.opens).toHaveLength(1);
    await h.caller.close();
  });

  it("a call whose signal is already aborted is canceled before it waits", async () => {
    const h = harness();
    const r = await h.caller.callTool(call, { signal: AbortSignal.abort() });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.message).toContain("aborted before connecting");
    await h.caller.close();
  });

  it("close() during a connect aborts it: the waiting call is a failure value, later use throws", async () => {
    const h = harness();
    const release = h.hold();
    const waiting = h.caller.callTool(call);
    const closing = h.caller.close();
    expect(h.opens[0]?.aborted).toBe(true);
    release();
    await closing;
    const r = await waiting;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.kind).toBe("canceled");
    await expect(h.caller.callTool(call)).rejects.toSatisfy(isCallerClosedError);
    // A second close() is harmless and waits for the same work.
    await h.caller.close();
  });

  it("a connect that still succeeds after close() is disposed, never kept", async () => {
    const h = harness({}, { ignoreSignal: true });
    const release = h.hold();
    const waiting = h.caller.callTool(call);
    const closing = h.caller.close();
    release();
    await closing;
    const r = await waiting;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.message).toContain("the caller is closed");
    expect(h.core.live()).toBeUndefined();
    expect(h.disposed).toHaveLength(1);
    expect(h.disposed[0]?.pipe.closed).toBe(true);
  });

  it("a lost connection is dropped: the next call opens a new one", async () => {
    const h = harness();
    expect((await h.caller.callTool(call)).ok).toBe(true);
    const first = h.core.live() as TestConnection;
    h.link().lost(first);
    expect(h.core.live()).toBeUndefined();
    expect((await h.caller.callTool(call)).ok).toBe(true);
    expect(h.opens).toHaveLength(2);
    expect(h.core.live()).not.toBe(first);
    await h.caller.close();
  });

  it("a session the server forgot is opened again once and the call retried", async () => {
    const h = harness();
    expect((await h.caller.callTool(call)).ok).toBe(true);
    // The connection breaks under the core (as a server forgets a session): the next request's fault
    // is one the connector calls a lost session, so the core opens a new connection and retries.
    const live = h.core.live() as TestConnection;
    live.pipe.close();
    h.loseSessionOn({ type: "transport", code: "ECLOSED", message: "the in-memory session is closed" });
    const r = await h.caller.callTool(call);
    expect(r.ok).toBe(true);
    expect(h.opens).toHaveLength(2);
    expect(h.disposed).toContain(live);
    await h.caller.close();
  });
});

describe("session core: failures", () => {
  it("configured secrets never reach a failure or a connect fault", async () => {
    const secret = "sk-live-0123456789abcdef";
    const h = harness({ secrets: [secret] });
    h.failNextOpen({ type: "transport", code: "ECONNREFUSED", message: `refused for token ${secret}` });
    const r = await h.caller.callTool(call);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(JSON.stringify(r.failure)).not.toContain(secret);
      expect(r.failure.message).toContain("refused for token");
    }
    h.failNextOpen({ type: "transport", code: "ECONNREFUSED", message: `refused for token ${secret}` });
    const c = await h.caller.connect();
    expect(c.ok).toBe(false);
    expect(JSON.stringify(c)).not.toContain(secret);
    expect(h.core.scrub(`a ${secret} b`)).not.toContain(secret);
    await h.caller.close();
  });

  it("an unknown tool gets the server's answer over the session", async () => {
    const h = harness();
    const r = await h.caller.callTool({ name: "nope", arguments: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure).toMatchObject({ rpc: { code: -32602 }, message: expect.stringContaining("Unknown tool: nope") });
    await h.caller.close();
  });
});

describe("restart backoff", () => {
  it("doubles from the first delay per consecutive failure, up to the cap", () => {
    expect([0, 1, 2, 3, 4].map((n) => backoffDelay(n))).toEqual([0, 100, 200, 400, 800]);
    expect(backoffDelay(20)).toBe(5000);
    expect([1, 2, 3].map((n) => backoffDelay(n, { delayMs: 10, maxDelayMs: 25 }))).toEqual([10, 20, 25]);
  });

  it("a connect after a failed one waits the backoff; a success starts over", async () => {
    vi.useFakeTimers();
    const h = harness({ restart: { delayMs: 1000, maxDelayMs: 10_000 } });
    h.failNextOpen({ type: "timeout", phase: "connect", message: "no answer" });
    const first = await h.caller.callTool(call);
    expect(first.ok).toBe(false);
    expect(h.opens).toHaveLength(1);
    const second = h.caller.callTool(call);
    await vi.advanceTimersByTimeAsync(999);
    expect(h.opens).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.opens).toHaveLength(2);
    expect((await second).ok).toBe(true);
    // A crash after the success counts once: the next connect waits the first delay again, not the second.
    h.link().crashed();
    h.link().lost(h.core.live() as TestConnection);
    const third = h.caller.callTool(call);
    await vi.advanceTimersByTimeAsync(999);
    expect(h.opens).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect((await third).ok).toBe(true);
    expect(h.opens).toHaveLength(3);
    await h.caller.close();
  });

  it("close() ends a backoff wait at once", async () => {
    vi.useFakeTimers();
    const h = harness({ restart: { delayMs: 60_000 } });
    h.failNextOpen({ type: "rpc", code: -32603, message: "broken" });
    expect((await h.caller.callTool(call)).ok).toBe(false);
    const waiting = h.caller.callTool(call);
    await h.caller.close();
    const r = await waiting;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.failure.kind).toBe("canceled");
    expect(h.opens).toHaveLength(1);
  });
});
