/**
 * OAuth requests obey the outbound policy: a protected MCP server on 127.0.0.1 whose metadata points
 * the caller at a host or address the policy refuses gets a transport failure naming the host and the
 * rule, and the refused host receives no request. Real HTTP servers on 127.0.0.1 (one reached as
 * `localhost`, a different host name for `allowedHosts`), the real HTTP caller and OAuth provider.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createOAuthProvider, type OAuthProviderOptions } from "@toolwright/runtime/auth";
import { createHttpCaller, type HttpCaller, type OutboundPolicy } from "@toolwright/runtime/http";
import { afterEach, describe, expect, it } from "vitest";

const servers: Server[] = [];
const callers: HttpCaller[] = [];
afterEach(async () => {
  await Promise.all(callers.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => handler(req, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: { [key: string]: string } = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

/** An authorization server; `tokenRedirect` sends its token endpoint's POST elsewhere with a 307. */
async function authServer(host: string, options: { tokenRedirect?: string } = {}) {
  const hits: string[] = [];
  const port = await listen((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.push(`${req.method} ${path}`);
    if (path === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_post"],
      });
    }
    if (path === "/token" && options.tokenRedirect) {
      res.writeHead(307, { location: options.tokenRedirect });
      return res.end();
    }
    if (path === "/token") return json(res, 200, { access_token: "tok", token_type: "Bearer", expires_in: 3600 });
    json(res, 404, {});
  });
  const origin = `http://${host}:${port}`;
  return { origin, hits };
}

/** A protected MCP server whose PRM names `authorizationServer`; every MCP request without a token gets a 401. */
async function protectedServer(authorizationServer: string) {
  const port = await listen((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/.well-known/oauth-protected-resource/mcp") {
      return json(res, 200, { resource: url, authorization_servers: [authorizationServer] });
    }
    json(res, 401, {}, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` });
  });
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}/mcp`;
  return url;
}

function caller(url: string, outbound: OutboundPolicy | undefined, extra: Partial<OAuthProviderOptions> = {}) {
  const errors: string[] = [];
  const auth = createOAuthProvider({
    serverUrl: url,
    grant: "client_credentials",
    clientId: "machine",
    clientSecret: "client-secret-value-4d1e",
    onError: (e) => errors.push(e.code),
    ...extra,
  });
  const c = createHttpCaller({ url, era: "legacy", auth, notificationStream: false, timeoutMs: 10_000, ...(outbound ? { outbound } : {}) });
  callers.push(c);
  return { c, errors };
}

describe("OAuth requests obey the outbound policy", () => {
  it("PRM names an authorization server off allowedHosts: refused with the host and rule, the AS sees nothing", async () => {
    const as = await authServer("localhost");
    const url = await protectedServer(as.origin);
    const { c, errors } = caller(url, { allowedHosts: ["127.0.0.1"] });
    const listed = await c.listTools();
    expect(listed.ok).toBe(false);
    if (!listed.ok) {
      expect(listed.failure.kind).toBe("unavailable");
      expect(listed.failure.message).toContain(`OAuth request refused by the outbound policy: ${as.origin} is not in allowedHosts`);
      expect(listed.failure.message).not.toContain("client-secret-value-4d1e");
    }
    expect(errors).toEqual(["outbound_refused"]);
    expect(as.hits).toEqual([]);
  });

  it("PRM names an authorization server at a private address: refused by default (allowPrivateNetworks)", async () => {
    const url = await protectedServer("http://10.255.0.7:8443");
    const { c } = caller(url, undefined);
    const listed = await c.listTools();
    expect(listed.ok).toBe(false);
    if (!listed.ok) {
      expect(listed.failure.kind).toBe("unavailable");
      expect(listed.failure.message).toMatch(/http:\/\/10\.255\.0\.7:8443 is a private or non-public address \(set allowPrivateNetworks/);
    }
  });

  it("a token endpoint that redirects to another host: the hop is refused and that host receives no request", async () => {
    const elsewhere = await authServer("localhost");
    const as = await authServer("127.0.0.1");
    const url = await protectedServer(as.origin);
    // This AS answers its token POST with a 307 to the other host.
    const redirecting = await authServer("127.0.0.1", { tokenRedirect: `${elsewhere.origin}/token` });
    const url2 = await protectedServer(redirecting.origin);
    const { c, errors } = caller(url2, { allowedHosts: ["127.0.0.1"] });
    const listed = await c.listTools();
    expect(listed.ok).toBe(false);
    if (!listed.ok)
      expect(listed.failure.message).toContain(`OAuth redirect refused by the outbound policy: ${elsewhere.origin} is not in allowedHosts`);
    expect(errors).toEqual(["outbound_refused"]);
    expect(redirecting.hits).toEqual(["GET /.well-known/oauth-authorization-server", "POST /token"]);
    expect(elsewhere.hits).toEqual([]);
    // Control: the same caller setup against an AS that answers the token request gets through the 401.
    const ok = caller(url, { allowedHosts: ["127.0.0.1"] });
    await ok.c.listTools();
    expect(ok.errors).toEqual([]);
    expect(as.hits).toContain("POST /token");
  });

  it("the provider's own outbound option applies when the caller has none", async () => {
    const as = await authServer("localhost");
    const url = await protectedServer(as.origin);
    const { c, errors } = caller(url, undefined, { outbound: { allowedHosts: ["127.0.0.1"] } });
    const listed = await c.listTools();
    expect(listed.ok).toBe(false);
    if (!listed.ok) expect(listed.failure.message).toContain(`${as.origin} is not in allowedHosts`);
    expect(errors).toEqual(["outbound_refused"]);
    expect(as.hits).toEqual([]);
  });
});
