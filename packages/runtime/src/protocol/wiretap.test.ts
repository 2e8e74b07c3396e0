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
