/**
 * The peer's request deadlines share one timer: each request still times out on its own deadline
 * (a short one armed after a long one, progress resets, the maximum total), and a peer with no
 * request waiting holds no ref'd timer, so it never keeps the process alive.
 */
import { describe, expect, it, vi } from "vitest";
import type { RpcMessage, RpcRequest } from "./json-rpc.js";
import { createRpcPeer } from "./rpc-peer.js";

function peerWithLog() {
  const sent: RpcMessage[] = [];
  const peer = createRpcPeer({ send: (message) => void sent.push(message) });
  const requests = () => sent.filter((m): m is RpcRequest => "id" in m && "method" in m);
  return { peer, sent, requests };
}

const refTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

describe("rpc-peer deadlines", () => {
  it("a short deadline armed after a long one times out first; the long one is still answered", async () => {
    const { peer, requests } = peerWithLog();
    const long = peer.request("slow", {}, { timeoutMs: 60_000 });
    const short = peer.request("fast", {}, { timeoutMs: 20 });
    const shortOut = await short;
    expect(shortOut).toMatchObject({ ok: false, fault: { type: "timeout", phase: "request" } });
    expect(peer.inFlight).toBe(1);
    const [slow] = requests();
    peer.receive({ jsonrpc: "2.0", id: slow?.id, result: { done: true } });
    expect(await long).toEqual({ ok: true, result: { done: true } });
    expect(peer.inFlight).toBe(0);
  });

  it("deadlines expire in their own order, each abandoned with notifications/cancelled", async () => {
    const { peer, sent } = peerWithLog();
    const order: string[] = [];
    const track = (name: string, p: Promise<unknown>) => p.then(() => order.push(name));
    await Promise.all([
      track("b", peer.request("b", {}, { timeoutMs: 60 })),
      track("a", peer.request("a", {}, { timeoutMs: 20 })),
      track("c", peer.request("c", {}, { timeoutMs: 100, timeoutPhase: "connect" })),
    ]);
    expect(order).toEqual(["a", "b", "c"]);
    await Promise.resolve();
    const cancelled = sent.filter((m) => "method" in m && m.method === "notifications/cancelled");
    expect(cancelled).toHaveLength(3);
  });

  it("progress moves the deadline, and the maximum total still holds", async () => {
    vi.useFakeTimers();
    try {
      const { peer, requests } = peerWithLog();
      let out: unknown;
      void peer
        .request("work", {}, { timeoutMs: 40, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 150, onProgress: () => {} })
        .then((o) => {
          out = o;
        });
      await Promise.resolve(); // the request leaves by the next microtask at the latest
      const token = (requests()[0]?.params?._meta as { progressToken?: number } | undefined)?.progressToken;
      const progress = (n: number) =>
        peer.receive({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: n } });
      // Progress every 30 ms keeps the 40 ms timeout from firing, past its first deadline...
      for (let n = 1; n <= 4; n++) {
        await vi.advanceTimersByTimeAsync(30);
        progress(n);
      }
      await vi.advanceTimersByTimeAsync(25);
      expect(out).toBeUndefined();
      expect(peer.inFlight).toBe(1);
      // ...until the 150 ms cap, which progress does not move.
      await vi.advanceTimersByTimeAsync(10);
      expect(out).toMatchObject({ ok: false, fault: { type: "timeout", phase: "request", message: "no answer within 150 ms" } });
      expect(peer.inFlight).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("without progress the deadline is the timeout, to the millisecond of the clock", async () => {
    vi.useFakeTimers();
    try {
      const { peer } = peerWithLog();
      let out: unknown;
      void peer.request("work", {}, { timeoutMs: 40, resetTimeoutOnProgress: true, onProgress: () => {} }).then((o) => {
        out = o;
      });
      await vi.advanceTimersByTimeAsync(39);
      expect(out).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(out).toMatchObject({ ok: false, fault: { type: "timeout", message: "no answer within 40 ms" } });
    } finally {
      vi.useRealTimers();
    }
  });

  it("an abort still ends the request at once, and its deadline goes with it", async () => {
    const { peer } = peerWithLog();
    const controller = new AbortController();
    const call = peer.request("x", {}, { timeoutMs: 60_000, signal: controller.signal });
    controller.abort();
    expect(await call).toMatchObject({ ok: false, fault: { type: "canceled" } });
    expect(peer.inFlight).toBe(0);
  });

  it("holds a ref'd timer only while a request with a deadline waits", async () => {
    const before = refTimers();
    const { peer, requests } = peerWithLog();
    const first = peer.request("one", {}, { timeoutMs: 60_000 });
    expect(refTimers()).toBe(before + 1);
    await Promise.resolve(); // the request leaves by the next microtask at the latest
    peer.receive({ jsonrpc: "2.0", id: requests()[0]?.id, result: {} });
    await first;
    expect(refTimers()).toBe(before);
    // A later request re-uses the same timer (earlier deadline still armed) and refs it again.
    const second = peer.request("two", {}, { timeoutMs: 60_000 });
    expect(refTimers()).toBe(before + 1);
    peer.failAll({ type: "transport", code: "EXIT", message: "gone" });
    expect(await second).toMatchObject({ ok: false, fault: { code: "EXIT" } });
    expect(refTimers()).toBe(before);
    // No deadline, no timer.
    const untimed = peer.request("three", {}, { timeoutMs: 0 });
    expect(refTimers()).toBe(before);
    await Promise.resolve();
    peer.receive({ jsonrpc: "2.0", id: requests()[2]?.id, result: {} });
    expect(await untimed).toEqual({ ok: true, result: {} });
  });

  it("a transport that holds the process (a child) gets a timer that is never ref'd, and deadlines still hold", async () => {
    const before = refTimers();
    const sent: RpcMessage[] = [];
    const peer = createRpcPeer({ send: (message) => void sent.push(message), holdsProcess: true });
    const answered = peer.request("one", {}, { timeoutMs: 60_000 });
    const late = peer.request("two", {}, { timeoutMs: 20 });
    expect(refTimers()).toBe(before);
    await Promise.resolve();
    peer.receive({ jsonrpc: "2.0", id: (sent[0] as RpcRequest).id, result: {} });
    expect(await answered).toEqual({ ok: true, result: {} });
    // The unref'd timer still fires while something else keeps the process up (here vitest).
    expect(await late).toMatchObject({ ok: false, fault: { type: "timeout", phase: "request" } });
    expect(refTimers()).toBe(before);
  });

  it("failAll (the transport closed) leaves no timer behind, ref'd or not", async () => {
    const created: NodeJS.Timeout[] = [];
    const realTimeout = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, "setTimeout").mockImplementation(((...args: Parameters<typeof setTimeout>) => {
      const t = realTimeout(...args);
      created.push(t);
      return t;
    }) as typeof setTimeout);
    try {
      const { peer, requests } = peerWithLog();
      const call = peer.request("one", {}, { timeoutMs: 60_000 });
      await Promise.resolve();
      peer.receive({ jsonrpc: "2.0", id: requests()[0]?.id, result: {} });
      await call;
      expect(created.filter((t) => !(t as unknown as { _destroyed: boolean })._destroyed)).toHaveLength(1);
      peer.failAll({ type: "transport", code: "EXIT", message: "closed" });
      expect(created.filter((t) => !(t as unknown as { _destroyed: boolean })._destroyed)).toHaveLength(0);
    } finally {
      spy.mockRestore();
    }
  });

  it("a send that throws or rejects settles the request as a transport fault", async () => {
    const throwing = createRpcPeer({
      send: () => {
        throw new Error("stdin is gone");
      },
    });
    expect(await throwing.request("x", {}, { timeoutMs: 1000 })).toEqual({
      ok: false,
      fault: { type: "transport", code: "ESEND", message: "stdin is gone" },
    });
    const rejecting = createRpcPeer({ send: async () => Promise.reject(new Error("socket closed")) });
    expect(await rejecting.request("x", {}, { timeoutMs: 1000 })).toMatchObject({ ok: false, fault: { type: "transport", code: "ESEND" } });
    expect(throwing.inFlight + rejecting.inFlight).toBe(0);
  });

  it("answers: a result settles its request, an error wins over a result, an unknown id is noise", async () => {
    const noise: string[] = [];
    const sent: RpcRequest[] = [];
    const peer = createRpcPeer({ send: (m) => void sent.push(m as RpcRequest), onProtocolNoise: (r) => noise.push(r) });
    const a = peer.request("a", {}, {});
    const b = peer.request("b", {}, {});
    await Promise.resolve();
    peer.receive({ jsonrpc: "2.0", id: sent[1]?.id, result: { x: 1 }, error: { code: -32000, message: "both" } });
    peer.receive({ jsonrpc: "2.0", id: 999, result: {} });
    peer.receive({ jsonrpc: "2.0", id: sent[0]?.id, result: { y: 2 } });
    peer.receive({ jsonrpc: "2.0", id: sent[0]?.id, result: { late: true } });
    expect(await a).toEqual({ ok: true, result: { y: 2 } });
    expect(await b).toEqual({ ok: false, fault: { type: "rpc", code: -32000, message: "both" } });
    expect(noise).toEqual(["response for unknown id 999", `response for unknown id ${sent[0]?.id}`]);
  });
});
