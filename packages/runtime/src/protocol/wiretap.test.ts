import { describe, expect, it } from "vitest";
import { createRpcPeer } from "./rpc-peer.js";
import type { WireEvent } from "./wiretap.js";

describe("the wiretap on an RPC peer", () => {
  it("sees each message sent and received, and a refused send with its request id", async () => {
    const seen: WireEvent[] = [];
    let fail = false;
    const peer = createRpcPeer({
      send: (message) => {
        if (fail) throw Object.assign(new Error("refused"), { fault: { type: "http", status: 401, message: "unauthorized" } });
        const m = message as { id?: number };
        if (m.id !== undefined) queueMicrotask(() => peer.receive({ jsonrpc: "2.0", id: m.id, result: { ok: true } }));
      },
      wiretap: (event) => seen.push(event),
    });
    expect(await peer.request("ping", undefined)).toEqual({ ok: true, result: { ok: true } });
    fail = true;
    const refused = await peer.request("tools/list", {});
    expect(refused).toMatchObject({ ok: false, fault: { type: "http", status: 401 } });
    expect(seen.map((e) => e.direction)).toEqual(["send", "recv", "send", "fault"]);
    expect(seen[3]).toMatchObject({ direction: "fault", requestId: 2, fault: { status: 401 } });
  });

  it("sees requests the transport failed: one (fail) and all in flight when it ended (failAll), with ended", async () => {
    const seen: WireEvent[] = [];
    const peer = createRpcPeer({ send: () => {}, wiretap: (event) => seen.push(event) });
    const oversize = peer.request("tools/call", { name: "big" });
    const a = peer.request("tools/call", { name: "a" });
    const b = peer.request("tools/call", { name: "b" });
    const big = { type: "transport", code: "EOVERSIZE", message: "too big" } as const;
    expect(peer.fail(1, big)).toBe(true);
    expect(peer.fail(1, big)).toBe(false); // no longer pending: not seen twice
    const exit = { type: "transport", code: "EXIT", message: "exited", exitCode: 70 } as const;
    peer.failAll(exit);
    expect(await oversize).toEqual({ ok: false, fault: big });
    expect(await a).toEqual({ ok: false, fault: exit });
    expect(await b).toEqual({ ok: false, fault: exit });
    expect(seen.filter((e) => e.direction === "fault")).toEqual([
      { direction: "fault", requestId: 1, fault: big },
      { direction: "fault", requestId: 2, fault: exit, ended: true },
      { direction: "fault", requestId: 3, fault: exit, ended: true },
    ]);
    // Nothing in flight: the end is still seen, with no request id.
    peer.failAll(exit);
    expect(seen.at(-1)).toEqual({ direction: "fault", requestId: undefined, fault: exit, ended: true });
  });

  it("a throwing wiretap never breaks the session", async () => {
    const peer = createRpcPeer({
      send: (message) => {
        const m = message as { id?: number };
        queueMicrotask(() => peer.receive({ jsonrpc: "2.0", id: m.id, result: {} }));
      },
      wiretap: () => {
        throw new Error("observer bug");
      },
    });
    expect(await peer.request("ping", undefined)).toEqual({ ok: true, result: {} });
  });
});
