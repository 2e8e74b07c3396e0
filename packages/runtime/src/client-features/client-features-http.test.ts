/**
 * Client features through the HTTP caller in the 2026-07-28 era: a scripted stateless server on
 * 127.0.0.1 answers tools/call with `input_required` (elicitation, sampling, roots), and the same
 * feature handlers answer them through the MRTR loop. Asserts on what crossed the wire.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpCaller, type HttpCaller } from "../http.js";
import { createClientFeatures } from "./client-features.js";

const servers: Server[] = [];
const callers: HttpCaller[] = [];
afterEach(async () => {
  await Promise.all(callers.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const INPUT_REQUESTS = {
  who: {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: "Who are you?",
      requestedSchema: { type: "object", properties: { name: { type: "string" }, team: { type: "string", default: "core" } } },
    },
  },
  draft: {
    method: "sampling/createMessage",
    params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 },
  },
  where: { method: "roots/list", params: {} },
};

async function mrtrServer(): Promise<{ url: string; calls: { [key: string]: unknown }[] }> {
  const calls: { [key: string]: unknown }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      const msg = JSON.parse(body || "{}") as { id?: number; method?: string; params?: { [key: string]: unknown } };
      const reply = (result: unknown) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
      };
      if (msg.method === "server/discover") {
        return reply({
          resultType: "complete",
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {} },
          serverInfo: { name: "mrtr", version: "1" },
        });
      }
      if (msg.method === "tools/list") return reply({ resultType: "complete", tools: [{ name: "ask", inputSchema: { type: "object" } }] });
      if (msg.method === "tools/call") {
        calls.push(msg.params ?? {});
        if (!msg.params?.inputResponses)
          return reply({ resultType: "input_required", inputRequests: INPUT_REQUESTS, requestState: "state-1" });
        return reply({ resultType: "complete", content: [{ type: "text", text: "done" }] });
      }
      res.writeHead(404);
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, calls };
}

describe("client features over HTTP, 2026-07-28 input_required", () => {
  it("answers elicitation (defaults applied), sampling and roots, then the call completes", async () => {
    const { url, calls } = await mrtrServer();
    const features = createClientFeatures({
      elicitation: { form: () => ({ action: "accept", content: { name: "Ada" } }) },
      sampling: { createMessage: (r) => ({ role: "assistant", content: { type: "text", text: `max ${r.maxTokens}` }, model: "m" }) },
      roots: { list: [{ uri: "file:///work", name: "work" }] },
    });
    const caller = createHttpCaller({
      url,
      era: "2026-07-28",
      capabilities: features.capabilities,
      handlers: features.handlers,
      notificationStream: false,
    });
    callers.push(caller);
    const result = await caller.callTool({ name: "ask", arguments: { q: 1 } });
    expect(result.ok && result.value.content).toEqual([{ type: "text", text: "done" }]);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.inputResponses).toBeUndefined();
    expect(calls[1]).toMatchObject({
      name: "ask",
      arguments: { q: 1 },
      requestState: "state-1",
      inputResponses: {
        who: { action: "accept", content: { name: "Ada", team: "core" } },
        draft: { role: "assistant", content: { type: "text", text: "max 5" }, model: "m" },
        where: { roots: [{ uri: "file:///work", name: "work" }] },
      },
    });
  });

  it("without a sampling handler the input request fails the call as a value, not a hang", async () => {
    const { url, calls } = await mrtrServer();
    const features = createClientFeatures({ elicitation: { form: () => ({ action: "decline" }) }, roots: { list: [] } });
    const caller = createHttpCaller({
      url,
      era: "2026-07-28",
      capabilities: features.capabilities,
      handlers: features.handlers,
      notificationStream: false,
    });
    callers.push(caller);
    const result = await caller.callTool({ name: "ask", arguments: {} });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure.rpc?.code).toBe(-32601);
    expect(calls).toHaveLength(1);
  });
});
