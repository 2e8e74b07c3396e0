/**
 * The `unauthorized` fault: a 401 on a call, then a successful refresh with the runtime's OAuth
 * provider against a scripted authorization server on 127.0.0.1, through the generated client and
 * through the manager. A 401 on every call ends in auth_required / finish.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createOAuthProvider } from "@toolwright/runtime/auth";
import { createHttpCaller } from "@toolwright/runtime/http";
import { createMcpManager } from "@toolwright/runtime/manager";
import { type FaultPlan, startFaultProxy } from "@toolwright/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createEverythingClient } from "../../examples/everything/src/gen/everything/index.js";
import { everythingServer, httpServer, type ToolLog } from "./fault-world.js";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An authorization server that serves the proxy's protected-resource metadata, its own metadata and tokens. */
async function scriptedAs(resource: () => string) {
  const grants: string[] = [];
  let issued = 0;
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/prm") return json(res, 200, { resource: resource(), authorization_servers: [origin] });
      if (path === "/.well-known/oauth-authorization-server") {
        return json(res, 200, {
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          grant_types_supported: ["client_credentials", "refresh_token"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        });
      }
      if (path === "/token") {
        grants.push(new URLSearchParams(body).get("grant_type") ?? "");
        issued++;
        return json(res, 200, { access_token: `tok-${issued}`, refresh_token: `ref-${issued}`, token_type: "Bearer", expires_in: 3600 });
      }
      json(res, 404, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { origin, grants };
}

async function world(plan: FaultPlan) {
  const log: ToolLog = { calls: [] };
  const server = await httpServer(everythingServer(log));
  closers.push(server.close);
  let proxyUrl = "";
  const as = await scriptedAs(() => proxyUrl);
  const proxy = await startFaultProxy({ target: server.url, plan, resourceMetadata: `${as.origin}/prm` });
  closers.push(proxy.close);
  proxyUrl = proxy.url;
  const auth = () =>
    createOAuthProvider({ serverUrl: proxy.url, grant: "client_credentials", clientId: "agent", clientSecret: "s3cret-value" });
  return { log, proxy, as, auth };
}

// Call 1 is refused before any token exists (the provider authorizes), its retry is call 2; the
// next user call is call 3, refused with a token that worked: the provider refreshes.
const refreshPlan: FaultPlan = [
  { tool: "echo", call: 1, fault: { kind: "unauthorized" } },
  { tool: "echo", call: 3, fault: { kind: "unauthorized" } },
];

describe("401 then refresh", () => {
  it("through the generated client: both calls succeed, the second after a refresh grant", async () => {
    const { log, proxy, as, auth } = await world(refreshPlan);
    const caller = createHttpCaller({ name: "everything", url: proxy.url, era: "legacy", auth: auth() });
    closers.push(() => caller.close());
    const client = createEverythingClient(caller);
    expect(await client.echo({ message: "a" })).toMatchObject({ ok: true });
    expect(await client.echo({ message: "b" })).toMatchObject({ ok: true });
    expect(proxy.refusedTokens).toEqual([undefined, "Bearer tok-1"]);
    expect(as.grants).toEqual(["client_credentials", "refresh_token"]);
    expect(log.calls).toEqual(["echo:a", "echo:b"]);
  });

  it("through the manager (its HTTP client with the provider): the same", async () => {
    const { log, proxy, as, auth } = await world(refreshPlan);
    const provider = auth();
    const manager = createMcpManager(
      { mcpServers: { everything: { transport: "http", url: proxy.url, headers: {}, era: "legacy" } } },
      { client: { createHttpClient: (o) => createHttpCaller({ ...o, env: {}, auth: provider }) } },
    );
    closers.push(() => manager.stop());
    await manager.start();
    expect(await manager.callTool("everything.echo", { message: "a" })).toMatchObject({ ok: true });
    expect(await manager.callTool("everything.echo", { message: "b" })).toMatchObject({ ok: true });
    expect(as.grants).toEqual(["client_credentials", "refresh_token"]);
    expect(proxy.refusedTokens).toEqual([undefined, "Bearer tok-1"]);
    expect(log.calls).toEqual(["echo:a", "echo:b"]);
  });

  it("401 on every call: auth_required, finish, and no secret in the failure", async () => {
    const { log, proxy, auth } = await world([{ tool: "echo", every: true, fault: { kind: "unauthorized" } }]);
    const caller = createHttpCaller({ name: "everything", url: proxy.url, era: "legacy", auth: auth() });
    closers.push(() => caller.close());
    const r = await createEverythingClient(caller).echo({ message: "a" });
    expect(r).toMatchObject({ ok: false, failure: { kind: "auth_required", httpStatus: 401, recovery: { action: "finish" } } });
    expect(JSON.stringify(r)).not.toContain("s3cret-value");
    expect(log.calls).toEqual([]);
  });
});
