import { describe, expect, it } from "vitest";
import type { RpcMessage, RpcNotification } from "../protocol/json-rpc.js";
import { createRpcPeer, type RpcPeer } from "../protocol/rpc-peer.js";
import { type ClientFeatures, createClientFeatures } from "./client-features.js";
import { applySchemaDefaults, urlElicitationsRequired } from "./elicitation.js";

/** Two peers wired back to back: `server` sends requests, `client` answers with the features. */
function pair(features: ClientFeatures | undefined) {
  const wire: RpcMessage[] = [];
  const seen: RpcNotification[] = [];
  let client: RpcPeer | undefined;
  const server: RpcPeer = createRpcPeer({
    send: (m) => {
      wire.push(m);
      client?.receive(JSON.parse(JSON.stringify(m)));
    },
    onNotification: (n) => seen.push(n),
  });
  client = createRpcPeer({
    send: (m) => {
      wire.push(m);
      server.receive(JSON.parse(JSON.stringify(m)));
    },
    ...(features ? { handlers: features.handlers, onNotification: (n) => features.onNotification(n) } : {}),
  });
  return { server, client, wire, seen };
}

const formSchema = {
  type: "object",
  properties: {
    name: { type: "string", default: "Ada" },
    age: { type: "integer", default: 36 },
    score: { type: "number", default: 9.5 },
    colour: { type: "string", enum: ["red", "green"], default: "green" },
    tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, default: ["a"] },
    subscribed: { type: "boolean", default: false },
    nickname: { type: "string" },
  },
  required: ["name"],
} as const;

describe("createClientFeatures: capabilities", () => {
  it("declares only the features given", () => {
    expect(createClientFeatures().capabilities).toEqual({});
    const all = createClientFeatures({
      elicitation: { form: () => ({ action: "cancel" }), url: () => ({ action: "cancel" }) },
      roots: { list: [] },
      sampling: { createMessage: () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }), tools: true },
    });
    expect(all.capabilities).toEqual({
      elicitation: { form: { applyDefaults: true }, url: {} },
      roots: { listChanged: true },
      sampling: { tools: {} },
    });
    expect([...all.handlers.keys()].sort()).toEqual(["elicitation/create", "roots/list", "sampling/createMessage"]);
    const urlOnly = createClientFeatures({ elicitation: { url: () => ({ action: "decline" }) } });
    expect(urlOnly.capabilities).toEqual({ elicitation: { url: {} } });
  });

  it("rejects roots that are not file:// URIs, naming the entry", () => {
    expect(() => createClientFeatures({ roots: { list: [{ uri: "file:///a" }, { uri: "/tmp/x" }] } })).toThrow(/roots\[1\]\.uri/);
  });
});

describe("elicitation", () => {
  it("form mode: applies schema defaults to accepted content (SEP-1034) and keeps given values", async () => {
    const asked: unknown[] = [];
    const f = createClientFeatures({
      elicitation: {
        form: (req) => {
          asked.push(req);
          return { action: "accept", content: { name: "Grace" } };
        },
      },
    });
    const { server } = pair(f);
    const out = await server.request("elicitation/create", { message: "Who?", requestedSchema: formSchema });
    expect(out).toEqual({
      ok: true,
      result: { action: "accept", content: { name: "Grace", age: 36, score: 9.5, colour: "green", tags: ["a"], subscribed: false } },
    });
    expect(asked).toEqual([{ mode: "form", message: "Who?", requestedSchema: formSchema }]);
  });

  it("form mode with applyDefaults false sends content untouched and declares no applyDefaults", async () => {
    const f = createClientFeatures({ elicitation: { applyDefaults: false, form: () => ({ action: "accept", content: {} }) } });
    expect(f.capabilities).toEqual({ elicitation: { form: {} } });
    const out = await pair(f).server.request("elicitation/create", { mode: "form", message: "m", requestedSchema: formSchema });
    expect(out).toEqual({ ok: true, result: { action: "accept", content: {} } });
  });

  it("decline and cancel carry no content", async () => {
    const f = createClientFeatures({ elicitation: { form: () => ({ action: "decline", content: { name: "x" } }) } });
    const out = await pair(f).server.request("elicitation/create", { message: "m", requestedSchema: formSchema });
    expect(out).toEqual({ ok: true, result: { action: "decline" } });
  });

  it("url mode: passes url and elicitationId to the handler, and routes the completion notice", async () => {
    const completed: string[] = [];
    const f = createClientFeatures({
      elicitation: {
        url: (req) => ({ action: req.url.startsWith("https://") ? "accept" : "decline" }),
        onComplete: (id) => completed.push(id),
      },
    });
    const { server } = pair(f);
    const out = await server.request("elicitation/create", {
      mode: "url",
      message: "Sign in",
      url: "https://x.test/a",
      elicitationId: "e1",
    });
    expect(out).toEqual({ ok: true, result: { action: "accept" } });
    await server.notify("notifications/elicitation/complete", { elicitationId: "e1" });
    expect(completed).toEqual(["e1"]);
  });

  it("an undeclared mode is refused with -32602", async () => {
    const formOnly = pair(createClientFeatures({ elicitation: { form: () => ({ action: "cancel" }) } }));
    const url = await formOnly.server.request("elicitation/create", { mode: "url", message: "m", url: "https://x", elicitationId: "1" });
    expect(url).toMatchObject({ ok: false, fault: { type: "rpc", code: -32602 } });
    const urlOnly = pair(createClientFeatures({ elicitation: { url: () => ({ action: "cancel" }) } }));
    const form = await urlOnly.server.request("elicitation/create", { message: "m", requestedSchema: formSchema });
    expect(form).toMatchObject({ ok: false, fault: { type: "rpc", code: -32602, message: expect.stringContaining("form") } });
    const odd = await urlOnly.server.request("elicitation/create", { mode: "telepathy", message: "m" });
    expect(odd).toMatchObject({ ok: false, fault: { type: "rpc", code: -32602 } });
  });

  it("a bad handler result becomes -32603, a bad request -32602", async () => {
    const f = createClientFeatures({ elicitation: { form: () => ({ action: "maybe" }) as never } });
    const { server } = pair(f);
    expect(await server.request("elicitation/create", { message: "m", requestedSchema: formSchema })).toMatchObject({
      ok: false,
      fault: { code: -32603 },
    });
    expect(await server.request("elicitation/create", { message: "m" })).toMatchObject({ ok: false, fault: { code: -32602 } });
  });

  it("applySchemaDefaults ignores non-primitive defaults", () => {
    expect(applySchemaDefaults({ properties: { a: { default: { x: 1 } }, b: { default: Number.NaN }, c: { default: "k" } } }, {})).toEqual({
      c: "k",
    });
  });
});

describe("URLElicitationRequiredError (-32042)", () => {
  const failure = (data: unknown, code = -32042) => ({ rpc: { code, data } });
  it("extracts well-formed url elicitations and ignores everything else", () => {
    const data = {
      elicitations: [
        { mode: "url", url: "https://a.test", elicitationId: "1", message: "m" },
        { url: "https://b.test", elicitationId: "2" },
        { mode: "form", url: "https://c.test", elicitationId: "3" },
        { mode: "url", elicitationId: "4" },
      ],
    };
    expect(urlElicitationsRequired(failure(data))).toEqual([
      { mode: "url", url: "https://a.test", elicitationId: "1", message: "m" },
      { mode: "url", url: "https://b.test", elicitationId: "2", message: "" },
    ]);
    expect(urlElicitationsRequired(failure(data, -32603))).toEqual([]);
    expect(urlElicitationsRequired({})).toEqual([]);
    expect(urlElicitationsRequired(failure({ elicitations: "no" }))).toEqual([]);
  });

  it("answerUrlElicitations is true only when every elicitation is accepted", async () => {
    const seen: string[] = [];
    const f = createClientFeatures({
      elicitation: {
        url: (r) => {
          seen.push(r.elicitationId);
          return { action: r.url.includes("ok") ? "accept" : "decline" };
        },
      },
    });
    const two = (u2: string) =>
      failure({
        elicitations: [
          { url: "https://ok.test", elicitationId: "a" },
          { url: u2, elicitationId: "b" },
        ],
      });
    expect(await f.answerUrlElicitations(two("https://ok2.test"))).toBe(true);
    expect(await f.answerUrlElicitations(two("https://no.test"))).toBe(false);
    expect(seen).toEqual(["a", "b", "a", "b"]);
    expect(await f.answerUrlElicitations(failure({ elicitations: [] }))).toBe(false);
    expect(await createClientFeatures().answerUrlElicitations(two("https://ok.test"))).toBe(false);
  });
});

describe("roots", () => {
  it("answers roots/list and sends list_changed through every notifier on setRoots", async () => {
    const f = createClientFeatures({ roots: { list: [{ uri: "file:///a", name: "A" }] } });
    const { server, client, seen } = pair(f);
    expect(await server.request("roots/list", {})).toEqual({ ok: true, result: { roots: [{ uri: "file:///a", name: "A" }] } });
    const off = f.addNotifier((method, params) => client.notify(method, params));
    await f.setRoots([{ uri: "file:///b" }]);
    expect(seen.map((n) => n.method)).toEqual(["notifications/roots/list_changed"]);
    expect(await server.request("roots/list", {})).toEqual({ ok: true, result: { roots: [{ uri: "file:///b" }] } });
    off();
    await f.rootsChanged();
    expect(seen).toHaveLength(1);
    await expect(f.setRoots([{ uri: "relative" }])).rejects.toThrow(/roots\[0\]/);
  });

  it("a function-backed provider is asked each time; a bad answer is -32603", async () => {
    let n = 0;
    const f = createClientFeatures({ roots: { list: () => (n++ === 0 ? [{ uri: "file:///one" }] : [{ uri: "http://nope" }]) } });
    const { server } = pair(f);
    expect(await server.request("roots/list", {})).toEqual({ ok: true, result: { roots: [{ uri: "file:///one" }] } });
    expect(await server.request("roots/list", {})).toMatchObject({ ok: false, fault: { code: -32603 } });
  });

  it("setRoots without declared roots throws a clear error", async () => {
    await expect(createClientFeatures().setRoots([])).rejects.toThrow(/roots were not declared/);
  });
});

describe("sampling and logging", () => {
  it("passes createMessage to the hook and checks the result", async () => {
    const f = createClientFeatures({
      sampling: {
        createMessage: (req) => ({ role: "assistant", content: { type: "text", text: `max ${req.maxTokens}` }, model: "fake-1" }),
      },
    });
    const { server } = pair(f);
    const ok = await server.request("sampling/createMessage", {
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      maxTokens: 7,
    });
    expect(ok).toEqual({ ok: true, result: { role: "assistant", content: { type: "text", text: "max 7" }, model: "fake-1" } });
    expect(await server.request("sampling/createMessage", { maxTokens: 7 })).toMatchObject({ ok: false, fault: { code: -32602 } });
  });

  it("a hook that returns garbage or throws answers with an error, not a crash", async () => {
    const f = createClientFeatures({ sampling: { createMessage: () => ({ role: "robot" }) as never } });
    const { server } = pair(f);
    const params = { messages: [], maxTokens: 1 };
    expect(await server.request("sampling/createMessage", params)).toMatchObject({ ok: false, fault: { code: -32603 } });
    const g = createClientFeatures({
      sampling: {
        createMessage: () => {
          throw new Error("model down");
        },
      },
    });
    expect(await pair(g).server.request("sampling/createMessage", params)).toMatchObject({
      ok: false,
      fault: { code: -32603, message: "model down" },
    });
  });

  it("routes notifications/message to onLog and leaves other notifications alone", () => {
    const logs: unknown[] = [];
    const f = createClientFeatures({ onLog: (e) => logs.push(e) });
    expect(
      f.onNotification({ jsonrpc: "2.0", method: "notifications/message", params: { level: "error", logger: "db", data: { x: 1 } } }),
    ).toBe(true);
    expect(f.onNotification({ jsonrpc: "2.0", method: "notifications/message", params: { level: "bogus", data: "s" } })).toBe(true);
    expect(f.onNotification({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })).toBe(false);
    expect(logs).toEqual([
      { level: "error", logger: "db", data: { x: 1 } },
      { level: "info", data: "s" },
    ]);
  });
});

describe("no handler", () => {
  it("a server-to-client request the client has no handler for gets -32601", async () => {
    const { server } = pair(createClientFeatures({ onLog: () => {} }));
    expect(await server.request("sampling/createMessage", { messages: [], maxTokens: 1 })).toMatchObject({
      ok: false,
      fault: { type: "rpc", code: -32601 },
    });
    expect(await pair(undefined).server.request("roots/list", {})).toMatchObject({ ok: false, fault: { code: -32601 } });
  });
});
