/**
 * OAuth through the real HTTP caller: a small protected MCP server and an authorization server on
 * 127.0.0.1, the caller with `createOAuthProvider`. Asserts on what crossed the wire.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createOAuthProvider, type OAuthProviderOptions, startLoopbackRedirect } from "@toolwright/runtime/auth";
import { createHttpCaller, type HttpCaller } from "@toolwright/runtime/http";
import { afterEach, describe, expect, it } from "vitest";

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly auth: string | undefined;
  readonly rpc?: string;
  readonly form?: { [key: string]: string };
}

const servers: Server[] = [];
const callers: HttpCaller[] = [];
afterEach(async () => {
  await Promise.all(callers.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => handler(req, res, body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: { [key: string]: string } = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

/** An MCP server (legacy, JSON responses) that wants `mcp:read` for tools/list and `mcp:write` for tools/call. */
async function world(options: { iss?: "correct" | "wrong" } = {}) {
  const seen: Seen[] = [];
  const granted = new Map<string, string[]>();
  let tokens = 0;
  const as = await listen((req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    const form = Object.fromEntries(req.method === "GET" ? url.searchParams : new URLSearchParams(body));
    seen.push({ method: req.method ?? "", path: `as:${url.pathname}`, auth: req.headers.authorization, form });
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer: as,
        authorization_endpoint: `${as}/authorize`,
        token_endpoint: `${as}/token`,
        registration_endpoint: `${as}/register`,
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (url.pathname === "/register") return json(res, 201, { client_id: "dyn-client" });
    if (url.pathname === "/authorize") {
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", `code:${url.searchParams.get("scope") ?? ""}`);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      back.searchParams.set("iss", options.iss === "wrong" ? "http://evil.test" : as);
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === "/token") {
      const token = `tok-${++tokens}`;
      granted.set(
        token,
        (form.code ?? "")
          .replace(/^code:/, "")
          .split(" ")
          .filter(Boolean),
      );
      return json(res, 200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
    }
    json(res, 404, {});
  });
  const mcp = await listen((req, res, body) => {
    const url = new URL(req.url ?? "/", "http://x");
    const auth = req.headers.authorization;
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      seen.push({ method: req.method ?? "", path: url.pathname, auth });
      return json(res, 200, { resource: `${mcp}/mcp`, authorization_servers: [as], scopes_supported: ["mcp:read"] });
    }
    const msg = JSON.parse(body || "{}") as { id?: number; method?: string };
    seen.push({ method: req.method ?? "", path: url.pathname, auth, ...(msg.method ? { rpc: msg.method } : {}) });
    if (req.method !== "POST") return json(res, 405, {});
    if (msg.method === "initialize") {
      return json(res, 200, {
        jsonrpc: "2.0",
        id: msg.id,
        result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "p", version: "1" } },
      });
    }
    if (msg.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    const need = msg.method === "tools/call" ? "mcp:write" : "mcp:read";
    const scopes = auth?.startsWith("Bearer ") ? granted.get(auth.slice(7)) : undefined;
    const prm = `${mcp}/.well-known/oauth-protected-resource/mcp`;
    if (!scopes) return json(res, 401, {}, { "www-authenticate": `Bearer resource_metadata="${prm}", scope="mcp:read"` });
    if (!scopes.includes(need)) {
      return json(res, 403, {}, { "www-authenticate": `Bearer error="insufficient_scope", scope="${need}", resource_metadata="${prm}"` });
    }
    if (msg.method === "tools/list")
      return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "write", inputSchema: { type: "object" } }] } });
    return json(res, 200, { jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "written" }] } });
  });
  return { url: `${mcp}/mcp`, seen };
}

async function followRedirect(url: string) {
  const res = await fetch(url, { redirect: "manual" });
  const back = new URL(res.headers.get("location") ?? "");
  const state = back.searchParams.get("state");
  const iss = back.searchParams.get("iss");
  return { code: back.searchParams.get("code") ?? "", ...(state ? { state } : {}), ...(iss ? { iss } : {}) };
}

function caller(url: string, extra: Partial<OAuthProviderOptions> = {}) {
  const auth = createOAuthProvider({
    serverUrl: url,
    redirectUri: "http://127.0.0.1:1/callback",
    authorizationHandler: followRedirect,
    ...extra,
  });
  const c = createHttpCaller({ url, era: "legacy", auth, notificationStream: false, timeoutMs: 10_000 });
  callers.push(c);
  return { c, auth };
}

describe("OAuth through createHttpCaller on 127.0.0.1", () => {
  it("401 -> discovery, registration, PKCE authorization, token -> the retried request carries the token", async () => {
    const w = await world();
    const { c } = caller(w.url);
    const listed = await c.listTools();
    expect(listed.ok && listed.value.map((t) => t.name)).toEqual(["write"]);
    const flow = w.seen.map((s) => s.rpc ?? `${s.method} ${s.path}`);
    const first401 = flow.indexOf("tools/list");
    expect(flow.slice(first401, first401 + 7)).toEqual([
      "tools/list",
      "GET /.well-known/oauth-protected-resource/mcp",
      "GET as:/.well-known/oauth-authorization-server",
      "POST as:/register",
      "GET as:/authorize",
      "POST as:/token",
      "tools/list",
    ]);
    const retried = w.seen.filter((s) => s.rpc === "tools/list");
    expect(retried.map((s) => s.auth)).toEqual([undefined, "Bearer tok-1"]);
  });

  it("403 insufficient_scope on tools/call steps up with the union of scopes and the call succeeds", async () => {
    const w = await world();
    const { c } = caller(w.url);
    const result = await c.callTool({ name: "write", arguments: {} });
    expect(result.ok && result.value.content).toEqual([{ type: "text", text: "written" }]);
    const scopes = w.seen.filter((s) => s.path === "as:/authorize").map((s) => s.form?.scope);
    const tokenCodes = w.seen.filter((s) => s.path === "as:/token").map((s) => s.form?.code);
    expect(scopes).toEqual(["mcp:read", "mcp:read mcp:write"]);
    expect(tokenCodes).toEqual(["code:mcp:read", "code:mcp:read mcp:write"]);
  });

  it("end to end with the loopback redirect receiver: the 'browser' follows the AS redirect to 127.0.0.1", async () => {
    const w = await world();
    const loopback = await startLoopbackRedirect({ open: async (url) => void (await fetch(url)) });
    try {
      const auth = createOAuthProvider({
        serverUrl: w.url,
        redirectUri: loopback.redirectUri,
        authorizationHandler: (u) => loopback.authorizationHandler(u),
      });
      const c = createHttpCaller({ url: w.url, era: "legacy", auth, notificationStream: false });
      callers.push(c);
      const listed = await c.listTools();
      expect(listed.ok && listed.value.map((t) => t.name)).toEqual(["write"]);
      const authorize = w.seen.find((s) => s.path === "as:/authorize");
      expect(authorize?.form?.redirect_uri).toBe(loopback.redirectUri);
      const token = w.seen.find((s) => s.path === "as:/token");
      expect(token?.form).toMatchObject({ grant_type: "authorization_code", redirect_uri: loopback.redirectUri, code: "code:mcp:read" });
    } finally {
      await loopback.close();
    }
  });

  it("a refused authorization (wrong iss) is an auth_required failure value, promptly", async () => {
    const w = await world({ iss: "wrong" });
    const errors: string[] = [];
    const { c } = caller(w.url, { onError: (e) => errors.push(e.code) });
    const listed = await c.listTools();
    expect(listed.ok).toBe(false);
    if (!listed.ok) {
      expect(listed.failure.kind).toBe("auth_required");
      expect(listed.failure.httpStatus).toBe(401);
    }
    expect(errors).toEqual(["iss_mismatch"]);
    expect(w.seen.some((s) => s.path === "as:/token")).toBe(false);
  });
});
